#!/usr/bin/env python3
"""PyTorch peer of examples/train_transformer_block: the same one-block transformer, shapes,
task (sequence reversal), loss and AdamW, trained on the CPU with the same thread count; prints
the median step time (batch written, forward, backward, optimizer step, loss read).

With --program PATH it also runs `train_transformer_block --bench` with the same options and
prints both medians side by side (OPENACLNN_NUM_THREADS set to --threads). With --rounds N > 1
the two are measured N times in alternation (PyTorch first in odd rounds, the program first in
even ones, a pause between measurements), a row per round, then the median, smallest and largest
of the per-round speed-ups: on a shared host whose load drifts over minutes, a ratio taken within
a round is steadier than one between medians measured apart.

  bench_train_block.py [--program PATH] [--rounds N] [--dtype FLOAT|BFLOAT16] [--steps N]
      [--threads N] [--vocab V] [--seq S] [--batch B] [--d-model D] [--heads H] [--d-ff F]
      [--dropout P]

BFLOAT16 is torch.autocast(cpu, bfloat16) over fp32 parameters (fp32 masters and AdamW state,
as the example keeps them); the log_softmax and the loss run in fp32 under autocast, as there.
"""
import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError as error:
    print(f"bench_train_block: PyTorch is needed for the peer timings: {error}")
    sys.exit(1)

# Seconds between measurements: PyTorch's OpenMP threads spin for a while after its last parallel
# region and would share the cores with the program started right after.
PAUSE_S = 1.0


class Block(torch.nn.Module):
    def __init__(self, a):
        super().__init__()
        self.a = a
        d, f, v, s = a.d_model, a.d_ff, a.vocab, a.seq

        def matrix(rows, cols):
            return torch.nn.Parameter(torch.randn(rows, cols) / math.sqrt(rows))

        def zeros(n):
            return torch.nn.Parameter(torch.zeros(n))

        self.tok_emb = torch.nn.Parameter(torch.randn(v, d))
        self.pos_emb = torch.nn.Parameter(torch.randn(s, d))
        self.ln1 = torch.nn.LayerNorm(d)
        self.ln2 = torch.nn.LayerNorm(d)
        self.wq, self.wk, self.wv, self.wo = (matrix(d, d) for _ in range(4))
        self.bq, self.bk, self.bv, self.bo = (zeros(d) for _ in range(4))
        self.w1, self.b1 = matrix(d, f), zeros(f)
        self.w2, self.b2 = matrix(f, d), zeros(d)
        self.wout, self.bout = matrix(d, v), zeros(v)
        self.register_buffer("causal", torch.triu(torch.full((s, s), -1e9), 1))

    def forward(self, tokens, targets):
        a = self.a
        b, s, d, h = tokens.shape[0], a.seq, a.d_model, a.heads
        dh = d // h
        x0 = F.embedding(tokens, self.tok_emb) + self.pos_emb
        x1 = self.ln1(x0)

        def split(x):
            return x.reshape(b, s, h, dh).transpose(1, 2)

        q = split(F.linear(x1, self.wq.t(), self.bq))
        k = split(F.linear(x1, self.wk.t(), self.bk))
        v = split(F.linear(x1, self.wv.t(), self.bv))
        scores = q @ k.transpose(-1, -2) * (1.0 / math.sqrt(dh)) + self.causal
        probs = F.dropout(scores.softmax(-1), a.dropout, self.training)
        ctx = (probs @ v).transpose(1, 2).reshape(b, s, d)
        x2 = x0 + F.linear(ctx, self.wo.t(), self.bo)
        x3 = self.ln2(x2)
        x4 = x2 + F.linear(F.gelu(F.linear(x3, self.w1.t(), self.b1)), self.w2.t(), self.b2)
        logits = F.linear(x4, self.wout.t(), self.bout)
        logp = F.log_softmax(logits.float(), -1).reshape(-1, a.vocab)
        return F.nll_loss(logp, targets.reshape(-1), ignore_index=-100)


def batch(a, generator):
    half = a.seq // 2
    x = torch.randint(0, a.vocab - 1, (a.batch, half), generator=generator)
    sep = torch.full((a.batch, 1), a.vocab - 1, dtype=torch.int64)
    tokens = torch.cat([x, sep, x.flip(1)[:, :half - 1]], 1)
    targets = torch.cat([torch.full((a.batch, half), -100, dtype=torch.int64), x.flip(1)], 1)
    return tokens, targets


def torch_median(a):
    torch.manual_seed(a.seed)
    generator = torch.Generator().manual_seed(a.seed)
    model = Block(a)
    decay = [p for n, p in model.named_parameters()
             if n in ("tok_emb", "wq", "wk", "wv", "wo", "w1", "w2", "wout")]
    rest = [p for n, p in model.named_parameters()
            if n not in ("tok_emb", "wq", "wk", "wv", "wo", "w1", "w2", "wout")]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": a.weight_decay},
                             {"params": rest, "weight_decay": 0.0}],
                            lr=a.lr, betas=(0.9, 0.98), eps=1e-8, foreach=False)
    times, losses = [], []
    for _ in range(a.steps):
        start = time.perf_counter()
        tokens, targets = batch(a, generator)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.dtype == "BFLOAT16"):
            loss = model(tokens, targets)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        times.append(time.perf_counter() - start)
    return (statistics.median(times[5:]), statistics.mean(losses[:5]),
            statistics.mean(losses[-5:]))


def program_median(a):
    command = [a.program, "--bench", "--dtype", a.dtype, "--steps", str(a.steps),
               "--print-every", str(a.steps), "--vocab", str(a.vocab), "--seq", str(a.seq),
               "--batch", str(a.batch), "--d-model", str(a.d_model), "--heads", str(a.heads),
               "--d-ff", str(a.d_ff), "--dropout", str(a.dropout), "--lr", str(a.lr),
               "--seed", str(a.seed)]
    env = dict(os.environ, OPENACLNN_NUM_THREADS=str(a.threads))
    env.setdefault("OPENACLNN_DEVICE", "cpu")
    out = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout
    median = re.search(r"median step ([0-9.]+) ms", out)
    losses = re.search(r"loss ([0-9.e+-]+) -> ([0-9.e+-]+): reduced", out)
    if not median or not losses:
        sys.exit(f"bench_train_block: unexpected program output:\n{out}")
    return float(median.group(1)) / 1e3, float(losses.group(1)), float(losses.group(2))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--program")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--dtype", default="FLOAT", choices=["FLOAT", "BFLOAT16"])
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--vocab", type=int, default=256)
    p.add_argument("--seq", type=int, default=64)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--d-model", type=int, default=256)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--d-ff", type=int, default=1024)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    if a.rounds < 1:
        p.error(f"--rounds must be at least 1, got {a.rounds}")
    if a.rounds > 1 and not a.program:
        p.error(f"--rounds {a.rounds} needs --program (the rounds alternate the two sides)")
    torch.set_num_threads(a.threads)
    shape = (f"vocab {a.vocab}, seq {a.seq}, batch {a.batch}, d_model {a.d_model}, heads "
             f"{a.heads}, d_ff {a.d_ff}, dropout {a.dropout}, {a.dtype}, {a.threads} threads, "
             f"{a.steps} steps")
    print(f"bench_train_block: {shape}")
    print(f"torch {torch.__version__}")
    rows = [("PyTorch", *torch_median(a))]
    if a.program:
        time.sleep(PAUSE_S)
        rows.append(("openaclnn", *program_median(a)))
    print(f"{'':<10} {'median step ms':>15} {'loss, first 5':>14} {'last 5':>11}")
    for name, median, first, last in rows:
        print(f"{name:<10} {1e3 * median:15.2f} {first:14.4g} {last:11.4g}")
    if len(rows) == 2:
        print(f"openaclnn / PyTorch step time: {rows[1][1] / rows[0][1]:.2f}")
    if a.program and a.rounds > 1:
        speedups = []

        def report(r, theirs, ours):
            speedups.append(theirs / ours)
            print(f"round {r:>2}: PyTorch {1e3 * theirs:8.2f} ms, openaclnn {1e3 * ours:8.2f} ms, "
                  f"speed-up {speedups[-1]:.2f}x", flush=True)

        report(1, rows[0][1], rows[1][1])
        for r in range(2, a.rounds + 1):
            order = [program_median, torch_median] if r % 2 == 0 else [torch_median,
                                                                        program_median]
            measured = {}
            for measure in order:
                time.sleep(PAUSE_S)
                measured[measure] = measure(a)[0]
            report(r, measured[torch_median], measured[program_median])
        print(f"speed-up over {a.rounds} rounds: median {statistics.median(speedups):.2f}x "
              f"(smallest {min(speedups):.2f}x, largest {max(speedups):.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
