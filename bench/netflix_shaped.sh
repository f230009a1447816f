# Sourced by the benchmarks that run `carousel mf` on Netflix-shaped generated ratings.
#
# netflix_shaped_split BIN RATINGS DIR : sets train and test to DIR/train_RATINGS.txt and
# DIR/test_RATINGS.txt, generating them once (`carousel gen mf --users 480189 --items 17770
# --rank 10 --seed 5`, every 100th line held out).
netflix_shaped_split() {
  local bin=$1 ratings=$2 dir=$3
  train="$dir/train_$ratings.txt" test="$dir/test_$ratings.txt"
  [ -s "$train" ] && return 0
  "$bin" gen mf --users 480189 --items 17770 --ratings "$ratings" --rank 10 --seed 5 \
    --out "$dir/all.txt" >/dev/null
  awk -v tr="$train" -v te="$test" 'NR % 100 == 0 { print > te; next } { print > tr }' "$dir/all.txt"
  rm -f "$dir/all.txt"
}
