#!/usr/bin/env python3
"""PyTorch's counterparts of the rows of bench_dropout.cpp (drop probability p = 0.1, keep = 0.9):

- gen_mask (aclnnDropoutGenMaskV2): torch.empty(n, dtype=torch.bool).bernoulli_(keep), the one
  call that draws a keep mask of n elements (what a user writes for a mask of their own; the
  other spelling, torch.rand(n) < keep, draws n floats and compares them, and took about the same
  time on the build machine). PyTorch has no bit-packed mask: its mask takes one byte per
  element, ours one bit.
- <dtype>_do_mask (aclnnDropoutDoMask): x * mask * (1 / keep) with that bool mask precomputed.
- <dtype>_dropout (GenMaskV2 then DoMask, the pair as a training step runs it):
  torch.native_dropout(x, p, True), which draws the mask and applies it (and returns both, as
  the forward of F.dropout under autograd does).

x is FLOAT or BFLOAT16, uniform in [-4, 4] (seed 1). Prints one line per row: "<size index>
<gen_mask|f32_do_mask|bf16_do_mask|f32_dropout|bf16_dropout> <median seconds>", after a first
line "#torch <version> <cpu capability> <threads> threads". Feed the output to the C++
benchmark:

    python3 bench/bench_dropout.py > /tmp/torch_dropout.txt
    build/release/bench/bench_dropout --torch_results=/tmp/torch_dropout.txt

Each time is the median of single calls (at least 51 and 1 s; with --quick 15 and 0.2 s) after
a warm-up. Pass --threads to match the C++ run's threads.
"""
import torch_peer

torch = torch_peer.import_torch(__file__)

# Elements, in the order of kSizes in bench_dropout.cpp; --quick runs the first one.
SIZES = [1 << 24, 1 << 26]
QUICK = [0]
P = 0.1


def rows(n, min_calls, seconds):
    """Yields (row key, median seconds) for the rows of one size."""
    keep = 1.0 - P
    scale = 1.0 / keep
    mask_out = torch.empty(n, dtype=torch.bool)
    yield "gen_mask", torch_peer.timed(lambda: mask_out.bernoulli_(keep), min_calls, seconds)
    gen = torch.Generator().manual_seed(1)
    mask = torch.empty(n, dtype=torch.bool).bernoulli_(keep, generator=gen)
    x32 = torch.rand(n, generator=gen) * 8 - 4
    for name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
        x = x32.to(dtype)
        yield f"{name}_do_mask", torch_peer.timed(lambda: x * mask * scale, min_calls, seconds)
    for name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
        x = x32.to(dtype)
        yield f"{name}_dropout", torch_peer.timed(lambda: torch.native_dropout(x, P, True),
                                                  min_calls, seconds)


def main():
    args = torch_peer.start(torch)
    indices = QUICK if args.quick else range(len(SIZES))
    min_calls, seconds = (15, 0.2) if args.quick else (51, 1.0)
    with torch.no_grad():
        for i in indices:
            for key, sec in rows(SIZES[i], min_calls, seconds):
                print(f"{i} {key} {sec:.6e}", flush=True)


if __name__ == "__main__":
    main()
