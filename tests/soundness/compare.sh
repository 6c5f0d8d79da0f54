#!/usr/bin/env bash
# compare.sh MODE SERIAL ROTOR SOURCE ROTOR_CC [LAUNCHER...]
# One soundness check (README.md): run the rotor build (MODE threads: one process, 2 threads;
# MODE mpi2: LAUNCHER -np 2, 1 thread each) recording its record order, replay that order with
# the serial build, and require equal `hash=` lines. On a mismatch print both outputs and the
# plan rotor-cc chose for each loop of SOURCE. Exit 0 on equal hashes, 1 otherwise.
set -u
mode=$1 serial=$2 rotor=$3 src=$4 cc=$5
shift 5
# rotor-cc runs from the source's directory: make a relative path to it absolute.
[[ $cc == */* && $cc != /* ]] && cc=$PWD/$cc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
order=$work/order.txt
case $mode in
  threads) "$rotor" --rotor-threads=2 --rotor-quiet --rotor-record-order="$order" \
             >"$work/rotor.out" 2>"$work/rotor.err" ;;
  mpi2) OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
          "$@" -np 2 "$rotor" --rotor-threads=1 --rotor-quiet --rotor-record-order="$order" \
             >"$work/rotor.out" 2>"$work/rotor.err" ;;
  *) echo "compare.sh: unknown mode '$mode' (threads or mpi2)" >&2; exit 2 ;;
esac
rc_rotor=$?
rc_serial=-1
if [ "$rc_rotor" -eq 0 ]; then
  "$serial" --rotor-replay-order="$order" >"$work/serial.out" 2>"$work/serial.err"
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
if [ -f "$work/serial.out" ]; then
  echo "--- serial build (replaying the recorded order) stdout:"; cat "$work/serial.out"
  echo "--- serial build stderr:"; tail -n 20 "$work/serial.err"
fi
echo "--- plans (rotor-cc --explain $(basename "$src")):"
(cd "$(dirname "$src")" && "$cc" --explain "$(basename "$src")" 2>&1) |
  grep -E '^[^ ].*:[0-9]+: loop|^  plan:|^  blocked by:|^  reductions:' | cut -c1-200
exit 1
