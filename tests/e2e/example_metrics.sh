#!/usr/bin/env bash
# The examples report their own metrics through rotor::report_metric: with --rotor-metrics=FILE
# the metrics file of a run holds sgd_mf's train/test RMSE, lda's log-likelihood and perplexity,
# logreg's train loss, test accuracy and test loss, one line per epoch (iteration), and rotor-plot
# draws a convergence plot from it. Without --test, sgd_mf prints no test_rmse (and no nan).
# Environment as e2e.sh (EXAMPLES, WORK prepared by `e2e.sh prepare`); ROTOR_PLOT: the tool.
#   example_metrics.sh sgd_mf|lda|logreg
set -euo pipefail
: "${EXAMPLES:?}" "${WORK:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }

example=$1
dir="$WORK/metrics.$example"
rm -rf "$dir" && mkdir -p "$dir"

# check_metrics FILE STEPS NAME...: every NAME has steps 1..STEPS with finite values.
check_metrics() {
  python3 - "$@" <<'PY'
import json, math, sys
path, steps, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
seen = {}
with open(path) as f:
    for n, line in enumerate(f, 1):
        r = json.loads(line)
        if r.get("kind") == "metric":
            if r["value"] is None or not math.isfinite(r["value"]):
                sys.exit(f"{path}:{n}: metric {r['name']} is not finite: {r['value']}")
            seen.setdefault(r["name"], []).append(r["step"])
for name in names:
    if seen.get(name) != list(range(1, steps + 1)):
        sys.exit(f"{path}: metric {name}: steps {seen.get(name)}, expected 1..{steps}")
print(f"ok: {path}: " + ", ".join(f"{k} x{len(v)}" for k, v in sorted(seen.items())))
PY
}

run() { # run LOG METRICS ARGS...: the Rotor build, one process, two threads
  local log=$1 metrics=$2
  shift 2
  "$EXAMPLES/$example" --rotor-threads=2 --rotor-quiet --rotor-metrics="$metrics" "$@" \
    >"$log" 2>&1 || { cat "$log"; fail "$example exited $?"; }
}

case $example in
sgd_mf)
  run "$dir/log" "$dir/metrics.jsonl" --data "$WORK/ratings.csv" --test "$WORK/ratings.test.csv" \
    --k 8 --epochs 3 --model none
  check_metrics "$dir/metrics.jsonl" 3 train_rmse test_rmse
  run "$dir/notest.log" "$dir/notest.jsonl" --data "$WORK/ratings.csv" --k 8 --epochs 2 \
    --model none
  check_metrics "$dir/notest.jsonl" 2 train_rmse
  ! grep -q "test_rmse" "$dir/notest.log" "$dir/notest.jsonl" ||
    fail "a run without --test reports a test RMSE: $(grep test_rmse "$dir/notest.log" | head -1)"
  ! grep -qi "nan" "$dir/notest.log" || fail "a run without --test prints nan"
  grep -q '^final epochs=2 train_rmse=' "$dir/notest.log" || fail "no closing line without --test"
  if [[ -n "${ROTOR_PLOT:-}" ]]; then
    "$ROTOR_PLOT" --out "$dir/plots" --formats png "$dir/metrics.jsonl"
    [[ -s "$dir/plots/convergence.png" ]] || fail "rotor-plot drew no convergence plot"
    echo "ok: rotor-plot convergence plot from the metrics file"
  fi
  ;;
lda)
  run "$dir/log" "$dir/metrics.jsonl" --data "$WORK/docword.kos.txt" --topics 20 --iterations 2
  check_metrics "$dir/metrics.jsonl" 2 log_likelihood perplexity
  ;;
logreg)
  run "$dir/log" "$dir/metrics.jsonl" --data "$WORK/a9a.train" --test "$WORK/a9a.test" --epochs 2
  check_metrics "$dir/metrics.jsonl" 2 train_loss test_accuracy test_loss
  ;;
*) fail "unknown example '$example'" ;;
esac
