#!/usr/bin/env bash
# Builds Rotor (Release + tests) and runs every test: unit, golden, mpi, e2e, soundness; builds
# the GPU bundle and runs it (it skips without a GPU); then builds the asan preset (ASan + UBSan,
# checked accesses) and runs the same tests under it; then builds the soundness corpus under
# ThreadSanitizer and runs its 2-thread tests (docs/user/sanitizers.md, "CI"). Does all set-up
# on a fresh Debian 12 machine.
# Usage: scripts/test.sh        (ROTOR_TEST_ASAN=0 / ROTOR_TEST_TSAN=0 skip the asan / tsan stage)
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
if [[ ${ROTOR_TEST_TSAN:-1} != 0 ]]; then
  # Only what the corpus needs: the runtime and the corpus programs, compiled by the Release
  # build's rotor-cc (its analysis does not depend on the sanitizer; the host compile gets the
  # tsan flags from the build).
  cmake --preset tsan -DROTOR_BUILD_FRONTEND=OFF -DROTOR_BUILD_EXAMPLES=OFF \
    -DROTOR_BUILD_BENCH=OFF -DROTOR_CC_EXECUTABLE="$PWD/build/default/frontend/rotor-cc"
  cmake --build --preset tsan --target soundness --parallel "$(nproc)"
  ctest --preset tsan -L soundness_threads --parallel "$(nproc)"
fi
