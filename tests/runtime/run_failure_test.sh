#!/usr/bin/env bash
# Fault injection: runs PROGRAM MODE under mpirun with NP ranks and checks that the job ends
# within LIMIT seconds with a non-zero exit status and that its output matches PATTERN
# (an extended regular expression naming the lost rank).
# Usage: run_failure_test.sh MPIEXEC NP LIMIT PATTERN PROGRAM MODE [mpirun flags...] -- [args]
set -u
mpiexec=$1 np=$2 limit=$3 pattern=$4 program=$5 mode=$6
shift 6
flags=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do flags+=("$1"); shift; done
[ $# -gt 0 ] && shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s%N)
# The outer timeout turns a hang into a failure of this test (exit 124), never a stuck ctest.
timeout -s KILL $((limit + 30)) "$mpiexec" "${flags[@]}" -np "$np" "$program" "$mode" "$@" \
  >"$log" 2>&1
rc=$?
end=$(date +%s%N)
elapsed_ms=$(((end - start) / 1000000))
elapsed="$((elapsed_ms / 1000)).$(printf %03d $((elapsed_ms % 1000)))"
cat "$log"
echo "--- mode=$mode np=$np exit=$rc seconds=$elapsed"
fail=0
if [ "$rc" -eq 0 ]; then echo "FAIL: the job exited with 0 after a rank failed"; fail=1; fi
if [ "$elapsed_ms" -gt $((limit * 1000)) ]; then
  echo "FAIL: the job took ${elapsed}s (limit ${limit}s)"; fail=1
fi
if ! grep -Eq "$pattern" "$log"; then echo "FAIL: no line matches '$pattern'"; fail=1; fi
if grep -q '^finished' "$log"; then echo "FAIL: a rank finished the program"; fail=1; fi
exit $fail
