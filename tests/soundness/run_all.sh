#!/usr/bin/env bash
# run_all.sh BUILD_DIR [NAME...]: runs every program of programs/ (known-unsound ones too; or the
# NAMEs given) both ways (2 threads; 2 MPI ranks) and prints a table: name, the plan of each
# loop (rotor-cc --explain, in source order), threads and mpi2 PASS|FAIL, known_unsound.txt.
# Build the corpus first: cmake --build --preset default --target soundness
# Exit status: 1 when a program that is not listed in known_unsound.txt fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: run_all.sh BUILD_DIR [NAME...]}" && pwd)
shift
cc=$build/frontend/rotor-cc
# A build without the frontend (the tsan stage of scripts/test.sh) names another rotor-cc.
if [ ! -x "$cc" ]; then
  cc=$(sed -n 's/^ROTOR_CC_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
fi
bin=$build/tests/soundness
mpiexec=${ROTOR_MPIEXEC:-mpirun}
mpi_flags=(--oversubscribe --bind-to none --allow-run-as-root --mca btl_vader_single_copy_mechanism none)
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in "$here"/programs/*.cpp; do names+=("$(basename "$f" .cpp)"); done
fi
known=$(sed -e 's/#.*//' "$here/known_unsound.txt" | awk 'NF {print $1}')
logs=$(mktemp -d)
unexpected=0
printf '%-32s %-7s %-7s %-7s %s\n' name threads mpi2 known plans
for name in "${names[@]}"; do
  src=$here/programs/$name.cpp
  plans=$(cd "$here/programs" && "$cc" --explain "$name.cpp" 2>/dev/null |
          sed -n -e 's/^[^ ].*:\([0-9][0-9]*\): loop .*/L\1/p' -e 's/^  plan: \([^:]*\).*/\1/p' |
          paste -sd' ' | sed -e 's/ L/; L/g' -e 's/L\([0-9]*\) /line \1: /g')
  res=()
  for mode in threads mpi2; do
    extra=()
    [ $mode = mpi2 ] && extra=("$mpiexec" "${mpi_flags[@]}")
    if "$here/compare.sh" $mode "$bin/soundness_${name}_serial" "$bin/soundness_$name" "$src" "$cc" \
         "${extra[@]}" >"$logs/$name.$mode.log" 2>&1; then
      res+=(PASS)
    else
      res+=(FAIL)
    fi
  done
  is_known=no
  grep -qx "$name" <<<"$known" && is_known=yes
  if [ $is_known = no ] && [[ "${res[*]}" == *FAIL* ]]; then
    unexpected=1
  fi
  printf '%-32s %-7s %-7s %-7s %s\n' "$name" "${res[0]}" "${res[1]}" "$is_known" "$plans"
done
echo "logs of failed runs: $logs"
exit $unexpected
