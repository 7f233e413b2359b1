#!/usr/bin/env python3
"""PyTorch's GELU and GLU operators on the shapes of bench_gelu.cpp.

Prints one line per shape, operator and dtype: "<shape index> <operator>/<f32|bf16> <median
seconds>", after a first line "#torch <version> <cpu capability> <threads> threads". Feed the
output to the C++ benchmark:

    /opt/benchenv/bin/python bench/bench_gelu.py > /tmp/torch_gelu.txt
    build/release/bench/bench_gelu --torch_results=/tmp/torch_gelu.txt

The operators: torch.nn.functional.gelu(x, approximate="none" / "tanh") (no out= form; written
through torch.ops.aten.gelu.out where it exists), torch.ops.aten.gelu_backward(.grad_input=),
torch.nn.functional.glu(x, -1) (aten.glu.out) and torch.ops.aten.glu_backward(.grad_input=), all
with preallocated outputs; the time is the median of single calls after a warm-up. Pass --threads
to match the C++ run's threads.
"""
import torch_peer

torch = torch_peer.import_torch(__file__)

# The shapes of kShapes in bench_gelu.cpp, and the operators in the order of its kOps.
SHAPES = [(4096, 4096), (16384, 1024), (2048, 8192), (1024, 1024)]
OPS = ["gelu", "gelu_tanh", "gelu_backward", "gelu_backward_tanh", "glu", "glu_backward"]
aten = torch.ops.aten


def make_call(op, x, g):
    if op in ("gelu", "gelu_tanh"):
        approx = "tanh" if op == "gelu_tanh" else "none"
        out = torch.empty_like(x)
        return lambda: aten.gelu.out(x, approximate=approx, out=out)
    if op in ("gelu_backward", "gelu_backward_tanh"):
        approx = "tanh" if op == "gelu_backward_tanh" else "none"
        out = torch.empty_like(x)
        return lambda: aten.gelu_backward.grad_input(g, x, approximate=approx, grad_input=out)
    if op == "glu":
        out = torch.empty(x.shape[:-1] + (x.shape[-1] // 2,), dtype=x.dtype)
        return lambda: aten.glu.out(x, -1, out=out)
    half = g[..., : x.shape[-1] // 2].contiguous()
    out = torch.empty_like(x)
    return lambda: aten.glu_backward.grad_input(half, x, -1, grad_input=out)


def measure(shape, op, dtype, min_calls, seconds):
    gen = torch.Generator().manual_seed(1)
    x = ((torch.rand(shape, generator=gen) * 8 - 4)).to(dtype)
    g = ((torch.rand(shape, generator=gen) * 2 - 1)).to(dtype)
    call = make_call(op, x, g)
    return torch_peer.timed(call, min_calls, seconds)


def main():
    args = torch_peer.start(torch)
    indices = [0] if args.quick else range(len(SHAPES))
    min_calls, seconds = (3, 0.05) if args.quick else (31, 1.0)
    for i in indices:
        for op in OPS:
            for name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
                sec = measure(SHAPES[i], op, dtype, min_calls, seconds)
                print(f"{i} {op}/{name} {sec:.6e}", flush=True)


if __name__ == "__main__":
    main()
