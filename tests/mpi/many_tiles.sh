#!/usr/bin/env bash
# Every mf sampler at its default step with many tiles (16 x 16 on ml-100k u1, so each
# stratum's gradient is scaled by 16) stays in the posterior for 600 iterations: the steps of
# SGHMC, SGNHT and HAMCMC shrink like sqrt(2 / scale) beyond 2 strata (DefaultMfStep). The
# control: HAMCMC at the step it has at 2 strata (0.35 with its default Fisher H0) leaves the
# posterior there, and the run stops with exit code 6 and a message that names the step:
# the evaluation's check ("left the posterior") or, where the factors overflow before an
# evaluation, the iteration's ("diverged ...: NaN or infinity").
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_ml100k

T=$TEST_TMP
RUN=(mf --train "$ML100K/u1.base" --test "$ML100K/u1.test" --tiles 16 --iterations 600 --quiet)
for sampler in sgld psgld sghmc sgnht sgrld sgrhmc hamcmc; do
  run_ok "$sampler" 2 "${RUN[@]}" --sampler "$sampler" --out "$T/$sampler"
  mean=$(trace_body "$T/$sampler/trace.csv" | tail -n 1 | cut -d, -f3)
  awk -v m="$mean" 'BEGIN { exit !(m < 1.0) }' ||
    fail "$sampler at 16 tiles: posterior-mean test RMSE $mean, not below 1.0"
  ok "$sampler: 16 x 16 tiles at the default step, posterior-mean test RMSE $mean"
done
expect_fail_mpi 6 "Reduce --step (now 0.35)" 2 "${RUN[@]}" --sampler hamcmc --step 0.35 --out "$T/control"
ok "control: hamcmc at its 2-strata step 0.35 with 16 tiles: exit 6: $EXPECT_FAIL_MESSAGE"
