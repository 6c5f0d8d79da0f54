#!/usr/bin/env bash
# MF-shaped SGD (k = 32): the plain serial loop vs the runtime's rotation schedule with 1 worker,
# 2 threads, and 2 MPI ranks. Prints a markdown table (updates/s over the epochs after the
# first, speed-ups, updates per CPU-second of the process (robust on a shared machine for the
# one-worker rows; rank 0's for np 2), the fraction of block transfer time hidden behind compute, peak RSS).
#   bench/runtime/run_rotation_bench.sh [BUILD_DIR] [extra rotation_bench args...]
set -euo pipefail
build=${1:-build/default}
shift || true
bin=$build/bench/runtime/rotation_bench
[[ -x $bin ]] || { echo "build $bin first: cmake --build $build --target rotation_bench" >&2; exit 1; }
mpi=(mpirun --oversubscribe --bind-to none --allow-run-as-root --mca btl_vader_single_copy_mechanism none)
run() { # label, command...
  local label=$1; shift
  local out rss
  out=$( { /usr/bin/time -f "maxrss_kb=%M" "$@" 2>&1; } )
  rss=$(grep -o 'maxrss_kb=[0-9]*' <<<"$out" | cut -d= -f2 | sort -n | tail -1)
  local line
  line=$(grep '^mode=' <<<"$out" | head -1)
  echo "$label|$line|$rss"
}
rows=()
rows+=("$(run plain "$bin" --mode plain "$@")")
rows+=("$(run "rotor 1 worker" "$bin" --mode rotor --rotor-threads=1 "$@")")
rows+=("$(run "rotor 1x2 threads" "$bin" --mode rotor --rotor-threads=2 "$@")")
rows+=("$(run "rotor np 2 x 1" "${mpi[@]}" -np 2 "$bin" --mode rotor --rotor-threads=1 "$@")")
get() { grep -o "$1=[^ ]*" <<<"$2" | cut -d= -f2; }
plain=$(get updates_per_s "${rows[0]}")
one=$(get updates_per_s "${rows[1]}")
echo "| configuration | updates/s | vs plain | vs 1 worker | updates/CPU-s | comm hidden | peak RSS (MB, per process) |"
echo "|---|---|---|---|---|---|---|"
for r in "${rows[@]}"; do
  label=${r%%|*}; rest=${r#*|}; line=${rest%|*}; rss=${r##*|}
  ups=$(get updates_per_s "$line"); hid=$(get comm_hidden "$line"); cpu=$(get updates_per_cpu_s "$line")
  awk -v l="$label" -v u="$ups" -v p="$plain" -v o="$one" -v h="$hid" -v m="$rss" -v c="$cpu" 'BEGIN {
    printf "| %s | %.3g | %.2fx | %.2fx | %.3g | %s | %.0f |\n", l, u, u / p, u / o, c,
      (l ~ /np/ ? sprintf("%.0f%%", 100 * h) : "-"), m / 1024 }'
done
