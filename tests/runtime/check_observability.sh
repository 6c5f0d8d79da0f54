#!/usr/bin/env bash
# Runs a rotation test at np 2 with --rotor-metrics and --rotor-trace and checks both files
# against docs/design/observability.md (valid JSON, required keys, one track per worker).
#   check_observability.sh TEST_BINARY MPIEXEC [MPIEXEC_FLAGS...]
set -euo pipefail
bin=$1; shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$@" -np 2 "$bin" --rotor-threads=1 --rotor-metrics="$dir/m.jsonl" --rotor-trace="$dir/t.json" \
  --rotor-label=check --gtest_filter='Rotation.MatrixFactorisation*' > "$dir/out.txt" 2>&1 ||
  { cat "$dir/out.txt"; exit 1; }
python3 - "$dir/m.jsonl" "$dir/t.json" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert lines[0]["kind"] == "run" and lines[0]["label"] == "check", lines[0]
assert lines[0]["ranks"] == 2 and lines[0]["workers"] == 2, lines[0]
loops = [l for l in lines if l["kind"] == "loop"]
assert len(loops) == 3, f"expected 3 loop executions, got {len(loops)}"
for i, l in enumerate(loops):
    for key in ("loop", "plan", "execution", "t", "seconds", "records", "records_per_s",
                "bytes_moved", "workers"):
        assert key in l, f"loop line lacks {key}: {l}"
    assert l["plan"] == "rotation" and l["execution"] == i + 1 and l["records"] == 3000, l
    assert [w["worker"] for w in l["workers"]] == [0, 1], l["workers"]
    assert sum(w["records"] for w in l["workers"]) == 3000
    assert all(w["compute_s"] >= 0 and w["wait_s"] >= 0 for w in l["workers"])
    assert l["bytes_moved"] > 0
trace = json.load(open(sys.argv[2]))["traceEvents"]
names = {e["name"] for e in trace}
assert {"compute", "send", "recv"} <= names, names
assert {e["pid"] for e in trace if e["name"] == "compute"} == {0, 1}
assert all(e["ph"] == "X" and e["dur"] >= 0 for e in trace)
assert all("block" in e["args"] for e in trace if e["name"] == "compute")
print(f"ok: {len(loops)} loop lines, {len(trace)} trace events")
PY
