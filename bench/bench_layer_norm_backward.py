#!/usr/bin/env python3
"""PyTorch's native_layer_norm_backward on the shapes of bench_layer_norm_backward.cpp.

Prints one line per shape and dtype: "<shape index> <f32|bf16> <median seconds>", after a first
line "#torch <version> <cpu capability> <threads> threads" naming the PyTorch measured. Feed the
output to the C++ benchmark:

    /opt/benchenv/bin/python bench/bench_layer_norm_backward.py > /tmp/torch_lnb.txt
    build/bench/bench_layer_norm_backward --torch_results=/tmp/torch_lnb.txt

The inputs mirror the C++ benchmark: FLOAT, or BFLOAT16 data with a FLOAT weight; mean and rstd
as native_layer_norm returns them; all three outputs. Each call allocates its outputs, as
PyTorch's autograd does; the time is the median of several calls after a warm-up.
"""
import statistics
import time

import torch_peer

torch = torch_peer.import_torch(__file__)

SHAPES = [
    ((16384, 768), 1), ((16384, 1024), 1), ((8192, 1600), 1), ((16384, 4096), 1),
    ((8192, 8192), 1), ((50432, 384), 1), ((1048576, 128), 1), ((401408, 24), 1),
    ((512, 65536), 1), ((4445, 512), 1), ((1000, 1), 1), ((100000, 8, 16), 2),
    # Small problems, after the shapes (as in the C++ benchmark).
    ((4, 768), 1), ((8, 4096), 1), ((64, 1024), 1),
]
QUICK = [0, 7, 8, 11]


def measure(shape, norm_len, dtype, reps):
    norm = shape[len(shape) - norm_len:]
    gen = torch.Generator().manual_seed(1)
    x = (torch.rand(shape, generator=gen) * 3 - 2).to(dtype)
    dy = (torch.rand(shape, generator=gen) * 2 - 1).to(dtype)
    w = torch.rand(norm, generator=gen) * 0.2 + 0.9
    b = torch.zeros(norm)
    _, mean, rstd = torch.ops.aten.native_layer_norm(x, list(norm), w, b, 1e-5)
    mask = [True, True, True]
    for _ in range(2):
        torch.ops.aten.native_layer_norm_backward(dy, x, list(norm), mean, rstd, w, b, mask)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        torch.ops.aten.native_layer_norm_backward(dy, x, list(norm), mean, rstd, w, b, mask)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    args = torch_peer.start(torch)
    indices = QUICK if args.quick else range(len(SHAPES))
    reps = 3 if args.quick else 7
    for i in indices:
        shape, norm_len = SHAPES[i]
        for name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
            elements = 1
            for d in shape:
                elements *= d
            # Calls of a few microseconds: enough of them for a stable median.
            sec = measure(shape, norm_len, dtype, reps if elements >= 1 << 20 else 300)
            print(f"{i} {name} {sec:.6e}", flush=True)


if __name__ == "__main__":
    main()
