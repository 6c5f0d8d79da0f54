#!/usr/bin/env bash
# Checkpoint + kill -9 + --rotor-resume must give the arrays and records of an uninterrupted run,
# bitwise (compared with h5diff, which reports any difference).
# Usage: run_checkpoint_test.sh MPIEXEC PROGRAM H5DIFF CASE [mpirun flags...]
#   CASE np1 | np2 | every3 (np 1, a checkpoint every 3 loop executions) | np2to1 |
#        mismatch (OTHER_PROGRAM in the environment resumes the checkpoint)
set -u
mpiexec=$1 program=$2 h5diff=$3 case=$4
shift 4
flags=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { # NP ARGS...: runs the program under mpirun (a hang fails the test after 60 s)
  local np=$1
  shift
  timeout -s KILL 60 "$mpiexec" "${flags[@]}" -np "$np" "$program" "$@" --rotor-threads=1
}
fail=0
check_killed() { # RC: the run meant to die must have died and left a complete checkpoint
  if [ "$1" -eq 0 ]; then echo "FAIL: the run meant to be killed exited 0"; fail=1; fi
  if [ ! -f "$work/ck/rotor-checkpoint.h5" ]; then echo "FAIL: no checkpoint written"; fail=1; fi
  if ls "$work/ck/"*.tmp >/dev/null 2>&1; then echo "FAIL: a temporary file was left"; fail=1; fi
}
same() { # A B: bitwise equal HDF5 files
  if "$h5diff" "$1" "$2"; then echo "equal: $(basename "$1") $(basename "$2")"; else
    echo "FAIL: $1 and $2 differ"; fail=1; fi
}
case "$case" in
np1 | np2 | every3)
  np=1 every=1
  [ "$case" = np2 ] && np=2
  [ "$case" = every3 ] && every=3
  run "$np" 6 "$work/ref.h5" >/dev/null || { echo "FAIL: reference run"; exit 1; }
  run "$np" 6 "$work/res.h5" 3 --rotor-checkpoint="$work/ck" --rotor-checkpoint-every=$every \
    >/dev/null 2>&1
  check_killed $?
  run "$np" 6 "$work/res.h5" --rotor-checkpoint="$work/ck" --rotor-checkpoint-every=$every \
    --rotor-resume || { echo "FAIL: resumed run"; fail=1; }
  same "$work/ref.h5" "$work/res.h5"
  ;;
np2to1)
  # A checkpoint written by 2 ranks after epoch 3, resumed by 1 rank: with nothing left to train
  # (EPOCHS 4) the result is exactly the 2-rank 4-epoch run; with 6 epochs the run completes.
  run 2 4 "$work/ref4.h5" >/dev/null || { echo "FAIL: reference run"; exit 1; }
  run 2 6 "$work/x.h5" 3 --rotor-checkpoint="$work/ck" >/dev/null 2>&1
  check_killed $?
  cp -r "$work/ck" "$work/ck6"
  run 1 4 "$work/res4.h5" --rotor-checkpoint="$work/ck" --rotor-resume ||
    { echo "FAIL: resumed run"; fail=1; }
  same "$work/ref4.h5" "$work/res4.h5"
  run 1 6 "$work/res6.h5" --rotor-checkpoint="$work/ck6" --rotor-resume >/dev/null ||
    { echo "FAIL: resumed 6-epoch run"; fail=1; }
  ;;
mismatch)
  # Resuming another program (OTHER_PROGRAM: its loop at the restore point differs) must stop
  # with an error naming both loops, not continue from a foreign state.
  run 1 6 "$work/x.h5" 3 --rotor-checkpoint="$work/ck" >/dev/null 2>&1
  check_killed $?
  timeout -s KILL 60 "$OTHER_PROGRAM" none --rotor-threads=1 --rotor-checkpoint="$work/ck" \
    --rotor-resume >"$work/log" 2>&1
  rc=$?
  cat "$work/log"
  if [ "$rc" -eq 0 ]; then echo "FAIL: resuming another program exited 0"; fail=1; fi
  if ! grep -q "another program, or other arguments" "$work/log"; then
    echo "FAIL: no mismatch message"; fail=1; fi
  ;;
*)
  echo "unknown case $case"
  exit 2
  ;;
esac
exit $fail
