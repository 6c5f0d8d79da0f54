#!/usr/bin/env bash
# Runs rotor-frontend-fuzz for a fixed time, restarting it with a new seed after a crash, and
# reports inputs, seconds, crashes and failed checks. Crashing inputs are kept as
# OUT/crash-N.cpp (+ .edits); failed checks as OUT/seed-S/failure-N.cpp (+ .txt). Turn each into
# a regression: copy the .cpp to tests/fuzz/frontend_regressions/.
#   bench/fuzz/run_frontend_fuzz.sh FUZZER SECONDS OUT --config CFG [-I DIR]... SEEDS...
set -uo pipefail
fuzzer=${1:?usage: run_frontend_fuzz.sh FUZZER SECONDS OUT ARGS...}
seconds=${2:?seconds}
out=${3:?out dir}
shift 3
mkdir -p "$out"
start=$(date +%s)
seed=${ROTOR_FUZZ_SEED:-1}
inputs=0 crashes=0 failed=0 runs=0
while :; do
  left=$((seconds - ($(date +%s) - start)))
  [ "$left" -gt 0 ] || break
  dir=$out/seed-$seed
  rm -rf "$dir"
  "$fuzzer" --seconds "$left" --seed "$seed" --out "$dir" "$@" > "$dir.log" 2>&1
  rc=$?
  runs=$((runs + 1))
  n=$(sed -n 's/^frontend fuzz: \([0-9]*\) inputs.*/\1/p' "$dir.log")
  inputs=$((inputs + ${n:-0}))
  if [ -f "$dir/current.cpp" ]; then
    crashes=$((crashes + 1))
    cp "$dir/current.cpp" "$out/crash-$crashes.cpp"
    cp "$dir/current.edits" "$out/crash-$crashes.edits"
    echo "CRASH (exit $rc, seed $seed): $out/crash-$crashes.cpp; log $dir.log"
  elif [ "$rc" -ne 0 ]; then
    f=$(ls "$dir"/failure-*.cpp 2>/dev/null | wc -l)
    failed=$((failed + f))
    echo "FAILED CHECKS (seed $seed): $f, see $dir/failure-*.txt"
  fi
  grep '^frontend fuzz:' "$dir.log" || true
  seed=$((seed + 1000))
done
echo "frontend fuzz total: $runs runs, $inputs inputs (+ $crashes crashed), $crashes crashes," \
  "$failed failed checks, $(( $(date +%s) - start )) s"
[ "$crashes" -eq 0 ] && [ "$failed" -eq 0 ]
