#!/usr/bin/env bash
# Installs the Debian packages openaclnn builds, tests and benchmarks with. Safe to re-run.
set -euo pipefail
packages=(build-essential cmake pkg-config git python3
          libhwy-dev libdnnl-dev ocl-icd-opencl-dev libgtest-dev libgmock-dev libbenchmark-dev
          clang libclang-rt-14-dev python3-matplotlib python3-torch python3-venv python3-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all packages present"
else
  echo "install_deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq || echo "install_deps: apt-get update failed; trying the cached lists"
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The aarch64 cross toolchain, qemu-user and the arm64 packages: scripts/install_deps_aarch64.sh,
# which scripts/test_aarch64.sh (part of the test command) runs itself.
