#!/usr/bin/env bash
# Compile time of the examples: plain `g++ -std=c++17 -O2 -c` vs `rotor-cc -O2 -c` on the same
# file, back to back, RUNS times each (default 3); prints a Markdown table of the medians and the
# ratio (issue 4's target: rotor-cc at most 1.5x g++). Not a test. Usage (after a build):
#   bench/compile/run.sh [BUILD_DIR]        # default build/default
# Environment: ROTOR_CC (another rotor-cc, e.g. a baseline; its .cfg beside it), RUNS, METRIC (cpu: user+sys seconds, default; wall), ONLY (sgd_mf|lda|logreg), CXX (default: the cxx line of rotor-cc.cfg),
# BREAKDOWN=1 also times rotor-cc's analysis alone (--explain=json) and g++ on the rewritten file.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/default}
cc=${ROTOR_CC:-$build/frontend/rotor-cc}
cfg=${ROTOR_CC:-$build/frontend/rotor-cc}.cfg
runs=${RUNS:-3}
cxx=${CXX:-$(sed -n 's/^cxx //p' "$cfg")}
mapfile -t flags < <(sed -n 's/^compile //p' "$cfg")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# seconds CMD...: time of one run (fails loudly if CMD fails): CPU seconds (user + sys of the
# command and its children) when METRIC=cpu (default; steadier on a loaded machine), else wall.
seconds() {
  /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
    { cat "$work/err" >&2; return 1; }
  if [[ ${METRIC:-cpu} == cpu ]]; then
    awk '{ printf "%.3f\n", $2 + $3 }' "$work/time"
  else
    awk '{ printf "%.3f\n", $1 }' "$work/time"
  fi
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "metric: ${METRIC:-cpu} seconds, median of $runs runs"
echo "| example | g++ -O2 -c (s) | rotor-cc -O2 -c (s) | ratio |$([[ -n ${BREAKDOWN:-} ]] && echo ' analysis only (s) | g++ on rewritten (s) |')"
echo "|---|---|---|---|$([[ -n ${BREAKDOWN:-} ]] && echo '---|---|')"
for ex in sgd_mf lda logreg; do
  [[ -z ${ONLY:-} || ${ONLY} == "$ex" ]] || continue
  src=examples/$ex/$ex.cpp
  g=() r=() a=() w=()
  if [[ -n ${BREAKDOWN:-} ]]; then
    "$cc" -std=c++17 --emit-source="$work/$ex.rotor.cpp" "$src" >/dev/null 2>&1
  fi
  for ((i = 0; i < runs; ++i)); do
    g+=("$(seconds "$cxx" -std=c++17 -O2 "${flags[@]}" -c "$src" -o "$work/g.o")")
    r+=("$(seconds "$cc" -std=c++17 -O2 -c "$src" -o "$work/r.o")")
    if [[ -n ${BREAKDOWN:-} ]]; then
      a+=("$(seconds "$cc" -std=c++17 --explain=json "$src")")
      w+=("$(seconds "$cxx" -std=c++17 -O2 "${flags[@]}" -iquote "examples/$ex" -c \
        "$work/$ex.rotor.cpp" -o "$work/w.o")")
    fi
  done
  gm=$(printf '%s\n' "${g[@]}" | median)
  rm_=$(printf '%s\n' "${r[@]}" | median)
  row="| $ex | $gm | $rm_ | $(awk -v a="$gm" -v b="$rm_" 'BEGIN { printf "%.2fx", b / a }') |"
  if [[ -n ${BREAKDOWN:-} ]]; then
    row+=" $(printf '%s\n' "${a[@]}" | median) | $(printf '%s\n' "${w[@]}" | median) |"
  fi
  echo "$row"
done
