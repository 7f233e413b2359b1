"""A short tour of openaclnn from Python: NumPy arrays in, results out, errors as exceptions,
and PyTorch's CPU operators on openaclnn (where torch is installed)."""

import numpy as np

import openaclnn

rng = np.random.default_rng(0)

# LayerNorm forward and backward, FLOAT, against NumPy in float64.
x = rng.standard_normal((4, 8)).astype(np.float32)
w = rng.uniform(0.5, 1.5, 8).astype(np.float32)
b = np.zeros(8, np.float32)
out, mean, rstd = openaclnn.layer_norm(x, [8], w, b, eps=1e-5)
golden = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * w
print("layer_norm: max |out - numpy| =", float(np.abs(out - golden).max()))
dy = np.ones_like(x)
grad_input, grad_weight, grad_bias = openaclnn.layer_norm_backward(dy, x, [8], mean, rstd, w, b)
print("layer_norm_backward: grad_bias =", grad_bias)

# ConvTBC on a strided BFLOAT16 view (read in place, no copy), then its gradients.
seq = rng.standard_normal((10, 2, 12)).astype(openaclnn.bfloat16)[:, :, ::2]  # (T, B, Cin=6)
weight = (rng.standard_normal((3, 6, 4)) * 0.3).astype(openaclnn.bfloat16)
bias = np.zeros(4, openaclnn.bfloat16)
y = openaclnn.conv_tbc(seq, weight, bias, pad=1)
grads = openaclnn.conv_tbc_backward(np.ones_like(y), seq, weight, bias, pad=1)
print("conv_tbc:", y.shape, y.dtype, "grad shapes", [g.shape for g in grads])

# Errors are exceptions with aclnn's status code and message.
try:
    openaclnn.softmax(np.ones((2, 3), np.int64), -1)
except openaclnn.AclnnError as error:
    print("AclnnError", error.code, "-", error.message)

with openaclnn.deterministic(True):
    print("deterministic:", openaclnn.is_deterministic())

try:
    import torch
except ImportError:
    torch = None
if torch is not None:
    import openaclnn.torch

    ln = torch.nn.LayerNorm(8)
    t = torch.from_numpy(x).requires_grad_()
    with openaclnn.torch.enabled():
        ln(t).sum().backward()
    print("torch", torch.__version__, "on openaclnn:", openaclnn.torch.stats())
print("device:", openaclnn.device())
