#!/usr/bin/env bash
# rotor-plot renders every picture from the fixtures (valid PNG and SVG), and rejects bad input
# with FILE:LINE and exit status 1. Usage: test_rotor_plot.sh ROTOR_PLOT FIXTURES_DIR WORK_DIR
set -euo pipefail
plot=$1 fixtures=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$plot" --out "$work/pics" --trace "$fixtures/np2.trace.json" \
  "$fixtures/serial.metrics.jsonl" "$fixtures/np2.metrics.jsonl" > "$work/list"
for stem in convergence throughput schedule; do
  grep -qx "$work/pics/$stem.png" "$work/list" || fail "$stem.png not reported"
  [[ $(head -c 8 "$work/pics/$stem.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] \
    || fail "$stem.png is not a PNG"
  [[ $(stat -c %s "$work/pics/$stem.png") -gt 10000 ]] || fail "$stem.png is nearly empty"
  /usr/bin/python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" \
    "$work/pics/$stem.svg" || fail "$stem.svg is not XML"
done
# Both runs are in the convergence legend.
grep -q serial "$work/pics/convergence.svg" || fail "serial run missing from convergence.svg"

expect_error() { # expected-message args...
  local expected=$1; shift
  if "$plot" --out "$work/bad" "$@" 2> "$work/err"; then fail "accepted bad input: $*"; fi
  grep -qF -- "$expected" "$work/err" || fail "message '$(cat "$work/err")' lacks '$expected'"
}
expect_error "bad.metrics.jsonl:2: not JSON" "$fixtures/bad.metrics.jsonl"
expect_error "missing.jsonl: cannot open" "$work/missing.jsonl"
printf '{"kind":"loop","t":1,"records":5}\n' > "$work/lacks.jsonl"
expect_error "lacks.jsonl:1: loop line lacks 'seconds'" "$work/lacks.jsonl"
printf '{"kind":"epoch"}\n' > "$work/kind.jsonl"
expect_error "kind.jsonl:1: unknown kind 'epoch'" "$work/kind.jsonl"
printf '{"traceEvents": []}\n' > "$work/empty.trace.json"
expect_error "no complete ('X') events" --trace "$work/empty.trace.json"
expect_error "--window: empty window '2:1'" --trace "$fixtures/np2.trace.json" --window 2:1
expect_error "--window: expected FROM:TO" --trace "$fixtures/np2.trace.json" --window 2
"$plot" --out "$work/window" --formats svg --trace "$fixtures/np2.trace.json" --window 0: \
  > /dev/null || fail "--window 0: rejected"
# A negative end counts from the trace's end (so a tutorial's window works on any machine); a
# window past the trace names the trace's length.
"$plot" --out "$work/last" --formats svg --trace "$fixtures/np2.trace.json" --window=-0.001: \
  > /dev/null 2> "$work/err" || fail "--window=-0.001: rejected"
grep -qF "schedule from 0.00299 to 0.00399 s of the trace's 0.00399 s" "$work/err" ||
  fail "--window=-0.001: said '$(cat "$work/err")'"
expect_error "no trace events in that window (the trace covers 0 to" \
  --trace "$fixtures/np2.trace.json" --window 1000:
echo "rotor-plot: all checks passed"
