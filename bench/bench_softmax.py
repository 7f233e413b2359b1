#!/usr/bin/env python3
"""PyTorch's softmax family on the shapes of bench_softmax.cpp.

Prints one line per shape, dtype and operator: "<shape index> <f32|bf16>:<operator> <median
seconds>", after a first line "#torch <version> <cpu capability> <threads> threads". Feed the
output to the C++ benchmark:

    python3 bench/bench_softmax.py > /tmp/torch_softmax.txt
    build/release/bench/bench_softmax --torch_results=/tmp/torch_softmax.txt

Operators, each writing into a preallocated tensor as the aclnn call does: torch._softmax /
torch._log_softmax (out=, what torch.softmax(x, dim, out=) runs), torch._softmax_backward_data
(grad_input=) and torch._log_softmax_backward_data (out=). The inputs rotate over several copies
(ROTATION_BYTES in all) as in the C++ benchmark; the time is the median of single calls after a
warm-up. Pass --threads to match the C++ run's threads.
"""
import torch_peer

torch = torch_peer.import_torch(__file__)

# (shape, dim), in the order of kShapes in bench_softmax.cpp.
SHAPES = [((16384, 512), -1), ((4096, 4096), -1), ((1024, 32768), -1), ((4096, 1024), 0)]
QUICK = [0, 3]
OPS = ["softmax", "log_softmax", "softmax_backward", "log_softmax_backward"]
# Bytes of the copies calls rotate over: kRotationBytes of bench_softmax.cpp.
ROTATION_BYTES = 256 << 20


def measure(shape, dim, dtype, op, min_calls, seconds):
    gen = torch.Generator().manual_seed(1)
    x = (torch.rand(shape, generator=gen) * 2 - 1).to(dtype)
    n = x.numel()
    backward = op.endswith("backward")
    if op == "softmax_backward":
        y = torch.softmax(x.float(), dim).to(dtype)
    else:
        y = torch.log_softmax(x.float(), dim).to(dtype)
    per_call = n * x.element_size() * (2 if backward else 1)
    copies = max(4, -(-ROTATION_BYTES // per_call))
    xs = [x] + [x.clone() for _ in range(copies - 1)]
    ys = [y] + [y.clone() for _ in range(copies - 1)] if backward else None
    out = torch.empty_like(x)

    def call(i):
        c = i % copies
        if op == "softmax":
            torch._softmax(xs[c], dim, False, out=out)
        elif op == "log_softmax":
            torch._log_softmax(xs[c], dim, False, out=out)
        elif op == "softmax_backward":
            torch._softmax_backward_data(xs[c], ys[c], dim, dtype, grad_input=out)
        else:
            torch._log_softmax_backward_data(xs[c], ys[c], dim, dtype, out=out)

    return torch_peer.timed_indexed(call, min_calls, seconds)


def main():
    args = torch_peer.start(torch)
    indices = QUICK if args.quick else range(len(SHAPES))
    min_calls, seconds = (3, 0.05) if args.quick else (51, 1.0)
    for i in indices:
        shape, dim = SHAPES[i]
        for op in OPS:
            for name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
                sec = measure(shape, dim, dtype, op, min_calls, seconds)
                print(f"{i} {name}:{op} {sec:.6e}", flush=True)


if __name__ == "__main__":
    main()
