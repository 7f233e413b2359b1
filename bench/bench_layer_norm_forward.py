#!/usr/bin/env python3
"""PyTorch's native_layer_norm on the shapes of bench_layer_norm.cpp.

Prints one line per shape and dtype: "<shape index> <f32|bf16> <median seconds>", after a first
line "#torch <version> <cpu capability> <threads> threads" naming the PyTorch measured. Feed the
output to the C++ benchmark:

    /opt/benchenv/bin/python bench/bench_layer_norm_forward.py > /tmp/torch_ln.txt
    build/bench/bench_layer_norm --torch_results=/tmp/torch_ln.txt

FLOAT, or BFLOAT16 data with a FLOAT weight and bias, as the C++ benchmark; each call allocates
its outputs, as PyTorch does; the time is the median of several calls after a warm-up.
"""
import statistics
import time

import torch_peer

torch = torch_peer.import_torch(__file__)

SHAPES = [
    ((16384, 768), 1), ((16384, 1024), 1), ((8192, 1600), 1), ((16384, 4096), 1),
    ((8192, 8192), 1), ((50432, 384), 1), ((1048576, 128), 1), ((401408, 24), 1),
    ((512, 65536), 1), ((4445, 512), 1), ((1000, 1), 1), ((100000, 8, 16), 2),
]
QUICK = [0, 7, 8, 11]


def measure(shape, norm_len, dtype, reps, min_time):
    norm = list(shape[len(shape) - norm_len:])
    gen = torch.Generator().manual_seed(1)
    x = (torch.rand(shape, generator=gen) * 3 - 2).to(dtype)
    w = torch.rand(norm, generator=gen) * 0.2 + 0.9
    b = torch.rand(norm, generator=gen) * 0.2 - 0.1
    if dtype != torch.float32:
        # native_layer_norm wants one dtype for all three on CPU; mixed mode is what autocast
        # and the C++ benchmark use, so keep FLOAT parameters when PyTorch accepts them.
        try:
            torch.ops.aten.native_layer_norm(x, norm, w, b, 1e-5)
        except RuntimeError:
            w, b = w.to(dtype), b.to(dtype)
    for _ in range(2):
        torch.ops.aten.native_layer_norm(x, norm, w, b, 1e-5)
    times = []
    for _ in range(reps):
        calls = 0
        t0 = time.perf_counter()
        while True:
            torch.ops.aten.native_layer_norm(x, norm, w, b, 1e-5)
            calls += 1
            t1 = time.perf_counter()
            if t1 - t0 >= min_time:
                break
        times.append((t1 - t0) / calls)
    return statistics.median(times)


def main():
    args = torch_peer.start(torch)
    indices = QUICK if args.quick else range(len(SHAPES))
    reps, min_time = (3, 0.05) if args.quick else (7, 0.2)
    for i in indices:
        shape, norm_len = SHAPES[i]
        for name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
            sec = measure(shape, norm_len, dtype, reps, min_time)
            print(f"{i} {name} {sec:.6e}", flush=True)


if __name__ == "__main__":
    main()
