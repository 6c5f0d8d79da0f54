#!/usr/bin/env bash
# End to end: the sgd_mf example (built by rotor-cc, unchanged) trains 30 epochs at np 2;
# the same run with --rotor-checkpoint has rank 1 killed (-9) right after the checkpoint of loop
# execution 15 and is resumed with --rotor-resume: the saved models must be bitwise equal, and
# the epochs the checkpoint held print updates_per_s=restored.
# Usage: run_example_checkpoint_test.sh MPIEXEC SGD_MF ROTOR_GEN H5DIFF [mpirun flags...]
set -u
mpiexec=$1 sgd_mf=$2 gen=$3 h5diff=$4
shift 4
flags=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$gen" ratings --out "$work/r.csv" --users 500 --items 300 --ratings 30000 >/dev/null || exit 1
run() { timeout -s KILL 60 "$mpiexec" "${flags[@]}" -np 2 "$sgd_mf" --data "$work/r.csv" \
  --epochs 30 --rotor-threads=1 "$@"; }
run --model "$work/ref.h5" >/dev/null || { echo "FAIL: reference run"; exit 1; }
ROTOR_TEST_KILL_AFTER_CHECKPOINT=15:1 run --model "$work/res.h5" \
  --rotor-checkpoint="$work/ck" >"$work/log" 2>&1
rc=$?
fail=0
if [ "$rc" -eq 0 ]; then echo "FAIL: the killed run exited 0"; fail=1; fi
grep -q "rank 1" "$work/log" || { echo "FAIL: no message naming rank 1"; fail=1; }
run --model "$work/res.h5" --rotor-checkpoint="$work/ck" --rotor-resume >"$work/resumed" ||
  { echo "FAIL: resumed run"; fail=1; }
tail -2 "$work/resumed"
# Epochs the checkpoint held were restored, not run: no speed for them (not 1e12 updates/s).
grep -q '^epoch=1 .*updates_per_s=restored$' "$work/resumed" ||
  { echo "FAIL: epoch 1 of the resumed run does not say updates_per_s=restored"; fail=1; }
grep -q '^epoch=30 .*updates_per_s=[0-9]' "$work/resumed" ||
  { echo "FAIL: epoch 30 of the resumed run has no speed"; fail=1; }
if "$h5diff" "$work/ref.h5" "$work/res.h5"; then echo "models bitwise equal"; else
  echo "FAIL: the resumed model differs"; fail=1; fi
exit $fail
