#!/usr/bin/env python3
"""PyTorch's torch.sum(x, dim, keepdim, out=) on the shapes of bench_reduce_sum.cpp.

Prints one line per shape and dtype: "<shape index> <f32|bf16> <median seconds>", after a first
line "#torch <version> <cpu capability> <threads> threads" naming the PyTorch measured. Feed the
output to the C++ benchmark:

    /opt/benchenv/bin/python bench/bench_reduce_sum.py > /tmp/torch_reduce_sum.txt
    build/release/bench/bench_reduce_sum --torch_results=/tmp/torch_reduce_sum.txt

FLOAT or BFLOAT16 input summed into its own dtype without keepdim, as the C++ benchmark; the
output is preallocated and passed as out=, as the aclnn call writes into a given tensor; the time
is the median of single calls (at least 101 and 2 s) after a warm-up. Pass --threads to match the
C++ run's threads.
As in the C++ benchmark, the input lives in several copies (ROTATION_BYTES in all) and consecutive
calls read consecutive copies, so that every call reads its input from memory, not from a cache
that still holds it from the previous call.
"""
import torch_peer

torch = torch_peer.import_torch(__file__)

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


def measure(shape, dims, dtype, min_calls, seconds):
    gen = torch.Generator().manual_seed(1)
    x = (torch.rand(shape, generator=gen) * 2 - 1).to(dtype)
    copies = max(4, -(-ROTATION_BYTES // (x.numel() * x.element_size())))
    xs = [x] + [x.clone() for _ in range(copies - 1)]
    dim = tuple(range(len(shape))) if dims is None else dims
    out = torch.sum(x, dim=dim, keepdim=False)

    def call(i):
        torch.sum(xs[i % copies], dim=dim, keepdim=False, out=out)

    # Each call timed on its own and the median taken, as the C++ benchmark does: on a shared
    # machine an average over many calls mostly measures the calls whose threads waited for a CPU.
    return torch_peer.timed_indexed(call, min_calls, seconds)


def main():
    args = torch_peer.start(torch)
    indices = QUICK if args.quick else range(len(SHAPES))
    min_calls, seconds = (15, 0.2) if args.quick else (101, 2.0)
    for i in indices:
        shape, dims, _ = SHAPES[i]
        for name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
            sec = measure(shape, dims, dtype, min_calls, seconds)
            print(f"{i} {name} {sec:.6e}", flush=True)


if __name__ == "__main__":
    main()
