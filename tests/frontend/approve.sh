#!/bin/sh
# Regenerates the frontend goldens from the current rotor-cc. Review the diff before committing.
#   tests/frontend/approve.sh [build-dir]      (default: build/default)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build/default}
cc=$(cd "$build" && pwd)/frontend/rotor-cc
cd "$here/cases"
for c in *.cpp; do
  case "$c" in *.expected.cpp) continue ;; esac
  "$cc" --explain=json "$c" > "${c%.cpp}.json"
done
for c in $(cat ../rewrite_cases.txt); do
  "$cc" --emit-source="${c%.cpp}.expected.cpp" "$c"
done
for t in ../explain/*.txt; do
  c=$(basename "$t" .txt).cpp
  "$cc" --explain "$c" > "$t"
done
for d in split twice global missing broken differs; do
  (cd "../other_sources/$d" && "$cc" --explain loop.cpp) > "../other_sources/$d.txt"
done
echo "approved: $(ls ../explain/*.txt | wc -l) explain text goldens"
echo "approved: $(ls *.json | wc -l) explain goldens, $(wc -l < ../rewrite_cases.txt) rewrite goldens"
