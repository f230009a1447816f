#!/usr/bin/env bash
# A rank that fails inside communication ends the whole job (DESIGN.md section 3).
# CAROUSEL_INJECT_FAULT=rank=R,call=N,kind=throw|message makes rank R fail at its N-th
# communication call (src/comm/fault_injecting_communicator.cpp): `throw` as a bug in a
# model or sampler would (exit 1), `message` as a failed MPI message would (exit 8). For
# `carousel mf` (ml-100k u1) and `carousel lda` (KOS) on 2 and 3 ranks, with rank 0 or
# another rank failing early (while the options and data are agreed on) or late (in the
# sampling loop and the gathering of outputs), mpirun must end within seconds, not hang,
# with that exit code, one error message naming the rank and call, and no rank left over.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_ml100k
[[ -f $KOS/docword.kos.txt && -f $KOS/vocab.kos.txt ]] || fail "$KOS/docword.kos.txt or vocab.kos.txt not found"

T=$TEST_TMP
# shellcheck disable=SC2034  # read by expect_fail in lib.sh
EXPECT_FAIL_LIMIT=${EXPECT_FAIL_LIMIT_FAULT:-20} # a faulty run takes about a second
MF=(mf --train "$ML100K/u1.base" --test "$ML100K/u1.test" --iterations 30 --burn-in 10 --quiet)
LDA=(lda --corpus "$KOS/docword.kos.txt" --vocab "$KOS/vocab.kos.txt" --topics 10
  --minibatch 100 --iterations 20 --burn-in 10 --eval-every 10 --eval-sweeps 2 --quiet)

# fault NP RANK CALL KIND CMD... : `carousel CMD... --out DIR` on NP ranks with the fault
# injected must fail as described above.
fault() {
  local np=$1 rank=$2 call=$3 kind=$4
  shift 4
  local out=$T/$1-np$np-r$rank-c$call-$kind code pattern left
  if [[ $kind == throw ]]; then
    code=1 pattern="injected fault: rank $rank threw at its call $call ("
  else
    code=8 pattern="a message between ranks failed (injected): rank $rank, call $call ("
  fi
  expect_fail "$code" "$pattern" env "CAROUSEL_INJECT_FAULT=rank=$rank,call=$call,kind=$kind" \
    "$MPIEXEC" --oversubscribe -np "$np" "$CAROUSEL_BIN" "$@" --out "$out"
  # mpirun has returned; no rank may outlive it (the --out path is in each rank's command line).
  left=$(rank_pids "$out")
  [[ -z $left ]] || fail "rank process(es) $left still running after mpirun returned"
  ok "$1 -np $np, rank $rank fails ($kind) at call $call: exit $code in ${EXPECT_FAIL_SECONDS}s: ${EXPECT_FAIL_MESSAGE#carousel: error: }"
}

# Calls 1-4 fall in the set-up, where the ranks agree on options, data and engine through
# RunCollectively. No step of such an agreement may communicate (a rank failing before a
# collective there pairs its agreement with the others' collective: a hang), which lda's
# call 4 checks: its engine's first reduction once came there. These runs make
# 104 to 117 calls (mf 109; lda 104 on 2 ranks, 117 on 3), so 40 and 70 fall in the
# sampling loop and 100 near its end; a run that no longer reaches a planned call exits 0.
for np in 2 3; do
  last=$((np - 1))
  fault "$np" 0 1 throw "${MF[@]}"
  fault "$np" "$last" 2 message "${MF[@]}"
  fault "$np" "$last" 5 throw "${MF[@]}"
  fault "$np" 0 40 message "${MF[@]}"
  fault "$np" "$last" 70 throw "${MF[@]}"
  fault "$np" 0 100 throw "${MF[@]}"
  fault "$np" "$last" 100 message "${MF[@]}"

  fault "$np" "$last" 1 message "${LDA[@]}"
  fault "$np" 0 3 throw "${LDA[@]}"
  fault "$np" "$last" 4 throw "${LDA[@]}"
  fault "$np" 0 4 message "${LDA[@]}"
  fault "$np" "$last" 40 message "${LDA[@]}"
  fault "$np" 0 70 throw "${LDA[@]}"
  fault "$np" "$last" 100 throw "${LDA[@]}"
done

# A plan past the run's last call never fires: the hook alone changes nothing.
CAROUSEL_INJECT_FAULT=rank=0,call=100000,kind=throw run_ok no-fault 2 "${LDA[@]}" --out "$T/no-fault"
ok "a fault planned after the last call: exit 0"

# A malformed plan is refused with exit 2, naming the variable.
rc=0
CAROUSEL_INJECT_FAULT=rank=0,call=0,kind=throw run_mpi 2 "${MF[@]}" --out "$T/bad-plan" \
  >"$T/bad-plan.log" 2>&1 || rc=$?
[[ $rc == 2 ]] || { show_log "$T/bad-plan.log"; fail "malformed plan: exit $rc, expected 2"; }
grep -qF "CAROUSEL_INJECT_FAULT" "$T/bad-plan.log" || fail "malformed plan: no message naming CAROUSEL_INJECT_FAULT"
ok "malformed CAROUSEL_INJECT_FAULT: exit 2"
