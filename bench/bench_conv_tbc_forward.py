#!/usr/bin/env python3
"""PyTorch's conv_tbc on the shapes of bench_conv_tbc.cpp.

Prints one line per shape and dtype: "<shape index> <f32|bf16> <median seconds>", after a first
line "#torch <version> <cpu capability> <threads> threads" naming the PyTorch measured. Feed the
output to the C++ benchmark:

    /opt/benchenv/bin/python bench/bench_conv_tbc_forward.py > /tmp/torch_ct.txt
    build/bench/bench_conv_tbc --torch_results=/tmp/torch_ct.txt

FLOAT, or BFLOAT16 input and weight (PyTorch's conv_tbc wants the bias in the same dtype); the
time is the median of several repetitions after a warm-up, each call allocating its output.
"""
import statistics
import time

import torch_peer

torch = torch_peer.import_torch(__file__)

SHAPES = [
    (32, 128, 512, 1024, 3, 1), (32, 128, 512, 1024, 3, 2), (32, 128, 1024, 2048, 3, 1),
    (32, 128, 1024, 4096, 1, 0), (30, 100, 768, 1536, 3, 1), (100, 40, 512, 1024, 3, 1),
    (25, 160, 256, 512, 3, 1), (1024, 1, 850, 1700, 6, 5), (64, 16, 64, 64, 3, 1),
    (64, 32, 512, 512, 31, 15),
]
QUICK = [0, 7, 8]


def measure(shape, dtype, reps, min_time):
    t_in, batch, c_in, c_out, taps, pad = shape
    gen = torch.Generator().manual_seed(1)
    x = (torch.rand((t_in, batch, c_in), generator=gen) * 2 - 1).to(dtype)
    w = ((torch.rand((taps, c_in, c_out), generator=gen) * 2 - 1) * 0.1).to(dtype)
    b = (torch.rand((c_out,), generator=gen) - 0.5).to(dtype)
    for _ in range(2):
        torch.conv_tbc(x, w, b, pad)
    times = []
    for _ in range(reps):
        calls = 0
        t0 = time.perf_counter()
        while True:
            torch.conv_tbc(x, w, b, pad)
            calls += 1
            t1 = time.perf_counter()
            if t1 - t0 >= min_time:
                break
        times.append((t1 - t0) / calls)
    return statistics.median(times)


def main():
    args = torch_peer.start(torch)
    indices = QUICK if args.quick else range(len(SHAPES))
    reps, min_time = (3, 0.1) if args.quick else (5, 0.3)
    for i in indices:
        for name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
            sec = measure(SHAPES[i], dtype, reps, min_time)
            print(f"{i} {name} {sec:.6e}", flush=True)


if __name__ == "__main__":
    main()
