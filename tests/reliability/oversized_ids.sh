#!/usr/bin/env bash
# Issue 20, item 6: an input whose ids make an array too big for memory (one id of 2,000,000,000
# in a ratings file) must end sgd_mf within seconds, non-zero (not a signal), with exactly one
# line per rank that names the array, its shape and bytes, the limit, the largest id with its
# FILE:LINE, and the remedy (remap) -- instead of `error: std::bad_alloc`. At np 2 every rank
# says the same (no hang).
#   oversized_ids.sh EXAMPLES_DIR WORK_DIR MPIEXEC [mpirun flags...]
set -uo pipefail
examples=${1:?usage: oversized_ids.sh EXAMPLES_DIR WORK_DIR MPIEXEC [flags...]}
work=${2:?work dir}
mpiexec=${3:?mpiexec}
shift 3
mpiflags=("$@")
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
# Line 1 a header; the huge id on line 7, in the second half of the bytes (rank 1's share at np 2).
printf 'user,item,rating\n0,1,3.5\n1,0,2.0\n2,2,4.0\n3,1,1.0\n4,0,5.0\n2000000000,2,4.5\n5,1,3.0\n' \
  > sparse.csv
# A moderate id with a faked limit (ROTOR_MEMORY_AVAILABLE): 100001 x 32 floats = 12.8 MB > 10 MB.
printf '0,1,3.5\n100000,0,2.0\n2,7,4.0\n' > moderate.csv
failures=0 checks=0

# check NAME RANKS LIMIT_S PATTERN... -- COMMAND...: non-zero exit (not a signal) within LIMIT_S,
# exactly RANKS lines on stderr, each containing every PATTERN (fixed strings).
check() {
  local name=$1 ranks=$2 limit=$3
  shift 3
  local patterns=()
  while [ "$1" != "--" ]; do patterns+=("$1"); shift; done
  shift
  checks=$((checks + 1))
  local start end rc
  start=$(date +%s%N)
  timeout -s KILL $((limit + 30)) "$@" > out.txt 2> err.txt
  rc=$?
  end=$(date +%s%N)
  local ms=$(((end - start) / 1000000))
  # Neither TBB's notes nor mpirun's own framed notice (between lines of dashes) are Rotor's.
  awk '/^-----+$/ { framed = !framed; next } !framed' err.txt |
    grep -v -e '^TBB Warning' -e '^$' > err.rotor.txt
  local lines ok=1 why=""
  lines=$(wc -l < err.rotor.txt)
  if [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ]; then ok=0 why="exit $rc"; fi
  if [ "$ms" -gt $((limit * 1000)) ]; then ok=0 why="$why took ${ms} ms (limit ${limit} s)"; fi
  if [ "$lines" -ne "$ranks" ]; then ok=0 why="$why $lines stderr lines (want $ranks)"; fi
  local p
  for p in "${patterns[@]}"; do
    if [ "$(grep -cF -- "$p" err.rotor.txt)" -ne "$ranks" ]; then ok=0 why="$why no '$p' on every line"; fi
  done
  if [ "$ok" -eq 1 ]; then
    echo "ok   $name: exit $rc in ${ms} ms:"
    sed 's/^/    /' err.rotor.txt
  else
    echo "FAIL $name:$why"
    sed 's/^/    /' err.txt | head -20
    failures=$((failures + 1))
  fi
}

huge=("DistArray<float, 2> W" "shape {2000000001, 32}" "needs 256000000128 bytes"
      "a rank may use" "largest id of field 0 (column 1), 2000000000 at $work/sparse.csv:7"
      "remap")
check "sgd_mf_serial np1 sparse id" 1 10 "${huge[@]}" "[rank 0]" -- \
  "$examples/sgd_mf_serial" --data "$work/sparse.csv" --epochs 1 --model none
if [ -x "$examples/sgd_mf" ]; then
  check "sgd_mf np1 sparse id" 1 10 "${huge[@]}" "[rank 0]" -- \
    "$examples/sgd_mf" --data "$work/sparse.csv" --epochs 1 --model none --rotor-threads=2
  check "sgd_mf np2 sparse id" 2 20 "${huge[@]}" -- \
    "$mpiexec" "${mpiflags[@]}" -np 2 "$examples/sgd_mf" --data "$work/sparse.csv" --epochs 1 \
    --model none --rotor-threads=1
  check "sgd_mf np2 sparse id, test set" 2 20 "${huge[@]}" -- \
    "$mpiexec" "${mpiflags[@]}" -np 2 "$examples/sgd_mf" --data "$work/moderate.csv" \
    --test "$work/sparse.csv" --epochs 1 --model none --rotor-threads=1
  if grep -q '\[rank 1\]' err.rotor.txt; then :; else
    echo "FAIL np2: no line from rank 1"; failures=$((failures + 1)); fi
fi
moderate=("DistArray<float, 2> W" "shape {100001, 32}" "needs 12800128 bytes"
          "ROTOR_MEMORY_AVAILABLE" "100000 at $work/moderate.csv:2" "remap")
check "sgd_mf_serial np1 faked limit" 1 10 "${moderate[@]}" -- \
  env ROTOR_MEMORY_AVAILABLE=10000000 "$examples/sgd_mf_serial" --data "$work/moderate.csv" \
  --epochs 1 --model none
if [ -x "$examples/sgd_mf" ]; then
  check "sgd_mf np2 faked limit" 2 20 "${moderate[@]}" -- \
    "$mpiexec" "${mpiflags[@]}" -x ROTOR_MEMORY_AVAILABLE=10000000 -np 2 "$examples/sgd_mf" \
    --data "$work/moderate.csv" --epochs 1 --model none --rotor-threads=1
fi
echo "$((checks - failures))/$checks checks passed"
[ "$failures" -eq 0 ]
