#!/usr/bin/env bash
# compare.sh MODE SERIAL ROTOR SOURCE ROTOR_CC [LAUNCHER...]
# One soundness check (README.md): run the rotor build (MODE threads: one process, 2 threads;
# MODE mpi2: LAUNCHER -np 2, 1 thread each) recording its record order, replay that order with
# the serial build, and require equal `hash=` lines. On a mismatch print both outputs, the
# sanitizer summaries of the rotor build and the plan rotor-cc chose for each loop of SOURCE.
# ROTOR_COMPARE_TIMEOUT=S (optional) limits each of the two runs to S seconds.
# Exit status: 0 equal hashes; 1 both runs succeeded and printed different hashes (an unsound
# plan); 3 a run failed (non-zero exit, e.g. a sanitizer report, or no hash line); 4 a run timed
# out; 2 bad usage. Every non-zero status fails the ctest test; rotor-frontend-fuzz --execute
# (tests/fuzz) tells them apart.
set -u
mode=$1 serial=$2 rotor=$3 src=$4 cc=$5
shift 5
# rotor-cc runs from the source's directory: make a relative path to it absolute.
[[ $cc == */* && $cc != /* ]] && cc=$PWD/$cc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
order=$work/order.txt
limit=()
[ -n "${ROTOR_COMPARE_TIMEOUT:-}" ] && limit=(timeout -k 5 "$ROTOR_COMPARE_TIMEOUT")
case $mode in
  threads) "${limit[@]}" "$rotor" --rotor-threads=2 --rotor-quiet --rotor-record-order="$order" \
             >"$work/rotor.out" 2>"$work/rotor.err" ;;
  mpi2) OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
          "${limit[@]}" "$@" -np 2 "$rotor" --rotor-threads=1 --rotor-quiet --rotor-record-order="$order" \
             >"$work/rotor.out" 2>"$work/rotor.err" ;;
  *) echo "compare.sh: unknown mode '$mode' (threads or mpi2)" >&2; exit 2 ;;
esac
rc_rotor=$?
rc_serial=-1
if [ "$rc_rotor" -eq 0 ]; then
  "${limit[@]}" "$serial" --rotor-replay-order="$order" >"$work/serial.out" 2>"$work/serial.err"
  rc_serial=$?
fi
rotor_hash=$(grep '^hash=' "$work/rotor.out" 2>/dev/null)
serial_hash=$(grep '^hash=' "$work/serial.out" 2>/dev/null)
if [ "$rc_rotor" -eq 0 ] && [ "$rc_serial" -eq 0 ] && [ -n "$rotor_hash" ] &&
   [ "$rotor_hash" = "$serial_hash" ]; then
  echo "PASS $(basename "$src") $mode: $rotor_hash"
  exit 0
fi
echo "FAIL $(basename "$src") $mode: rotor exit $rc_rotor, serial (replay) exit $rc_serial"
echo "--- rotor build ($mode) stdout:"; cat "$work/rotor.out"
echo "--- rotor build stderr:"; tail -n 20 "$work/rotor.err"
grep -h '^SUMMARY: [A-Za-z]*Sanitizer' "$work/rotor.err" | sort | uniq -c | sed 's/^/--- /'
if [ -f "$work/serial.out" ]; then
  echo "--- serial build (replaying the recorded order) stdout:"; cat "$work/serial.out"
  echo "--- serial build stderr:"; tail -n 20 "$work/serial.err"
fi
echo "--- plans (rotor-cc --explain $(basename "$src")):"
(cd "$(dirname "$src")" && "$cc" --explain "$(basename "$src")" 2>&1) |
  grep -E '^[^ ].*:[0-9]+: loop|^  plan:|^  blocked by:|^  reductions:' | cut -c1-200
if [ "$rc_rotor" -eq 124 ] || [ "$rc_serial" -eq 124 ]; then
  exit 4
elif [ "$rc_rotor" -ne 0 ] || [ "$rc_serial" -ne 0 ] || [ -z "$rotor_hash" ] ||
     [ -z "$serial_hash" ]; then
  exit 3
fi
exit 1
