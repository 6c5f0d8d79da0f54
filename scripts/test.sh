#!/usr/bin/env bash
# Builds Rotor (Release + tests) and runs every test: unit, golden, mpi, e2e, cuda (skipped
# without a GPU). Does all set-up on a fresh Debian 12 machine. Usage: scripts/test.sh
# The asan preset (ASan + UBSan) runs separately: docs/user/sanitizers.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default
cmake --build --preset default --parallel "$(nproc)"
ctest --preset default --parallel "$(nproc)"
