#!/usr/bin/env bash
# Runs each loader fuzzer for a fixed time and reports crashes.
#   distarray/fuzz/run_fuzzers.sh BUILD_DIR [SECONDS=60]
# Crashing inputs are written to BUILD_DIR/fuzz-artifacts/<target>/; turn each into a regression
# test (tests/distarray/fuzz_regressions/<target>/, replayed by distarray_fuzz_regression_test).
set -euo pipefail
build=${1:?usage: run_fuzzers.sh BUILD_DIR [SECONDS]}
seconds=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
status=0
for target in csv uci_bow libsvm binary; do
  bin=$build/distarray/fuzz/fuzz_$target
  corpus=$build/fuzz-corpus/$target
  artifacts=$build/fuzz-artifacts/$target
  mkdir -p "$corpus" "$artifacts"
  cp -n "$here"/corpus/$target/* "$corpus"/ 2>/dev/null || true
  echo "== fuzz_$target for ${seconds}s"
  if ! "$bin" -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=2048 -timeout=10 \
      -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" > "$build/fuzz-$target.log" 2>&1; then
    echo "fuzz_$target: FAILED (see $build/fuzz-$target.log, inputs in $artifacts)"
    status=1
  fi
  grep -E "stat::number_of_executed_(runs|units)|stat::new_units_added" "$build/fuzz-$target.log" || true
done
exit $status
