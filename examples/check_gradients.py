#!/usr/bin/env python3
"""Checks train_transformer_block's gradients against PyTorch in float64.

Runs `train_transformer_block --dump-gradients DIR` (one FLOAT step, without dropout unless the
extra options give one; it writes the batch, the initial parameters, every parameter's gradient
and the dropout keep mask), rebuilds the same block in PyTorch
float64 from those parameters, differentiates the same loss and compares each gradient:
max |ours - torch| <= rtol * max |torch| + atol (defaults 1e-4 and 1e-6: fp32 against float64).
Prints the worst difference per parameter; exits 1 on a mismatch, 77 (ctest's skip code) when
torch cannot be imported.

  check_gradients.py --program PATH [--dir DIR] [--rtol R] [--atol A] [-- extra program options]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

try:
    import torch
except ImportError as error:  # ctest's SKIP_RETURN_CODE
    print(f"check_gradients: SKIPPED, PyTorch is needed: {error}")
    sys.exit(77)

DTYPES = {"float32": torch.float32, "int64": torch.int64, "uint8": torch.uint8}


def load(directory):
    with open(os.path.join(directory, "index.json")) as f:
        index = json.load(f)
    tensors = {}
    for entry in index["tensors"]:
        with open(os.path.join(directory, entry["file"]), "rb") as f:
            data = bytearray(f.read())
        tensors[entry["name"]] = torch.frombuffer(data, dtype=DTYPES[entry["dtype"]]).reshape(
            entry["shape"]).clone()
    return index, tensors


def reference_loss(index, t, p):
    """The block of train_transformer_block in float64; p maps names to leaf tensors."""
    seq, batch, d_model, heads = index["seq"], index["batch"], index["d_model"], index["heads"]
    vocab, eps, dh = index["vocab"], index["layer_norm_eps"], d_model // heads
    tokens = t["tokens"].t()  # [batch, seq]
    targets = t["targets"].t()
    F = torch.nn.functional
    x0 = p["tok_emb"][tokens] + p["pos_emb"][None]
    x1 = F.layer_norm(x0, (d_model,), p["ln1_weight"], p["ln1_bias"], eps)

    def split(x):  # [batch, seq, d_model] -> [batch, heads, seq, dh]
        return x.reshape(batch, seq, heads, dh).transpose(1, 2)

    q = split(x1 @ p["wq"] + p["bq"])
    k = split(x1 @ p["wk"] + p["bk"])
    v = split(x1 @ p["wv"] + p["bv"])
    causal = torch.triu(torch.full((seq, seq), float(index["mask_value"]), dtype=torch.float64), 1)
    scores = q @ k.transpose(-1, -2) / math.sqrt(dh) + causal
    probs = scores.softmax(-1)
    if index["dropout"] > 0:  # the program's keep mask: bit i (LSB first) of byte i // 8
        bits = t["keep_mask"].long()
        kept = ((bits[:, None] >> torch.arange(8)) & 1).reshape(-1)[:probs.numel()]
        probs = probs * kept.reshape(probs.shape).double() / (1 - index["dropout"])
    ctx = (probs @ v).transpose(1, 2).reshape(batch, seq, d_model)
    x2 = x0 + ctx @ p["wo"] + p["bo"]
    x3 = F.layer_norm(x2, (d_model,), p["ln2_weight"], p["ln2_bias"], eps)
    x4 = x2 + F.gelu(x3 @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]
    logits = x4 @ p["wout"] + p["bout"]
    logp = logits.log_softmax(-1).reshape(-1, vocab)
    return F.nll_loss(logp, targets.reshape(-1), ignore_index=index["ignore_index"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--program", required=True, help="the train_transformer_block binary")
    parser.add_argument("--dir", help="where the dump goes (default: a temporary folder)")
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--atol", type=float, default=1e-6)
    parser.add_argument("extra", nargs="*", help="options passed on to the program (after --)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        directory = args.dir or tmp
        os.makedirs(directory, exist_ok=True)
        command = [args.program, "--dump-gradients", directory] + args.extra
        print("check_gradients: running", " ".join(command), flush=True)
        subprocess.run(command, check=True)
        index, t = load(directory)

    params = {name[len("param_"):]: value.double().requires_grad_()
              for name, value in t.items() if name.startswith("param_")}
    loss = reference_loss(index, t, params)
    loss.backward()
    ours_loss = index["loss"]
    loss_diff = abs(ours_loss - loss.item())
    loss_ok = loss_diff <= args.rtol * abs(loss.item()) + args.atol
    print(f"loss: ours {ours_loss:.9g}, torch float64 {loss.item():.9g}, |diff| {loss_diff:.3g}"
          f" {'ok' if loss_ok else 'MISMATCH'}")
    failures = 0 if loss_ok else 1
    print(f"{'parameter':<12} {'shape':<12} {'max|grad|':>11} {'max|diff|':>11} {'bound':>11}"
          f" {'diff/max':>9} {'diff/bound':>10}")
    for name, param in params.items():
        ref = param.grad
        ours = t["grad_" + name].double()
        scale = ref.abs().max().item()
        diff = (ours - ref).abs().max().item()
        bound = args.rtol * scale + args.atol
        ok = diff <= bound and bool(torch.isfinite(ours).all())
        failures += 0 if ok else 1
        shape = "x".join(str(d) for d in ref.shape)
        print(f"{name:<12} {shape:<12} {scale:11.4g} {diff:11.4g} {bound:11.4g}"
              f" {diff / scale if scale > 0 else 0:9.2e} {diff / bound:10.2e}"
              f" {'ok' if ok else 'MISMATCH'}")
    print(f"check_gradients: loss and {len(params)} gradients, {failures} mismatches: "
          f"{'PASS' if failures == 0 else 'FAIL'}")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
