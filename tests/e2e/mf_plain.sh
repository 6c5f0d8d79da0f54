#!/usr/bin/env bash
# End-to-end check of examples/mf_plain (plain serial C++: std::vector records and tables, the
# pragma only, no Rotor include): the Rotor build against the serial build.
# Called by ctest (tests/e2e/CMakeLists.txt) as:  mf_plain.sh CASE
# Environment: EXAMPLES (dir of the binaries), WORK (scratch dir, with ratings.csv and
# ratings.test.csv from `e2e.sh prepare`), MPIEXEC, MPIEXEC_FLAGS (space-separated).
#
# Cases:
#   parallel    at 1 worker the Rotor build equals the serial build bitwise (same model_hash);
#               at 2 threads and at np 2 (one rank each) it prints its closing line once, the
#               two 2-worker layouts end bitwise equal, and the test RMSE is within 1% of the
#               serial build's
#   malformed   a malformed ratings line: exit 1 and a FILE:LINE message naming the line, in
#               both builds
set -euo pipefail

: "${EXAMPLES:?}" "${WORK:?}"
MPIEXEC=${MPIEXEC:-mpirun}
read -r -a MPI_FLAGS <<<"${MPIEXEC_FLAGS:---oversubscribe --bind-to none --allow-run-as-root}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ARGS=("$WORK/ratings.csv" "$WORK/ratings.test.csv" 16 4) # k = 16, 4 epochs
OUT="$WORK/mf_plain"
mkdir -p "$OUT"

fail() { echo "FAIL: $*" >&2; exit 1; }

# value KEY LINE: the value of key=value in LINE.
value() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p" | head -1; }

# closing LOG: the one closing line of LOG; fails unless there is exactly one.
closing() {
  local count
  count=$(grep -c '^final ' "$1" || true)
  [[ $count -eq 1 ]] || { cat "$1"; fail "$1: $count closing lines, expected 1"; }
  grep '^final ' "$1"
}

# run LOG COMMAND...: the command, output to LOG (shown when it fails).
run() {
  local log=$1 rc=0
  shift
  "$@" >"$log" 2>&1 || rc=$?
  [[ $rc -eq 0 ]] || { cat "$log"; fail "$* exited $rc"; }
}

case_parallel() {
  run "$OUT/serial.log" "$EXAMPLES/mf_plain_serial" "${ARGS[@]}"
  run "$OUT/t1.log" "$EXAMPLES/mf_plain" --rotor-threads=1 "${ARGS[@]}"
  run "$OUT/t2.log" "$EXAMPLES/mf_plain" --rotor-threads=2 "${ARGS[@]}"
  run "$OUT/np2.log" "$MPIEXEC" "${MPI_FLAGS[@]}" -np 2 "$EXAMPLES/mf_plain" --rotor-threads=1 \
    "${ARGS[@]}"
  local serial t1 t2 np2
  serial=$(closing "$OUT/serial.log")
  t1=$(closing "$OUT/t1.log")
  t2=$(closing "$OUT/t2.log")
  np2=$(closing "$OUT/np2.log")
  echo "serial: $serial"; echo "t1:     $t1"; echo "t2:     $t2"; echo "np2:    $np2"
  [[ $(value model_hash "$t1") == "$(value model_hash "$serial")" ]] ||
    fail "1 worker: model_hash $(value model_hash "$t1") differs from serial's"
  [[ $(value model_hash "$t2") == "$(value model_hash "$np2")" ]] ||
    fail "2 threads and np 2 differ: $(value model_hash "$t2") vs $(value model_hash "$np2")"
  local want got
  want=$(value test_rmse "$serial")
  for got in "$(value test_rmse "$t2")" "$(value test_rmse "$np2")"; do
    awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.01 * b) }' ||
      fail "test_rmse $got vs serial $want: more than 1% apart"
  done
  echo "ok: 1 worker bitwise serial; 2 workers test_rmse within 1% of $want; one closing line each"
}

case_malformed() {
  local bad="$OUT/bad.csv"
  printf '1,2,3\n4,5,4.5\n7;8;2\n' >"$bad"
  local build rc
  for build in mf_plain_serial mf_plain; do
    rc=0
    "$EXAMPLES/$build" "$bad" "$bad" >"$OUT/bad.$build.log" 2>&1 || rc=$?
    [[ $rc -eq 1 ]] || { cat "$OUT/bad.$build.log"; fail "$build: exit $rc, expected 1"; }
    grep -q "bad.csv:3: expected user,item,rating .*found '7;8;2'" "$OUT/bad.$build.log" ||
      { cat "$OUT/bad.$build.log"; fail "$build: no FILE:LINE message for the malformed line"; }
  done
  echo "ok: both builds name bad.csv:3 and the line"
}

case "${1:-}" in
parallel) case_parallel ;;
malformed) case_malformed ;;
*) fail "unknown case '${1:-}' (parallel, malformed)" ;;
esac
