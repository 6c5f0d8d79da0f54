#!/usr/bin/env bash
# Throughput of the examples: serial build vs Rotor build at 1 and 2 threads and on 2 MPI ranks.
# Prints a Markdown table (docs/performance.md holds the last one). Not a test: nothing is timed
# against a limit. Usage (after a build):
#   bench/examples/run.sh [BUILD_DIR]        # default build/default
# Environment: RATINGS (rotor-gen presets for sgd_mf, space-separated: "10m", "10m netflix"),
# NETFLIX_RATINGS (the netflix preset's size, default the full 100M; e.g. 20000000 on a small
# machine), SGD_EPOCHS (3), LDA_ITERATIONS (3), LR_EPOCHS (5),
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

# sgd_mf's table says where the time goes. Per run: the SGD loop's rate over all epochs (the
# closing line's updates_per_s: loop time only, first layout included) and after the first epoch
# (median of the epoch lines); the whole run's rate (ratings x epochs over the process's wall time:
# loading, setup, test RMSE and MPI start included); the seconds spent outside the SGD loop; and
# the memory bandwidth the steady loop would move if every update missed the caches:
# k_bytes_per_update = 12 (the record) + 4 x 4k (W and H rows, read and written) = 524 at k = 32,
# against the triad bandwidth of the same run (a loop at 100% is memory-bound; above 100% its
# rows come from the caches).
sgd_bytes_per_update=$((12 + 16 * 32))

# measure_sgd LABEL TRIAD_GBS CMD...: one row (numbers only, summarized by sgd_summarize).
measure_sgd() {
  local label=$1 triad=$2
  shift 2
  local out line t0 t1
  t0=$(date +%s.%N)
  out=$("$@" 2>&1) || { echo "| $label | failed |"; return; }
  t1=$(date +%s.%N)
  line=$(grep '^final ' <<<"$out" | tail -1)
  local ratings epochs loop steady
  ratings=$(grep -m1 '^sgd_mf: ' <<<"$out" | tr ' ' '\n' | sed -n 's/^ratings=//p')
  epochs=$(value epochs "$line")
  loop=$(value updates_per_s "$line")
  steady=$(grep '^epoch=' <<<"$out" | tail -n +2 | tr ' ' '\n' | sed -n 's/^updates_per_s=//p' |
    sort -g | awk '{ v[NR] = $1 } END { print NR ? (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) : 0 }')
  awk -v label="$label" -v r="$ratings" -v e="$epochs" -v loop="$loop" -v steady="$steady" \
    -v wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" -v bytes="$sgd_bytes_per_update" \
    -v triad="$triad" -v q="$(tr ' ' '\n' <<<"$line" | grep -m1 '^test_rmse=')" 'BEGIN {
      updates = r * e
      outside = wall - (loop > 0 ? updates / loop : 0)
      share = triad > 0 ? 100 * steady * bytes / 1e9 / triad : 0
      printf "| %s | %g | %g | %g | %g | %g | %g | %s |\n", label, loop, steady, updates / wall,
        outside, steady * bytes / 1e9, share, q }'
}

# sgd_four_ways LABEL TRIAD_GBS ARGS...: the four configurations, ROUNDS times interleaved, then
# one row per configuration with the median of each column.
sgd_four_ways() {
  local label=$1 triad=$2
  shift 2
  local round rows=""
  for ((round = 0; round < ${ROUNDS:-1}; ++round)); do
    rows+=$(measure_sgd "$label, serial build" "$triad" "$ex/sgd_mf_serial" "$@")$'\n'
    rows+=$(measure_sgd "$label, Rotor 1 thread" "$triad" "$ex/sgd_mf" --rotor-threads=1 "$@")$'\n'
    rows+=$(measure_sgd "$label, Rotor 2 threads" "$triad" "$ex/sgd_mf" --rotor-threads=2 "$@")$'\n'
    rows+=$(measure_sgd "$label, Rotor np 2 x 1 thread" "$triad" "${mpi[@]}" -np 2 "$ex/sgd_mf" \
      --rotor-threads=1 "$@")$'\n'
  done
  awk -F' *[|] *' '
    function median(list,   v, n, i, j, t) {
      n = split(list, v, " ")
      for (i = 2; i <= n; ++i) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; --j) {
        t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
      return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    NF >= 9 {
      slot = (NR - 1) % 4; label[slot] = $2; quality[slot] = $9
      for (c = 3; c <= 8; ++c) col[slot, c] = col[slot, c] " " $c
    }
    END {
      for (slot = 0; slot < 4; ++slot) if (slot in label)
        printf "| %s | %.2g | %.2g | %.2g | %.3g | %.3g | %.0f%% | %s |\n", label[slot],
          median(col[slot, 3]), median(col[slot, 4]), median(col[slot, 5]), median(col[slot, 6]),
          median(col[slot, 7]), median(col[slot, 8]), quality[slot]
    }' <<<"$rows"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo
echo "rounds: ${ROUNDS:-1} (medians)"
echo
if [[ -z "${ONLY:-}" || "${ONLY:-}" == sgd_mf ]]; then
  triad=$("$build/bench/examples/rotor-triad" --threads 2)
  echo "memory: $triad (STREAM triad, 2 threads, measured before the sgd_mf runs)"
  echo
  echo "| run | SGD loop (updates/s) | loop after the first epoch | whole run (updates/s) | outside the loop (s) | achieved GB/s | of triad | quality |"
  echo "|---|---|---|---|---|---|---|---|"
  for preset in ${RATINGS:-10m}; do
    gen=(--preset "$preset")
    name=$preset
    if [[ "$preset" == netflix && -n "${NETFLIX_RATINGS:-}" ]]; then
      gen+=(--ratings "$NETFLIX_RATINGS")
      name=netflix_$NETFLIX_RATINGS
    fi
    if [[ ! -s "$work/ratings.$name.csv" ]]; then
      "$ex/rotor-gen" ratings "${gen[@]}" --seed 1 --out "$work/ratings.$name.csv" \
        --test-out "$work/ratings.$name.test.csv" >&2
    fi
    sgd_four_ways "sgd_mf $name k=32" "$(value best_gb_per_s "$triad")" \
      --data "$work/ratings.$name.csv" --test "$work/ratings.$name.test.csv" --k 32 \
      --epochs "${SGD_EPOCHS:-3}" --model none
  done
  if [[ -z "${ONLY:-}" ]]; then
    echo
    echo "| run | throughput (/s) | after the first epoch (/s) | vs serial (after the first) | seconds per epoch | quality |"
    echo "|---|---|---|---|---|---|"
  fi
fi
if [[ "${ONLY:-}" == lda || "${ONLY:-}" == logreg ]]; then
  echo "| run | throughput (/s) | after the first epoch (/s) | vs serial (after the first) | seconds per epoch | quality |"
  echo "|---|---|---|---|---|---|"
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
