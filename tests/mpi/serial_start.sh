#!/usr/bin/env bash
# A model command started without an MPI launcher runs as one serial process and does not
# start MPI (src/comm/process_communicator.cpp): the same chain as `mpirun -np 1`, bitwise,
# for mf and lda; errors keep their exit codes; SIGTERM checkpoints and the serial resume
# finishes the same chain. That MPI is not started is checked by naming a nonexistent
# point-to-point layer (OMPI_MCA_pml), which makes MPI_Init fail: the serial run must not
# notice it, and the same run with CAROUSEL_MPI=1 (MPI forced) must fail (the control).
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_ml100k
require_lda_data

T=$TEST_TMP
SERIAL_ENV=("${NO_LAUNCHER_ENV[@]}")

# run_serial NAME ARGS... : carousel without mpirun, must exit 0; log in $T/NAME.log.
run_serial() {
  local name=$1 rc=0
  shift
  timeout -k 10 "$CAROUSEL_TEST_TIMEOUT" "${SERIAL_ENV[@]}" "$CAROUSEL_BIN" "$@" \
    </dev/null >"$T/$name.log" 2>&1 || rc=$?
  [[ $rc == 0 ]] || { show_log "$T/$name.log"; fail "$name: exit $rc, expected 0: carousel $*"; }
}

MF=(mf --train "$ML100K/u1.base" --test "$ML100K/u1.test" --rank 8 --tiles 2 --seed 3
  --iterations 60 --burn-in 20 --eval-every 5 --quiet)
run_serial mf-serial "${MF[@]}" --out "$T/mf-serial"
run_ok mf-mpi 1 "${MF[@]}" --out "$T/mf-mpi"
same_outputs "$T/mf-serial" "$T/mf-mpi" "mf: serial vs mpirun -np 1"
ok "mf without mpirun: outputs bitwise identical to mpirun -np 1"

LDA=(lda --corpus "$KOS/docword.kos.txt" --vocab "$KOS/vocab.kos.txt" --topics 10 --seed 3
  --test-fraction 0.1 --iterations 12 --burn-in 4 --eval-every 4 --quiet)
run_serial lda-serial "${LDA[@]}" --out "$T/lda-serial"
run_ok lda-mpi 1 "${LDA[@]}" --out "$T/lda-mpi"
same_lda_outputs "$T/lda-serial" "$T/lda-mpi" "lda: serial vs mpirun -np 1"
ok "lda without mpirun: outputs bitwise identical to mpirun -np 1"

# MPI is not started: a broken MPI configuration goes unnoticed by the serial run ...
OMPI_MCA_pml=no_such_pml run_serial no-mpi "${MF[@]}" --out "$T/no-mpi"
same_outputs "$T/mf-serial" "$T/no-mpi" "mf: serial run with a broken MPI configuration"
# ... and stops the same run when MPI is forced (the control: the check can fail).
rc=0
timeout -k 10 "$CAROUSEL_TEST_TIMEOUT" "${SERIAL_ENV[@]}" CAROUSEL_MPI=1 OMPI_MCA_pml=no_such_pml \
  "$CAROUSEL_BIN" "${MF[@]}" --out "$T/forced" </dev/null >"$T/forced.log" 2>&1 || rc=$?
[[ $rc != 0 && $rc != 124 ]] ||
  fail "CAROUSEL_MPI=1 with OMPI_MCA_pml=no_such_pml: exit $rc, expected MPI_Init to fail"
ok "the serial run does not start MPI (a broken MPI setup fails only with CAROUSEL_MPI=1, exit $rc)"

# Bad input: the same message and exit code as under mpirun.
printf '1\t2\t5\n1\tx\t4\n' >"$T/bad.tsv"
expect_fail 3 "bad.tsv" "${SERIAL_ENV[@]}" "$CAROUSEL_BIN" mf --train "$T/bad.tsv" --quiet \
  --out "$T/bad"
ok "bad input without mpirun: exit 3: $EXPECT_FAIL_MESSAGE"

# SIGTERM: a checkpoint and exit 7; the serial resume finishes the same chain.
LONG=(mf --train "$ML100K/u.data" --test-fraction 0.1 --rank 8 --tiles 2 --seed 7
  --iterations 1500 --burn-in 100 --eval-every 10 --quiet --checkpoint-every 100)
run_serial long-ref "${LONG[@]}" --out "$T/long-ref"
sigterm_run "$T/term" "${SERIAL_ENV[@]}" "$CAROUSEL_BIN" "${LONG[@]}"
run_serial resume-term mf --resume "$T/term"
same_outputs "$T/long-ref" "$T/term" "serial resume after SIGTERM"
ok "SIGTERM without mpirun: exit 7 with a checkpoint; the resumed chain is the uninterrupted one"
