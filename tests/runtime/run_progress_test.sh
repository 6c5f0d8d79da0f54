#!/usr/bin/env bash
# The progress bar: drawn on a terminal (script(1) provides one), erased at the loop's end,
# absent with --rotor-quiet and when stderr is not a terminal.
#   run_progress_test.sh PROGRAM WORK_DIR
set -euo pipefail
program=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! command -v script > /dev/null; then
  echo "skipped: no script(1) to provide a terminal"
  exit 0
fi
export ROTOR_PROGRESS_AFTER=0 # draw even for short loops
args="--ratings 20000 --epochs 2 --rotor-threads=2"
script -qec "$program $args" /dev/null > "$work/tty" < /dev/null
grep -q "observability_program.cpp:40 rotation \[" "$work/tty" || fail "no bar: $(cat -v "$work/tty")"
grep -q "records .*/s ETA" "$work/tty" || fail "no rate or ETA: $(cat -v "$work/tty")"
grep -q $'\r\033\\[K' "$work/tty" || fail "the bar is not erased: $(cat -v "$work/tty")"
grep -q "records=20000 epochs=2" "$work/tty" || fail "program output missing"
script -qec "$program $args --rotor-quiet" /dev/null > "$work/quiet" < /dev/null
! grep -q "rotation \[" "$work/quiet" || fail "--rotor-quiet drew a bar: $(cat -v "$work/quiet")"
"$program" $args > "$work/pipe.out" 2> "$work/pipe.err"
! grep -q "rotation \[" "$work/pipe.err" || fail "a bar on a pipe: $(cat -v "$work/pipe.err")"
echo "progress: all checks passed"
