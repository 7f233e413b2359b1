#!/usr/bin/env python3
"""PyTorch's fused AdamW step on the sizes of bench_apply_adam_w.cpp.

Prints one line per size, dtype and amsgrad: "<size index> <f32|bf16>[_amsgrad] <median seconds>",
after a first line "#torch <version> <cpu capability> <threads> threads". Feed the output to the
C++ benchmark:

    python3 bench/bench_apply_adam_w.py > /tmp/torch_adamw.txt
    build/release/bench/bench_apply_adam_w --torch_results=/tmp/torch_adamw.txt

The peer is torch._fused_adamw_ (what torch.optim.AdamW(fused=True) calls) on one parameter
tensor of the size, with the same hyperparameters (lr 1e-3, betas 0.9/0.999, weight decay 0.01,
eps 1e-8, step 10); the time is the median of single calls after a warm-up. Pass --threads to
match the C++ run's threads.
"""
import torch_peer

torch = torch_peer.import_torch(__file__)

# kSizes in bench_apply_adam_w.cpp.
SIZES = [1 << 22, 1 << 24]


def measure(n, dtype, amsgrad, min_calls, seconds):
    gen = torch.Generator().manual_seed(1)
    var, m, g = [(torch.rand(n, generator=gen) * 2 - 1).to(dtype) for _ in range(3)]
    v, vmax = [(torch.rand(n, generator=gen) ** 2).to(dtype) for _ in range(2)]
    step = torch.tensor(10.0)

    def call():
        torch._fused_adamw_([var], [g], [m], [v], [vmax] if amsgrad else [], [step], lr=1e-3,
                            beta1=0.9, beta2=0.999, weight_decay=0.01, eps=1e-8,
                            amsgrad=amsgrad, maximize=False)

    return torch_peer.timed(call, min_calls, seconds)


def main():
    args = torch_peer.start(torch)
    indices = [0] if args.quick else range(len(SIZES))
    min_calls, seconds = (3, 0.05) if args.quick else (21, 1.0)
    for i in indices:
        for name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
            for amsgrad in (False, True):
                sec = measure(SIZES[i], dtype, amsgrad, min_calls, seconds)
                print(f"{i} {name}{'_amsgrad' if amsgrad else ''} {sec:.6e}", flush=True)


if __name__ == "__main__":
    main()
