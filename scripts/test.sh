#!/usr/bin/env bash
# Builds Rotor (Release + tests) and runs every test: unit, golden, mpi, e2e, soundness; builds
# the GPU bundle and runs it (it skips without a GPU); then builds the asan preset (ASan + UBSan,
# checked accesses) and runs the same tests under it (docs/user/sanitizers.md, "CI"). Does all set-up on a fresh Debian 12 machine.
# Usage: scripts/test.sh        (ROTOR_TEST_ASAN=0 skips the asan stage on a developer machine)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default
cmake --build --preset default --parallel "$(nproc)"
ctest --preset default --parallel "$(nproc)"
# The GPU bundle (docs/user/gpu.md): built with nvcc so it cannot rot; without a GPU its run.sh
# says "no GPU: skipped" and exits 0.
if [[ -x /usr/local/cuda/bin/nvcc ]] || command -v nvcc > /dev/null; then
  scripts/gpu-bundle.sh build/gpu-bundle
  build/gpu-bundle/run.sh
else
  echo "nvcc not found: GPU bundle not built"
fi
if [[ ${ROTOR_TEST_ASAN:-1} != 0 ]]; then
  cmake --preset asan -DROTOR_BUILD_BENCH=OFF
  cmake --build --preset asan --parallel "$(nproc)"
  ctest --preset asan --parallel "$(nproc)"
fi
