#!/usr/bin/env bash
# Numbers with a network (issue 20, item 4): rotation's share of communication hidden behind
# compute (bench/runtime/rotation_bench, np 2 x 1 thread) and logreg examples/s and accuracy vs
# the staleness bound s = 0, 1, 4 (a9a, flush every 256 records, np 2 x 1 thread), on one host
# (shared memory) and on 2 fixture hosts over TCP (tests/cluster/cluster.sh): unshaped and with
# every host's egress shaped to each RATE. Rounds are interleaved; prints medians (min-max) as a
# Markdown table. A benchmark, not a test; needs root and network namespaces.
#
#   bench/cluster/run_network_bench.sh BUILD_DIR [--rounds 3] [--rates "1gbit 100mbit"]
#       [--ratings 10000000] [--epochs 10]
set -euo pipefail
build=$(cd "${1:?usage: run_network_bench.sh BUILD_DIR [--rounds N] [--rates \"R ...\"]}" && pwd)
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
rounds=3 rates="1gbit 100mbit" ratings=10000000 epochs=10
while [[ $# -gt 0 ]]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --rates) rates=$2; shift 2 ;;
    --ratings) ratings=$2; shift 2 ;;
    --epochs) epochs=$2; shift 2 ;;
    *) echo "run_network_bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
data=$root/../shared/data/libsvm/a9a
rotation=$build/bench/runtime/rotation_bench
logreg=$build/examples/logreg
for f in "$rotation" "$logreg" "$data/a9a" "$data/a9a.t"; do
  [[ -e $f ]] || { echo "run_network_bench.sh: $f is missing (build rotation_bench, logreg)" >&2; exit 1; }
done
# shellcheck source=../../tests/cluster/cluster.sh
source "$root/tests/cluster/cluster.sh"
cluster_require
cluster_up 2
# As bench/buffered/run_logreg_staleness.sh: each rank's merger thread waits in MPI while its
# worker computes; busy polling would take the worker's core on a 2-core machine.
export CLUSTER_MPI_EXTRA="--mca mpi_yield_when_idle 1"
local_mpi=(mpirun --oversubscribe --bind-to none --allow-run-as-root
  --mca btl_vader_single_copy_mechanism none --mca mpi_yield_when_idle 1 -np 2)
results=$CLUSTER_DIR/results
field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }

# measure CONFIG LAUNCH...: one run of every program under LAUNCH ("local" or "hosts").
measure() {
  local config=$1 where=$2 out s
  run() {
    if [[ $where == local ]]; then
      "${local_mpi[@]}" "$@" 2>&1
    else
      cluster_mpirun "1 1" "$CLUSTER_DIR/job.log" "$@" || { cat "$CLUSTER_DIR/job.log" >&2; return 1; }
      cat "$CLUSTER_DIR/job.log"
    fi
  }
  out=$(run "$rotation" --mode rotor --rotor-threads=1 --ratings "$ratings" --epochs 5 | grep '^mode=')
  echo "$config|rotation comm hidden (%)|$(field comm_hidden <<< "$out" | awk '{print 100 * $1}')" >> "$results"
  echo "$config|rotation updates/s|$(field updates_per_s <<< "$out")" >> "$results"
  for s in 0 1 4; do
    out=$(run "$logreg" --rotor-threads=1 --rotor-flush-every=256 --rotor-staleness=$s \
      --data "$data/a9a" --test "$data/a9a.t" --epochs "$epochs" | grep '^final')
    echo "$config|logreg examples/s, s = $s|$(field examples_per_s <<< "$out")" >> "$results"
    echo "$config|logreg test accuracy, s = $s|$(field test_accuracy <<< "$out")" >> "$results"
  done
}

configs=("one host (shared memory)" "2 hosts, TCP, unshaped")
for rate in $rates; do configs+=("2 hosts, TCP, tbf $rate"); done
for ((round = 1; round <= rounds; round++)); do
  echo "round $round of $rounds" >&2
  measure "${configs[0]}" local
  measure "${configs[1]}" hosts
  for rate in $rates; do
    applied=$(cluster_shape "$rate" 0.5ms)
    measure "2 hosts, TCP, tbf $rate" hosts
    cluster_unshape
  done
done
echo "shaping: every host's eth0 egress, one rate at a time (the last: $applied); rounds: $rounds;"
echo "rotation_bench --ratings $ratings --epochs 5;"
echo "logreg a9a --epochs $epochs --rotor-flush-every=256; np 2 x 1 thread everywhere"
echo
header="| metric |" rule="|---|"
for c in "${configs[@]}"; do header+=" $c |" rule+="---|"; done
echo "$header"
echo "$rule"
awk -F'|' -v configs="$(printf '%s\n' "${configs[@]}")" '
  { key = $2 SUBSEP $1; vals[key] = vals[key] " " $3; if (!($2 in seen)) { seen[$2]; order[++n] = $2 } }
  function cell(list,   a, k, i, j, t, med) {
    k = split(list, a, " ")
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    med = (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
    return (k > 1) ? sprintf("%.4g (%.4g-%.4g)", med, a[1], a[k]) : sprintf("%.4g", med)
  }
  END {
    m = split(configs, c, "\n")
    for (i = 1; i <= n; i++) {
      line = "| " order[i] " |"
      for (j = 1; j <= m; j++) if (c[j] != "") line = line " " cell(vals[order[i] SUBSEP c[j]]) " |"
      print line
    }
  }' "$results"
