#!/usr/bin/env bash
# logreg (examples/logreg, buffered_mean(w)) examples/s and test accuracy against the staleness
# bound s, at np 2 and 4 (1 thread per rank), flushing every F records per worker; plus the serial
# build and the loop-end merge. Prints a Markdown table (a benchmark, not a test).
#
#   bench/buffered/run_logreg_staleness.sh build/default [DATA TEST] [--epochs 10] [--flush 256]
set -euo pipefail
build=${1:?usage: run_logreg_staleness.sh BUILD_DIR [TRAIN TEST] [--epochs E] [--flush F]}
shift
data=../shared/data/libsvm/a9a/a9a
test=../shared/data/libsvm/a9a/a9a.t
if [[ $# -ge 2 && $1 != --* ]]; then
  data=$1
  test=$2
  shift 2
fi
epochs=10
flush=256
while [[ $# -gt 0 ]]; do
  case $1 in
    --epochs) epochs=$2; shift 2 ;;
    --flush) flush=$2; shift 2 ;;
    *) echo "run_logreg_staleness.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
# yield_when_idle: each rank's merger thread waits in MPI while its worker computes; Open MPI's
# default busy polling takes the worker's core when ranks x 2 threads exceed the cores.
mpi=(mpirun --oversubscribe --bind-to none --allow-run-as-root
     --mca btl_vader_single_copy_mechanism none --mca mpi_yield_when_idle 1)
field() { grep '^final' | tr ' ' '\n' | grep "^$1=" | cut -d= -f2; }
row() {
  local name=$1
  shift
  local out
  out=$("$@" --data "$data" --test "$test" --epochs "$epochs")
  echo "| $name | $(field examples_per_s <<<"$out") | $(field test_accuracy <<<"$out") |"
}
echo "data=$data epochs=$epochs flush_every=$flush"
echo
echo "| configuration | examples/s | test accuracy |"
echo "|---|---|---|"
row "serial build" "$build/examples/logreg_serial"
for np in 2 4; do
  row "np $np, merge at loop end" "${mpi[@]}" -np $np "$build/examples/logreg" --rotor-threads=1
  for s in 0 1 4; do
    row "np $np, flush every $flush, s = $s" "${mpi[@]}" -np $np "$build/examples/logreg" \
      --rotor-threads=1 --rotor-flush-every=$flush --rotor-staleness=$s
  done
done
