#!/usr/bin/env bash
# Installs what the aarch64 cross build and its tests under qemu-user need (Debian 12 or later on
# x86-64): the cross compiler, qemu-user, and the arm64 packages of Highway, oneDNN, GoogleTest and
# Google Benchmark through multiarch. Safe to re-run; quiet when everything is present.
#
# oneDNN's arm64 -dev package cannot be installed beside the amd64 one (both ship
# /usr/include/oneapi/dnnl/dnnl_config.h, with different contents), so its files are unpacked
# into build/aarch64-sysroot instead, where cmake/toolchains/aarch64-linux-gnu.cmake finds them.
# The arm64 oneDNN runtime library itself (libdnnl2:arm64) installs normally.
set -euo pipefail
cd "$(dirname "$0")/.."
sysroot=build/aarch64-sysroot
packages=(g++-aarch64-linux-gnu qemu-user libhwy-dev:arm64 libdnnl2:arm64 libgtest-dev:arm64
          libgmock-dev:arm64 libbenchmark-dev:arm64)
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "install_deps_aarch64: adding the arm64 architecture to dpkg"
  $sudo dpkg --add-architecture arm64
  $sudo apt-get update -qq || echo "install_deps_aarch64: apt-get update failed"
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -ne 0 ]; then
  echo "install_deps_aarch64: installing ${missing[*]}"
  if ! $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
    $sudo apt-get update -qq || echo "install_deps_aarch64: apt-get update failed"
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

# oneDNN's arm64 headers and CMake files, the same version as the installed runtime library.
dnnl_version=$(dpkg-query -W -f='${Version}' libdnnl2:arm64)
stamp="$sysroot/.libdnnl-dev_$dnnl_version"
if [ ! -f "$stamp" ]; then
  echo "install_deps_aarch64: unpacking libdnnl-dev:arm64 $dnnl_version into $sysroot"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  chmod 755 "$tmp"  # apt's download user must be able to write there
  (cd "$tmp" && apt-get download -qq "libdnnl-dev:arm64=$dnnl_version" 2>/dev/null)
  rm -rf "$sysroot"
  mkdir -p "$sysroot"
  dpkg-deb -x "$tmp"/libdnnl-dev_*_arm64.deb "$sysroot"
  # The CMake files name the versioned library inside the sysroot: point it at the installed one.
  for lib in /usr/lib/aarch64-linux-gnu/libdnnl.so.*; do
    ln -sfn "$lib" "$sysroot/usr/lib/aarch64-linux-gnu/$(basename "$lib")"
  done
  touch "$stamp"
fi
