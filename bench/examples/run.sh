#!/usr/bin/env bash
# Throughput of the examples: serial build vs Rotor build at 1 and 2 threads and on 2 MPI ranks.
# Prints a Markdown table (docs/performance.md holds the last one). Not a test: nothing is timed
# against a limit. Usage (after a build):
#   bench/examples/run.sh [BUILD_DIR]        # default build/default
# Environment: RATINGS (default 10m preset), SGD_EPOCHS (3), LDA_ITERATIONS (3), LR_EPOCHS (5),
# WORK (scratch dir, default BUILD_DIR/bench-examples), ONLY (sgd_mf|lda|logreg: one example),
# ROUNDS (1): runs the four configurations of each example this many times, interleaved, and
# prints the median of each column (a shared machine's speed drifts between runs; a round's
# ratio to its own serial run drifts much less).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/default}
ex=$build/examples
work=${WORK:-$build/bench-examples}
data=${SHARED_DATA:-../shared/data}
mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi=(mpirun --oversubscribe --bind-to none --allow-run-as-root)

value() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p" | head -1; }

# measure LABEL KEY CMD...: runs CMD, prints a table row from its closing line (throughput over
# the whole run, so a one-time cost such as the first layout counts once) and from its per-epoch
# lines (the median throughput of the epochs after the first: the steady state).
measure() {
  local label=$1 key=$2
  shift 2
  local out line
  out=$("$@" 2>&1) || { echo "| $label | failed |"; return; }
  line=$(grep '^final ' <<<"$out" | tail -1)
  local n steady
  n=$(value epochs "$line")
  [[ -n "$n" ]] || n=$(value iterations "$line")
  steady=$(grep -E '^(epoch|iteration)=' <<<"$out" | tail -n +2 | tr ' ' '\n' | sed -n "s/^$key=//p" |
    sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.2g", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print "-" }')
  printf '| %s | %s | %s | %s | %s |\n' "$label" "$(value "$key" "$line")" "$steady" \
    "$(awk -v s="$(value seconds "$line")" -v n="$n" 'BEGIN { printf "%.3g", s / n }')" \
    "$(tr ' ' '\n' <<<"$line" | grep -E '^(test_rmse|log_likelihood|test_accuracy)=' | head -1)"
}

# four_ways LABEL KEY EXAMPLE ARGS...: serial, Rotor 1 thread, Rotor 2 threads, Rotor np 2;
# ROUNDS times, then one row per configuration with medians (summarize).
four_ways() {
  local label=$1 key=$2 name=$3
  shift 3
  local round rows=""
  for ((round = 0; round < ${ROUNDS:-1}; ++round)); do
    rows+=$(measure "$label, serial build" "$key" "$ex/${name}_serial" "$@")$'\n'
    rows+=$(measure "$label, Rotor 1 thread" "$key" "$ex/$name" --rotor-threads=1 "$@")$'\n'
    rows+=$(measure "$label, Rotor 2 threads" "$key" "$ex/$name" --rotor-threads=2 "$@")$'\n'
    rows+=$(measure "$label, Rotor np 2 x 1 thread" "$key" "${mpi[@]}" -np 2 "$ex/$name" \
      --rotor-threads=1 "$@")$'\n'
  done
  summarize <<<"$rows"
}

# summarize: rows of measure, four per round (serial first) -> one row per configuration with
# the median of each number and the median over rounds of steady throughput / the round's serial.
summarize() {
  awk -F' *[|] *' '
    function median(list,   v, n, i, j, t) {
      n = split(list, v, " ")
      for (i = 2; i <= n; ++i) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; --j) {
        t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
      return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    NF >= 6 {
      slot = (NR - 1) % 4
      if (slot == 0) serial = $4
      label[slot] = $2; whole[slot] = whole[slot] " " $3; steady[slot] = steady[slot] " " $4
      ratio[slot] = ratio[slot] " " (serial > 0 ? $4 / serial : 0)
      epoch[slot] = epoch[slot] " " $5; quality[slot] = $6
    }
    END {
      for (slot = 0; slot < 4; ++slot) if (slot in label)
        printf "| %s | %.2g | %.2g | %.2fx | %.3g | %s |\n", label[slot], median(whole[slot]),
          median(steady[slot]), median(ratio[slot]), median(epoch[slot]), quality[slot]
    }'
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo
echo "rounds: ${ROUNDS:-1} (medians)"
echo
echo "| run | throughput (/s) | after the first epoch (/s) | vs serial (after the first) | seconds per epoch | quality |"
echo "|---|---|---|---|---|---|"

if [[ -z "${ONLY:-}" || "${ONLY:-}" == sgd_mf ]]; then
  preset=${RATINGS:-10m}
  if [[ ! -s "$work/ratings.$preset.csv" ]]; then
    "$ex/rotor-gen" ratings --preset "$preset" --seed 1 --out "$work/ratings.$preset.csv" \
      --test-out "$work/ratings.$preset.test.csv" >&2
  fi
  four_ways "sgd_mf $preset k=32 (updates/s)" updates_per_s sgd_mf \
    --data "$work/ratings.$preset.csv" --test "$work/ratings.$preset.test.csv" --k 32 \
    --epochs "${SGD_EPOCHS:-3}" --model none
fi
if [[ -z "${ONLY:-}" || "${ONLY:-}" == lda ]]; then
  [[ -s "$work/docword.20news.txt" ]] ||
    xz -dc "$data/lda/20news/docword.20news.txt.xz" >"$work/docword.20news.txt"
  for k in 100 1000; do
    four_ways "lda 20news K=$k (tokens/s)" tokens_per_s lda --data "$work/docword.20news.txt" \
      --topics "$k" --iterations "${LDA_ITERATIONS:-3}"
  done
fi
if [[ -z "${ONLY:-}" || "${ONLY:-}" == logreg ]]; then
  for part in train test; do
    [[ -s "$work/news20.$part" ]] ||
      xz -dc "$data/libsvm/news20-compsci/news20.compsci.$part.libsvm.xz" >"$work/news20.$part"
  done
  four_ways "logreg news20-compsci (examples/s)" examples_per_s logreg \
    --data "$work/news20.train" --test "$work/news20.test" --epochs "${LR_EPOCHS:-5}"
fi
