#!/usr/bin/env bash
# Packs what the GPU checks need on the device machine, which has CUDA, PyTorch and nvcc but none
# of this project's Debian libraries: the GPU test and benchmark programs of the release build
# (stripped) and the shared libraries they load beyond the C and C++ runtimes (Highway, oneDNN and
# theirs), into build/gpu-bundle.tar.xz (about 11 MB). Carry that file to the device machine and
# run scripts/gpu_check.sh there.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/release
if [ ! -x "$build/tests/openaclnn_cuda_tests" ] || [ ! -x "$build/bench/bench_cuda_ops" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release -j"$(nproc)" --target openaclnn_cuda_tests bench_cuda_ops
fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib"
cp "$build/tests/openaclnn_cuda_tests" "$build/bench/bench_cuda_ops" "$stage/bin/"
strip "$stage/bin/"*
for lib in $(ldd "$stage/bin/"* | awk '/=> \// {print $3}' | sort -u); do
  case "$(basename "$lib")" in
    libc.so* | libm.so* | libstdc++.so* | libgcc_s.so* | ld-linux* | libpthread.so* | libdl.so* | librt.so*) ;;
    *) cp -L "$lib" "$stage/lib/" ;;
  esac
done
tar -cJf build/gpu-bundle.tar.xz -C "$stage" .
ls -l build/gpu-bundle.tar.xz
tar -tJf build/gpu-bundle.tar.xz
