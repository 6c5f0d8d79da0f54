#!/usr/bin/env bash
# The main job: does all set-up on a fresh Debian 12 machine, builds Rotor, and prints the plan
# that the analysis picks for the built-in SGD matrix-factorization loop model.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default
cmake --build --preset default --parallel "$(nproc)"
build/default/analysis/rotor-deps analysis/models/sgd_mf.loop
