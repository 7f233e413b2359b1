#!/usr/bin/env bash
# The GPU checks of the CUDA backend, in one call on a machine with an NVIDIA GPU (the device
# tool's H200), from build/gpu-bundle.tar.xz made by scripts/gpu_bundle.sh: the GPU suites (every
# operator result against the float64 CPU reference), then the GPU benchmark against PyTorch on the
# same GPU. Everything it prints also goes to $OUT (or out/gpu). Exits with the suites' status.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out/gpu}
mkdir -p "$out"
work=$(mktemp -d)
tar -xJf build/gpu-bundle.tar.xz -C "$work" || exit 2
# cuBLAS is loaded at first use: the toolkit's, or the one PyTorch's wheels bring.
cublas_dir=$(python3 - <<'PY' 2>/dev/null
import importlib.util
spec = importlib.util.find_spec("nvidia.cublas")
print((list(spec.submodule_search_locations) + [""])[0] + "/lib" if spec else "")
PY
)
for dir in "$cublas_dir" /usr/local/cuda/lib64 /usr/local/cuda/lib; do
  if [ -n "$dir" ] && ls "$dir"/libcublas.so.* >/dev/null 2>&1; then cublas_dir=$dir; break; fi
done
export LD_LIBRARY_PATH="$work/lib${cublas_dir:+:$cublas_dir}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "cuBLAS from: ${cublas_dir:-not found}" | tee "$out/environment.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv |
  tee -a "$out/environment.txt"

echo "=== GPU suites ($(date +%H:%M:%S))"
"$work/bin/openaclnn_cuda_tests" --gtest_output="xml:$out/cuda_tests.xml" 2>&1 |
  tee "$out/cuda_tests.log"
tests_rc=${PIPESTATUS[0]}

echo "=== GPU benchmark ($(date +%H:%M:%S))"
PYTHONUNBUFFERED=1 python3 bench/cuda/bench_cuda.py --bench "$work/bin/bench_cuda_ops" 2>&1 |
  tee "$out/bench_cuda.md"
echo "=== done ($(date +%H:%M:%S)), suites exit status $tests_rc"
exit "$tests_rc"
