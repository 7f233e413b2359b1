#!/usr/bin/env bash
# The main job: installs what is needed, builds the library in Release, installs it under
# out/install, builds the CANN-style sample programs against that install tree exactly as a CANN
# user would, runs them, runs the training example, then a short benchmark of every operator.
# Set OPENACLNN_BENCH=full for the whole benchmark tables (several minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install_deps.sh
jobs=$(nproc)
prefix=$PWD/out/install
step() { printf '\n=== %s (%s)\n' "$1" "$(date +%H:%M:%S)"; }

step "build (release)"
cmake --preset release >/dev/null
cmake --build --preset release -j"$jobs"
step "install into $prefix"
cmake --install build/release --prefix "$prefix" >/dev/null
ls "$prefix/lib64"

step "python: the openaclnn package (out/venv), a short example, golden data in out/golden"
./scripts/test_python.sh example

step "sample programs, built against the install tree"
mkdir -p out/samples
for src in tests/samples/*.cpp; do
  name=$(basename "$src" .cpp)
  g++ -std=c++17 -O2 "$src" -I"$prefix/include" -I"$prefix/include/aclnn" -L"$prefix/lib64" \
      -lascendcl -lnnopbase -lopapi -Wl,-rpath,"$prefix/lib64" -o "out/samples/$name"
  echo "--- $name"
  "out/samples/$name"
done

step "training example: ConvTbc then LayerNorm, forward and backward through aclnn"
build/release/examples/train_conv_ln

step "training example: a transformer block (reverse a sequence), forward, backward and AdamW through aclnn"
build/release/examples/train_transformer_block --steps 300 --print-every 50 --target 100

step "benchmarks"
mode=${OPENACLNN_BENCH:-quick}
mkdir -p out/bench
for bench in build/release/bench/bench_*; do
  [ -x "$bench" ] || continue
  name=$(basename "$bench")
  echo "--- $name ($mode)"
  # The CPU benchmarks fill device memory from the host: they run on the CPU device even where a
  # GPU is the default. bench_cuda_ops measures the GPU, and says so where there is none.
  device=cpu
  [ "$name" = bench_cuda_ops ] && device=${OPENACLNN_DEVICE:-auto}
  args=()
  [ "$mode" = full ] || args=(--quick)
  # The PyTorch peer of a benchmark that reads one (--torch_results), where the python3 on PATH has
  # torch (the main job does not install it).
  peer=bench/${name}.py
  case "$name" in
    bench_layer_norm) peer=bench/bench_layer_norm_forward.py ;;
    bench_conv_tbc) peer=bench/bench_conv_tbc_forward.py ;;
  esac
  if [ -f "$peer" ] && grep -q -- --torch_results "bench/$name.cpp" 2>/dev/null &&
     python3 -c "import torch" 2>/dev/null; then
    if python3 "$peer" "${args[@]}" > "out/bench/$name.torch.txt"; then
      args+=("--torch_results=out/bench/$name.torch.txt")
    else
      echo "($peer failed; $name runs without its PyTorch column)"
    fi
  fi
  OPENACLNN_DEVICE=$device "$bench" "${args[@]}" | tee "out/bench/$name.txt"
done
step "benchmark summary: one line per family"
# The kit's benchmarks end with a "<family>: median ..." line: the share of the machine limit and
# the speed-up over the peers measured in the same run.
grep -hE '^[a-z_]+: median ' out/bench/bench_*.txt || echo "(no summary lines)"
# Debian's python3 (install_deps.sh installs its matplotlib); a python3 earlier on PATH may lack it.
/usr/bin/python3 bench/plot_layer_norm_backward.py out/bench/bench_layer_norm_backward.txt \
  out/bench/bench_layer_norm_backward.png
step "done"
