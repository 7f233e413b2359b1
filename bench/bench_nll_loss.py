#!/usr/bin/env python3
"""PyTorch's NLL loss on the shapes of bench_nll_loss.cpp: torch.nn.functional.nll_loss forward
with reduction mean and class weights, and aten::nll_loss_backward (the kernel autograd calls) for
the backward rows.

Prints one line per shape, dtype and direction: "<shape index> <f32|bf16>_<fwd|bwd> <median
seconds>", after a first line "#torch <version> <cpu capability> <threads> threads". Feed the
output to the C++ benchmark:

    python3 bench/bench_nll_loss.py > /tmp/torch_nll_loss.txt
    build/release/bench/bench_nll_loss --torch_results=/tmp/torch_nll_loss.txt

self in FLOAT or BFLOAT16 (uniform in [-5, 0]), weights of self's dtype, INT64 targets drawn
uniformly (seed 1), ignore_index -100. Each time is the median of single calls (at least 51 and
1 s) after a warm-up. Pass --threads to match the C++ run's threads.
"""
import torch_peer

torch = torch_peer.import_torch(__file__)
F = torch.nn.functional

# (rows, classes), in the order of kShapes in bench_nll_loss.cpp; --quick runs the first one.
SHAPES = [(4096, 32000), (65536, 1000), (1 << 20, 10)]
QUICK = [0]
MEAN = 1  # at::Reduction::Mean


def measure(rows, classes, dtype, backward, min_calls, seconds):
    gen = torch.Generator().manual_seed(1)
    x = (torch.rand((rows, classes), generator=gen) * -5).to(dtype)
    target = torch.randint(0, classes, (rows,), generator=gen, dtype=torch.int64)
    weight = (0.5 + 0.01 * (torch.arange(classes) % 100)).to(dtype)
    if not backward:
        return torch_peer.timed(lambda: F.nll_loss(x, target, weight), min_calls, seconds)
    _, total = torch.ops.aten.nll_loss_forward(x, target, weight, MEAN, -100)
    grad = torch.ones((), dtype=dtype)
    return torch_peer.timed(
        lambda: torch.ops.aten.nll_loss_backward(grad, x, target, weight, MEAN, -100, total),
        min_calls, seconds)


def main():
    args = torch_peer.start(torch)
    indices = QUICK if args.quick else range(len(SHAPES))
    min_calls, seconds = (15, 0.2) if args.quick else (51, 1.0)
    for i in indices:
        rows, classes = SHAPES[i]
        for name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
            for direction, backward in (("fwd", False), ("bwd", True)):
                sec = measure(rows, classes, dtype, backward, min_calls, seconds)
                print(f"{i} {name}_{direction} {sec:.6e}", flush=True)


if __name__ == "__main__":
    main()
