#!/usr/bin/env python3
"""PyTorch's RmsNorm on the shapes of bench_rms_norm.cpp: torch.nn.functional.rms_norm forward,
and its autograd backward (dx and dgamma) for the backward rows.

Prints one line per shape, dtype and direction: "<shape index> <f32|bf16>_<fwd|bwd> <median
seconds>", after a first line "#torch <version> <cpu capability> <threads> threads". Feed the
output to the C++ benchmark:

    python3 bench/bench_rms_norm.py > /tmp/torch_rms_norm.txt
    build/release/bench/bench_rms_norm --torch_results=/tmp/torch_rms_norm.txt

x (and dy) in FLOAT or BFLOAT16, gamma FLOAT for FLOAT x and the x dtype for BFLOAT16 (PyTorch's
rms_norm wants one dtype), epsilon 1e-6. The backward time is one torch.autograd.grad call on a
graph built outside the timed region (retain_graph), so only the backward kernels are timed. As in
the C++ benchmark the inputs live in several copies (ROTATION_BYTES in all) and consecutive calls
read consecutive copies; each time is the median of single calls (at least 101 and 2 s) after a
warm-up. Pass --threads to match the C++ run's threads.
"""
import torch_peer

torch = torch_peer.import_torch(__file__)
F = torch.nn.functional

# (rows, cols), in the order of kShapes in bench_rms_norm.cpp; --quick runs the first one.
SHAPES = [(1024, 4096), (8192, 512), (4096, 4096), (16384, 1024), (512, 32768)]
QUICK = [0]
ROTATION_BYTES = 256 << 20


def measure(rows, cols, dtype, backward, min_calls, seconds):
    gen = torch.Generator().manual_seed(1)
    x = (torch.rand((rows, cols), generator=gen) * 2 - 1).to(dtype)
    gamma = torch.linspace(1.0, 1.0 + 0.001 * cols, cols).to(dtype)
    per_set = x.numel() * x.element_size() * (2 if backward else 1)
    copies = max(2, -(-ROTATION_BYTES // per_set))
    if not backward:
        xs = [x] + [x.clone() for _ in range(copies - 1)]
        return torch_peer.timed_indexed(
            lambda i: F.rms_norm(xs[i % copies], (cols,), gamma, 1e-6), min_calls, seconds)
    graphs = []
    for _ in range(copies):
        xc = x.clone().requires_grad_(True)
        gc = gamma.clone().requires_grad_(True)
        y = F.rms_norm(xc, (cols,), gc, 1e-6)
        dy = torch.rand_like(y) * 2 - 1
        graphs.append((y, xc, gc, dy))

    def call(i):
        y, xc, gc, dy = graphs[i % copies]
        torch.autograd.grad(y, (xc, gc), dy, retain_graph=True)

    return torch_peer.timed_indexed(call, min_calls, seconds)


def main():
    args = torch_peer.start(torch)
    indices = QUICK if args.quick else range(len(SHAPES))
    min_calls, seconds = (15, 0.2) if args.quick else (101, 2.0)
    for i in indices:
        rows, cols = SHAPES[i]
        for name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
            for direction, backward in (("fwd", False), ("bwd", True)):
                sec = measure(rows, cols, dtype, backward, min_calls, seconds)
                print(f"{i} {name}_{direction} {sec:.6e}", flush=True)


if __name__ == "__main__":
    main()
