#!/usr/bin/env python3
"""PyTorch's torch.sum(x, dim, keepdim, out=) on the shapes of bench_reduce_sum.cpp.

Prints one line per shape and dtype: "<shape index> <f32|bf16> <median seconds>", after a first
line "#torch <version> <cpu capability> <threads> threads" naming the PyTorch measured. Feed the
output to the C++ benchmark:

    /opt/benchenv/bin/python bench/bench_reduce_sum.py > /tmp/torch_reduce_sum.txt
    build/release/bench/bench_reduce_sum --torch_results=/tmp/torch_reduce_sum.txt

FLOAT or BFLOAT16 input summed into its own dtype without keepdim, as the C++ benchmark; the
output is preallocated and passed as out=, as the aclnn call writes into a given tensor; the time
is the median of several calls after a warm-up. Pass --threads to match the C++ run's threads.
As in the C++ benchmark, the input lives in several copies (ROTATION_BYTES in all) and consecutive
calls read consecutive copies, so that every call reads its input from memory, not from a cache
that still holds it from the previous call.
"""
import argparse
import statistics
import time

import torch

# (shape, reduced dims (None: all), kind), in the order of kShapes in bench_reduce_sum.cpp.
SHAPES = [
    ((4096, 4096), (1,), "inner"), ((4096, 4096), (0,), "outer"),
    ((64, 4096, 64), (1,), "middle"), ((262144, 64), (1,), "inner"),
    ((1048576, 16), (0,), "outer"), ((256, 256, 256), (1,), "middle"),
    ((16777216,), None, "all"),
]
QUICK = [0, 1, 2]
# Bytes of the copies calls rotate over: kRotationBytes of bench_reduce_sum.cpp.
ROTATION_BYTES = 256 << 20


def measure(shape, dims, dtype, reps, min_time):
    gen = torch.Generator().manual_seed(1)
    x = (torch.rand(shape, generator=gen) * 2 - 1).to(dtype)
    copies = max(2, -(-ROTATION_BYTES // (x.numel() * x.element_size())))
    xs = [x] + [x.clone() for _ in range(copies - 1)]
    dim = tuple(range(len(shape))) if dims is None else dims
    out = torch.sum(x, dim=dim, keepdim=False)
    turn = [0]

    def call():
        torch.sum(xs[turn[0] % copies], dim=dim, keepdim=False, out=out)
        turn[0] += 1

    for _ in range(2):
        call()
    times = []
    for _ in range(reps):
        calls = 0
        t0 = time.perf_counter()
        while True:
            call()
            calls += 1
            t1 = time.perf_counter()
            if t1 - t0 >= min_time:
                break
        times.append((t1 - t0) / calls)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int, default=0, help="0: PyTorch's default")
    args = parser.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    print(f"#torch {torch.__version__} {torch.backends.cpu.get_cpu_capability()} "
          f"{torch.get_num_threads()} threads", flush=True)
    indices = QUICK if args.quick else range(len(SHAPES))
    reps, min_time = (3, 0.05) if args.quick else (7, 0.2)
    for i in indices:
        shape, dims, _ = SHAPES[i]
        for name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
            sec = measure(shape, dims, dtype, reps, min_time)
            print(f"{i} {name} {sec:.6e}", flush=True)


if __name__ == "__main__":
    main()
