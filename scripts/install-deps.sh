#!/usr/bin/env bash
# Installs every build and test dependency of Rotor from Debian 12 packages.
# Idempotent: when every package is already present it only runs dpkg-query (well under a second).
# Works as root or through sudo. Usage: scripts/install-deps.sh [--with-tools]
#   --with-tools  also installs the optional tools used by benchmarks and docs
#                 (liblinear-tools for the LIBLINEAR comparison).
set -euo pipefail

packages=(
  # Toolchain and build
  build-essential cmake ninja-build pkg-config git xz-utils
  # Clang/LLVM 14: find_package(Clang CONFIG) checks that the tool packages exist too.
  clang-14 clang-tools-14 clangd-14 clang-tidy-14 clang-format-14 libclang1-14
  libclang-14-dev libclang-cpp14-dev llvm-14-dev libclang-rt-14-dev
  # Runtime dependencies
  libtbb-dev libopenmpi-dev openmpi-bin libeigen3-dev libhdf5-dev hdf5-tools
  libcli11-dev nlohmann-json3-dev
  # Tests and benchmarks
  googletest libgtest-dev libgmock-dev libbenchmark-dev time python3 python3-h5py python3-numpy
  # rotor-plot (tools/) and its test
  python3-matplotlib
  # The cluster tests' hosts (tests/cluster): ip, tc, ss; unshare
  iproute2 util-linux
  # The one-node Slurm cluster of cluster.slurm_job (tests/cluster/slurm_cluster_test.sh starts
  # its own munged, slurmctld and slurmd on its own socket and ports; the system services unused)
  munge slurmctld slurmd slurm-client
)
if [[ "${1:-}" == "--with-tools" ]]; then
  packages+=(liblinear-tools)
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "installed" ]] || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
