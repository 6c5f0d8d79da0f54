#!/usr/bin/env bash
# Builds Rotor (Release + tests) and runs every test: unit, golden, mpi, e2e, cuda (skipped
# without a GPU). Does all set-up on a fresh Debian 12 machine. Usage: scripts/test.sh
# In CI (CI=true) it then builds the asan preset (ASan + UBSan; no examples or benchmarks) and
# runs the unit tests under it: about 12 more minutes on 2 cores (docs/user/sanitizers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default
cmake --build --preset default --parallel "$(nproc)"
ctest --preset default --parallel "$(nproc)"
if [ "${CI:-}" = true ]; then
  cmake --preset asan -DROTOR_BUILD_EXAMPLES=OFF -DROTOR_BUILD_BENCH=OFF
  cmake --build --preset asan --parallel "$(nproc)"
  ctest --preset asan -L unit --parallel "$(nproc)"
fi
