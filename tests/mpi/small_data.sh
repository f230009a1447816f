#!/usr/bin/env bash
# Data smaller than the tile grid (issue #12): 3 ratings of 3 users and 2 items on 4 x 4
# tiles leave row blocks, column blocks and whole strata empty, which is legal. Every
# sampler completes, on 1 and 2 ranks, with the same outputs bitwise. Before, PSGLD's
# preconditioner divided by an empty stratum's size (NaN factors at iteration 1, exit 6)
# and the Release build segfaulted on an empty block's null data pointer given to memcpy.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

T=$TEST_TMP
printf '1 1 3\r\n2 2 4\r\n3 1 5' >"$T/tiny.txt"  # CRLF, no final newline
for sampler in psgld sgld sghmc sgnht sgrld sgrhmc hamcmc; do
  for np in 1 2; do
    run_ok "$sampler-p$np" "$np" mf --train "$T/tiny.txt" --test "$T/tiny.txt" --rank 2 --tiles 4 \
      --sampler "$sampler" --iterations 12 --burn-in 4 --eval-every 2 --quiet \
      --out "$T/$sampler-p$np"
  done
  same_outputs "$T/$sampler-p1" "$T/$sampler-p2" "$sampler: P=1 vs P=2"
  ok "$sampler: 3 ratings on 4 x 4 tiles complete on 1 and 2 ranks with the same outputs"
done
