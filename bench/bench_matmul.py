#!/usr/bin/env python3
"""PyTorch's matrix products on the shapes of bench_matmul.cpp: torch.addmm(bias, x, weight.t())
for the projections with a bias, torch.matmul(x, weight.t()) for those without, torch.bmm for the
attention products (q @ k.transpose(1, 2) and probs @ v); the training block's rows use torch.addmm
with W stored [in, out] and torch.mm for the gradients (x.t() @ dy, dy @ W.t()).

Prints one line per shape and dtype: "<shape index> <f32|bf16> <median seconds>", after a first
line "#torch <version> <cpu capability> <threads> threads". Feed the output to the C++ benchmark:

    python3 bench/bench_matmul.py > /tmp/torch_matmul.txt
    build/release/bench/bench_matmul --torch_results=/tmp/torch_matmul.txt

Each time is the median of single calls (at least 21 and 1.5 s; --quick: 5 and 0.3 s) after two
warm-up calls. Pass --threads to match the C++ run's threads.
"""
import torch_peer

torch = torch_peer.import_torch(__file__)

# (kind, batch, m, n, k, b_transposed[, head_views]), in the order of kShapes in bench_matmul.cpp.
# head_views: which of a (1), b (2) and the result (4) are head views of sequence-major token rows
# as train_transformer_block makes them (batch item i at offset i * cols, rows batch * cols apart).
SHAPES = [
    ("linear_bias", 1, 2048, 3072, 1024, True),
    ("linear_bias", 1, 2048, 1024, 1024, True),
    ("linear_bias", 1, 2048, 4096, 1024, True),
    ("linear_bias", 1, 2048, 1024, 4096, True),
    ("batch", 16, 512, 512, 64, True),
    ("batch", 16, 512, 64, 512, False),
    ("linear", 1, 1, 4096, 1024, True),
    ("linear", 1, 256, 32000, 1024, True),
    ("linear_bias", 1, 1024, 256, 256, False),
    ("linear_bias", 1, 1024, 1024, 256, False),
    ("linear_bias", 1, 1024, 256, 1024, False),
    ("mm_at", 1, 256, 256, 1024, False),
    ("mm_at", 1, 256, 1024, 1024, False),
    ("mm_at", 1, 1024, 256, 1024, False),
    ("mm", 1, 1024, 256, 256, True),
    ("mm", 1, 1024, 256, 1024, True),
    ("mm", 1, 1024, 1024, 256, True),
    ("batch", 64, 64, 64, 64, True),
    ("batch", 64, 64, 64, 64, True, 1 | 2),
    ("batch", 64, 64, 64, 64, False, 2 | 4),
]
QUICK = [0]


def measure(kind, batch, m, n, k, b_transposed, dtype, min_calls, seconds, head_views=0):
    gen = torch.Generator().manual_seed(1)

    def rand(*shape):
        return (torch.rand(shape, generator=gen) * 2 - 1).to(dtype)

    def stack(bit, rows, cols):
        if head_views & bit:
            return rand(rows, batch, cols).transpose(0, 1)
        return rand(batch, rows, cols)

    with torch.no_grad():
        if kind == "batch":
            a = stack(1, m, k)
            b = stack(2, n, k).transpose(1, 2) if b_transposed else stack(2, k, n)
            if head_views & 4:
                out = stack(4, m, n)
                # The result lands in a head view, as the C++ benchmark's does: through a copy.
                return torch_peer.timed(lambda: out.copy_(torch.bmm(a, b)), min_calls, seconds)
            return torch_peer.timed(lambda: torch.bmm(a, b), min_calls, seconds)
        # mm_at: x.t() of a stored [K, M] x (a weight gradient x^T dy).
        x = rand(k, m).t() if kind == "mm_at" else rand(m, k)
        w = rand(n, k).t() if b_transposed else rand(k, n)
        if kind == "linear_bias":
            bias = rand(n)
            return torch_peer.timed(lambda: torch.addmm(bias, x, w), min_calls, seconds)
        if kind in ("mm", "mm_at"):
            return torch_peer.timed(lambda: torch.mm(x, w), min_calls, seconds)
        return torch_peer.timed(lambda: torch.matmul(x, w), min_calls, seconds)


def main():
    args = torch_peer.start(torch)
    indices = QUICK if args.quick else range(len(SHAPES))
    min_calls, seconds = (5, 0.3) if args.quick else (21, 1.5)
    for i in indices:
        for name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
            sec = measure(*SHAPES[i][:6], dtype, min_calls, seconds, *SHAPES[i][6:])
            print(f"{i} {name} {sec:.6e}", flush=True)


if __name__ == "__main__":
    main()
