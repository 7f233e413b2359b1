#!/usr/bin/env python3
"""PyTorch's embedding on the shapes of bench_embedding.cpp: torch.nn.functional.embedding
forward, and aten::embedding_dense_backward (the kernel autograd calls for a dense embedding
gradient) for the backward rows.

Prints one line per shape, dtype and direction: "<shape index> <f32|bf16>_<fwd|bwd> <median
seconds>", after a first line "#torch <version> <cpu capability> <threads> threads". Feed the
output to the C++ benchmark:

    python3 bench/bench_embedding.py > /tmp/torch_embedding.txt
    build/release/bench/bench_embedding --torch_results=/tmp/torch_embedding.txt

The table and grad in FLOAT or BFLOAT16, INT64 indices drawn uniformly (seed 1; not the C++
program's values, the same distribution), no padding index, no scaling by frequency. Each time is
the median of single calls (at least 51 and 1 s) after a warm-up. Pass --threads to match the C++
run's threads.
"""
import torch_peer

torch = torch_peer.import_torch(__file__)
F = torch.nn.functional

# (rows, dim, indices), in the order of kShapes in bench_embedding.cpp; --quick runs the first.
SHAPES = [(32000, 1024, 4096), (50257, 768, 8192), (8192, 128, 131072), (1000, 64, 262144)]
QUICK = [0]


def measure(rows, dim, count, dtype, backward, min_calls, seconds):
    gen = torch.Generator().manual_seed(1)
    idx = torch.randint(0, rows, (count,), generator=gen, dtype=torch.int64)
    if not backward:
        weight = (torch.rand((rows, dim), generator=gen) * 2 - 1).to(dtype)
        return torch_peer.timed(lambda: F.embedding(idx, weight), min_calls, seconds)
    grad = (torch.rand((count, dim), generator=gen) * 2 - 1).to(dtype)
    return torch_peer.timed(
        lambda: torch.ops.aten.embedding_dense_backward(grad, idx, rows, -1, False), min_calls,
        seconds)


def main():
    args = torch_peer.start(torch)
    indices = QUICK if args.quick else range(len(SHAPES))
    min_calls, seconds = (15, 0.2) if args.quick else (51, 1.0)
    for i in indices:
        rows, dim, count = SHAPES[i]
        for name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
            for direction, backward in (("fwd", False), ("bwd", True)):
                sec = measure(rows, dim, count, dtype, backward, min_calls, seconds)
                print(f"{i} {name}_{direction} {sec:.6e}", flush=True)


if __name__ == "__main__":
    main()
