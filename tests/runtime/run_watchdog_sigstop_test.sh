#!/usr/bin/env bash
# Issue 20, item 3, with the real example and the signal sent from outside: sgd_mf at np 2 with
# --rotor-timeout=3; once it trains, rank 1 gets SIGSTOP from this script. The job must end
# non-zero within 3 + 30 s of the signal, with rank 0's line naming the loop and rank 1.
#   run_watchdog_sigstop_test.sh MPIEXEC SGD_MF ROTOR_GEN [mpirun flags...]
set -u
mpiexec=$1 sgd_mf=$2 gen=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
"$gen" ratings --out r.csv --users 2000 --items 1000 --ratings 200000 > /dev/null || exit 1
"$mpiexec" "$@" -np 2 "$sgd_mf" --data r.csv --epochs 100000 --model none --rotor-threads=1 \
  --rotor-timeout=3 > out.txt 2> err.txt &
job=$!
# Wait for training (an epoch line), then stop rank 1 (a child of mpirun with rank 1 in its
# environment).
for _ in $(seq 1 300); do
  grep -q '^epoch=2 ' out.txt 2> /dev/null && break
  sleep 0.1
done
rank1=""
for p in $(pgrep -P "$job"); do
  if tr '\0' '\n' < "/proc/$p/environ" 2> /dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then
    rank1=$p
  fi
done
if [ -z "$rank1" ]; then
  echo "FAIL: rank 1 not found (not training?)"; cat err.txt; kill -9 "$job"; exit 1
fi
kill -STOP "$rank1"
stopped=$(date +%s%N)
# A hang becomes a failure of this test after 63 s, never a stuck ctest.
for _ in $(seq 1 630); do
  kill -0 "$job" 2> /dev/null || break
  sleep 0.1
done
if kill -0 "$job" 2> /dev/null; then
  pkill -9 -P "$job" # the ranks first: mpirun killed alone would orphan them
  kill -9 "$job" 2> /dev/null
fi
wait "$job"
rc=$?
elapsed_ms=$((($(date +%s%N) - stopped) / 1000000))
cat err.txt
echo "--- exit=$rc seconds after SIGSTOP=$((elapsed_ms / 1000)).$(printf %03d $((elapsed_ms % 1000)))"
fail=0
if [ "$rc" -eq 0 ]; then echo "FAIL: exit 0"; fail=1; fi
if [ "$elapsed_ms" -gt 33000 ]; then echo "FAIL: took more than 33 s after SIGSTOP"; fail=1; fi
# Rank 0 names rank 1; it names the loop too when the stop caught it inside one (the stop may
# also land between loops, in the example's own collectives: then no loop is named).
if ! grep -Eq '^\[rank 0\] rotor: no progress for 3 s .*rank 1 did not' err.txt; then
  echo "FAIL: no line from rank 0 naming rank 1"; fail=1
fi
kill -9 "$rank1" 2> /dev/null
exit $fail
