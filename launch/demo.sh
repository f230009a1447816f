#!/usr/bin/env bash
# The main job on the built-in default: installs what is missing, builds the carousel
# binary alone in Release (launch/test.sh builds everything),
# generates MovieLens-1M-shaped ratings with known factors, trains the default sampler (SGRLD) on 2 MPI ranks
# with a 90/10 split, and prints the test RMSE trace next to the noise floor.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/launch/install-deps.sh" binary  # only what the demo runs
CAROUSEL_BUILD_TARGETS=carousel "$root/launch/build.sh"

out="${CAROUSEL_DEMO_DIR:-$root/out/demo}"
mkdir -p "$out"
"$root/build/carousel" gen mf --out "$out/ratings.txt" | tee "$out/gen.log"
"$root/launch/mpirun.sh" 2 mf --train "$out/ratings.txt" --test-fraction 0.1 \
  --out "$out/run" --overwrite "$@"

echo
echo "Test RMSE trace (iteration, RMSE of the current sample, RMSE of the posterior mean):"
grep -v '^#' "$out/run/trace.csv" | awk -F, '
  NR == 1 { printf "%8s  %12s  %12s\n", $1, $3, $4; next }
  (NR - 2) % 10 == 9 { printf "%8s  %12.4f  %12.4f\n", $1, $3, $4 }'
grep '^noise floor' "$out/gen.log"
