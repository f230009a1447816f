# Sourced by run_tile_work.sh and run_strong_scaling.sh: how long a run is and how its
# seconds per pass are read from its trace.
#
# passes_for B: passes to run at B tiles: max(4, 2 + ceil(30 / B)), so that two whole passes
# follow SGRLD's 30-iteration step warm-up (where every row steps every iteration).
passes_for() { local b=$1; echo $(( 2 + (30 + b - 1) / b > 4 ? 2 + (30 + b - 1) / b : 4 )); }

# per_pass TRACE: seconds per pass, the mean of the last two intervals between trace rows
# (one row per pass: --eval-every B).
per_pass() {
  awk -F, '!/^#/ && $1 ~ /^[0-9]+$/ { t[n++] = $2 } END {
    if (n < 3) { print "nan"; exit } printf "%.4f", (t[n-1] - t[n-3]) / 2 }' "$1"
}

# per_pass_since TRACE TILES FROM: seconds per pass, evaluations included, over the trace rows
# from the first at iteration FROM or later to the last (for runs whose rows are not one a
# pass): (seconds between them) x TILES / (iterations between them).
per_pass_since() {
  awk -F, -v b="$2" -v from="$3" '!/^#/ && $1 ~ /^[0-9]+$/ {
    if (first == "" && $1 >= from) { first = $1; s0 = $2 } last = $1; s1 = $2 } END {
    if (first == "" || last == first) { print "nan"; exit }
    printf "%.4f", (s1 - s0) * b / (last - first) }' "$1"
}
