#!/usr/bin/env bash
# Regenerates the expected outputs of the analysis golden tests from the current rotor-deps.
# Review `git diff tests/analysis/golden` before committing.
#   tests/analysis/golden/approve.sh [BUILD_DIR]     (default build/default)
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
build="$(cd "${1:-$root/build/default}" && pwd)"
tool="$build/analysis/rotor-deps"
cd "$root/tests/analysis/golden"
for f in cases/*.loop; do
  n="$(basename "$f" .loop)"
  "$tool" "$f" > "expected/$n.txt"
done
for f in errors/*.loop; do
  n="$(basename "$f" .loop)"
  if "$tool" "$f" > /dev/null 2> "expected/$n.err"; then
    echo "error: $f was accepted" >&2
    exit 1
  fi
done
cd "$root"
for f in analysis/models/*.loop; do
  n="$(basename "$f" .loop)"
  "$tool" "$f" > "tests/analysis/golden/expected/model_$n.txt"
  "$tool" --json "$f" > "tests/analysis/golden/expected/model_$n.json"
done
echo "approved: $(ls tests/analysis/golden/expected | wc -l) files"
