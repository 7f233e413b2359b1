#!/usr/bin/env python3
"""PyTorch's out= pointwise ops on the shapes of bench_pointwise.cpp.

Prints one line per row and dtype: "<row index> <f32|bf16> <median seconds>", after a first line
"#torch <version> <cpu capability> <threads> threads" naming the PyTorch measured. Feed the output
to the C++ benchmark (same thread count):

    python3 bench/bench_pointwise.py --threads=N > /tmp/torch_pw.txt
    build/release/bench/bench_pointwise --torch_results=/tmp/torch_pw.txt

Rows: 0 add(a, b, alpha=2, out=c), 1 mul(a, b, out=c), 2 add(a, 2.0, alpha=2, out=c),
3 c.copy_(a), 4 c.copy_(a.t()) (a transposed source), 5 c_bf16.copy_(a_f32), 6 c_f32.copy_(a_bf16),
on 4096 x 4096 tensors; the time is the median of several calls after a warm-up.
"""
import statistics
import time

import torch_peer

torch = torch_peer.import_torch(__file__)

ROWS, COLS = 4096, 4096


def timed(fn, reps, min_time):
    for _ in range(2):
        fn()
    times = []
    for _ in range(reps):
        calls = 0
        t0 = time.perf_counter()
        while True:
            fn()
            calls += 1
            t1 = time.perf_counter()
            if t1 - t0 >= min_time:
                break
        times.append((t1 - t0) / calls)
    return statistics.median(times)


def row_fn(row, dtype):
    gen = torch.Generator().manual_seed(1)
    src_dtype = {5: torch.float32, 6: torch.bfloat16}.get(row, dtype)
    out_dtype = {5: torch.bfloat16, 6: torch.float32}.get(row, dtype)
    a = (torch.rand((ROWS, COLS), generator=gen) * 2 - 1).to(src_dtype)
    b = (torch.rand((ROWS, COLS), generator=gen) + 0.5).to(src_dtype)
    c = torch.empty((ROWS, COLS), dtype=out_dtype)
    if row == 0:
        return lambda: torch.add(a, b, alpha=2, out=c)
    if row == 1:
        return lambda: torch.mul(a, b, out=c)
    if row == 2:
        return lambda: torch.add(a, 2.0, alpha=2, out=c)
    if row == 4:
        at = a.t()  # a transposed (column-major) view, as the C++ row's source
        return lambda: c.copy_(at)
    return lambda: c.copy_(a)


def main():
    args = torch_peer.start(torch)
    reps, min_time = (3, 0.03) if args.quick else (7, 0.2)
    for row in range(7):
        dtypes = [("f32", torch.float32), ("bf16", torch.bfloat16)]
        if row == 5:
            dtypes = [("f32", torch.float32)]
        if row == 6:
            dtypes = [("bf16", torch.bfloat16)]
        for name, dtype in dtypes:
            sec = timed(row_fn(row, dtype), reps, min_time)
            print(f"{row} {name} {sec:.6e}", flush=True)


if __name__ == "__main__":
    main()
