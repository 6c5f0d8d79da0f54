#!/usr/bin/env bash
# The main job, on a fresh Debian 12 machine: installs the dependencies, builds Rotor, generates a
# Netflix-shaped ratings set with rotor-gen, compiles examples/sgd_mf/sgd_mf.cpp with rotor-cc,
# shows the plan it chose, and runs it on two MPI ranks, printing one line per epoch and the
# closing line.
#   scripts/main-job.sh                 # MovieLens-1M-sized set (1M ratings), 10 epochs
#   PRESET=10m EPOCHS=20 scripts/main-job.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PRESET=${PRESET:-1m}
EPOCHS=${EPOCHS:-10}
NP=${NP:-2}

scripts/install-deps.sh
cmake --preset default
cmake --build --preset default --parallel "$(nproc)"

build=build/default
out=$build/main-job
mkdir -p "$out"
rotor_cc=$(find "$build" -type f -name rotor-cc -perm -u+x | head -1)
[[ -n "$rotor_cc" ]] || { echo "main-job: rotor-cc was not built" >&2; exit 1; }

echo "== rotor-gen: $PRESET ratings (90% train, 10% test)"
"$build/examples/rotor-gen" ratings --preset "$PRESET" --seed 1 \
  --out "$out/ratings.csv" --test-out "$out/ratings.test.csv"

echo "== rotor-cc: the plan for each annotated loop"
"$rotor_cc" --explain examples/sgd_mf/sgd_mf.cpp
echo "== rotor-cc -O3 examples/sgd_mf/sgd_mf.cpp -o $out/sgd_mf"
"$rotor_cc" -O3 -DNDEBUG examples/sgd_mf/sgd_mf.cpp -o "$out/sgd_mf"

echo "== mpirun -np $NP sgd_mf"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun --oversubscribe --bind-to none --allow-run-as-root -np "$NP" \
  "$out/sgd_mf" --rotor-threads=1 --data "$out/ratings.csv" --test "$out/ratings.test.csv" \
  --epochs "$EPOCHS" --model "$out/sgd_mf_model.h5"
