#!/usr/bin/env bash
# check_sensitivity.sh BUILD_DIR [NAME...]: evidence that a program's hash can tell a wrong run
# from a right one. Per program: record the rotor build's order (2 threads), replay it with the
# serial build (hash A), replay it with every loop's record order reversed (hash B: another
# serial order), and run the serial build in its own order (hash C). "order-sensitive" when
# B != A: any plan that interleaves conflicting records differently from one serial order
# changes the hash. IndexSpace-only programs have no recorded order ("no dataset loop").
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: check_sensitivity.sh BUILD_DIR [NAME...]}" && pwd)
shift
bin=$build/tests/soundness
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in "$here"/programs/*.cpp; do names+=("$(basename "$f" .cpp)"); done
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-32s %-18s %-18s %-18s %s\n' name replay reversed own_order verdict
for name in "${names[@]}"; do
  "$bin/soundness_$name" --rotor-threads=2 --rotor-quiet --rotor-record-order="$work/o" >/dev/null 2>&1
  awk 'rev { n = split($0, a, " "); s = a[n]; for (i = n - 1; i >= 1; --i) s = s " " a[i];
             print s; rev = 0; next }
       /^loop / { rev = 1 } { print }' "$work/o" >"$work/r"
  a=$("$bin/soundness_${name}_serial" --rotor-replay-order="$work/o" 2>/dev/null | grep '^hash=')
  b=$("$bin/soundness_${name}_serial" --rotor-replay-order="$work/r" 2>/dev/null | grep '^hash=')
  c=$("$bin/soundness_${name}_serial" 2>/dev/null | grep '^hash=')
  if ! grep -q '^loop ' "$work/o"; then
    verdict="no dataset loop"
  elif [ "$a" != "$b" ]; then
    verdict=order-sensitive
  else
    verdict="same under reversal"
  fi
  printf '%-32s %-18s %-18s %-18s %s\n' "$name" "${a#hash=}" "${b#hash=}" "${c#hash=}" "$verdict"
done
