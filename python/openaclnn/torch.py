"""PyTorch on openaclnn: ATen's CPU kernels of the operators openaclnn covers, replaced through
torch.library by openaclnn's (torch 1.13 and 2.x).

    openaclnn.torch.enable()            # or: with openaclnn.torch.enabled(): ...
    loss = model(x); loss.backward()    # conv_tbc, native_layer_norm, mm, ... run on openaclnn
    openaclnn.torch.stats()             # {"conv_tbc": 50, "native_layer_norm_backward": 50, ...}

Only dense CPU tensors are affected; autograd is PyTorch's (its formulas call the backward
operators, which are openaclnn's too). Outputs are allocated by PyTorch with its dtype rules and
written by openaclnn (which converts on store where the dtypes differ).
"""

import collections
import contextlib
import warnings

from . import _ops

_library = None
_counts = collections.Counter()


def _tensor_out(like, shape, dtype=None):
    import torch

    return torch.empty(tuple(shape), dtype=like.dtype if dtype is None else dtype)


def _pointwise(operator, self, other, *alpha, true_divide=False):
    """add/sub/mul/div.Tensor: PyTorch's result dtype and shape, written by openaclnn. A 0-d
    tensor (or a Python number) acts as a scalar in PyTorch's promotion, as in CANN's scalar
    forms, so it goes as one."""
    import torch

    dtype = torch.result_type(self, other)
    if true_divide and not (dtype.is_floating_point or dtype.is_complex):
        dtype = torch.get_default_dtype()
    if isinstance(other, torch.Tensor):
        shape = torch.broadcast_shapes(self.shape, other.shape)
        other = other.item() if other.dim() == 0 else other
    else:
        shape = self.shape
    return operator(self, other, *alpha, out=_tensor_out(self, shape, dtype))


def _sum(self, dim=None, keepdim=False, dtype=None):
    """sum.dim_IntList: integers and bools sum to int64 unless a dtype is given, as in PyTorch."""
    import torch

    if dtype is None:
        dtype = self.dtype if self.is_floating_point() or self.is_complex() else torch.int64
    return _ops.reduce_sum(self, list(dim or ()), keepdim, dtype)


def _native_layer_norm(input, normalized_shape, weight, bias, eps):
    stats = tuple(input.shape[: input.dim() - len(normalized_shape)]) + (1,) * len(
        normalized_shape)
    out = (_tensor_out(input, input.shape), _tensor_out(input, stats), _tensor_out(input, stats))
    return _ops.layer_norm(input, normalized_shape, weight, bias, eps, out=out)


def _native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
                                output_mask):
    return _ops.layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
                                    output_mask)


def _softmax_forward(operator):
    """_softmax / _log_softmax: half_to_float asks for a FLOAT result."""

    def run(self, dim, half_to_float):
        import torch

        out = _tensor_out(self, self.shape, torch.float32 if half_to_float else None)
        return operator(self, dim, out=out)

    return run


def _softmax_backward(operator):
    """_softmax_backward_data / _log_softmax_backward_data: the gradient in input_dtype."""

    def run(grad_output, output, dim, input_dtype):
        return operator(grad_output, output, dim,
                        out=_tensor_out(grad_output, grad_output.shape, input_dtype))

    return run


def _gelu(self, approximate="none"):
    return _ops.gelu_v2(self, 1 if approximate == "tanh" else 0)


def _embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return _ops.embedding(weight, indices)


def _nll_loss_forward(self, target, weight, reduction, ignore_index):
    return _ops.nll_loss(self, target, weight, reduction, ignore_index)


def _nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    return _ops.nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index,
                                  total_weight)


# ATen operator -> its openaclnn implementation (ATen's argument order and defaults).
IMPLEMENTATIONS = {
    "conv_tbc": lambda self, weight, bias, pad=0: _ops.conv_tbc(self, weight, bias, pad),
    "conv_tbc_backward": _ops.conv_tbc_backward,
    "native_layer_norm": _native_layer_norm,
    "native_layer_norm_backward": _native_layer_norm_backward,
    "embedding": _embedding,
    "embedding_dense_backward": _ops.embedding_dense_backward,
    "nll_loss_forward": _nll_loss_forward,
    "nll_loss_backward": _nll_loss_backward,
    "_softmax": _softmax_forward(_ops.softmax),
    "_softmax_backward_data": _softmax_backward(_ops.softmax_backward),
    "_log_softmax": _softmax_forward(_ops.log_softmax),
    "_log_softmax_backward_data": _softmax_backward(_ops.log_softmax_backward),
    "gelu": _gelu,
    "gelu_backward": lambda grad, self, approximate="none": _ops.gelu_backward_v2(grad, self,
                                                                                  approximate),
    "glu": lambda self, dim=-1: _ops.glu(self, dim),
    "glu_backward": _ops.glu_backward,
    "mm": lambda self, mat2: _ops.mm(self, mat2),
    "bmm": lambda self, mat2: _ops.batch_matmul(self, mat2),
    "addmm": lambda self, mat1, mat2, beta=1, alpha=1: _ops.addmm(self, mat1, mat2, beta, alpha),
    "baddbmm": lambda self, batch1, batch2, beta=1, alpha=1: _ops.baddbmm(self, batch1, batch2,
                                                                          beta, alpha),
    "add.Tensor": lambda self, other, alpha=1: _pointwise(_ops.add, self, other, alpha),
    "sub.Tensor": lambda self, other, alpha=1: _pointwise(_ops.sub, self, other, alpha),
    "mul.Tensor": lambda self, other: _pointwise(_ops.mul, self, other),
    "div.Tensor": lambda self, other: _pointwise(_ops.div, self, other, true_divide=True),
    "sum.dim_IntList": _sum,
}


def _counted(name, implementation):
    def run(*args, **kwargs):
        _counts[name] += 1
        return implementation(*args, **kwargs)

    return run


def enable():
    """Registers openaclnn's implementations for ATen's CPU operators (idempotent)."""
    global _library
    if _library is not None:
        return
    import torch

    library = torch.library.Library("aten", "IMPL", "CPU")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Overriding a previously registered kernel"
        for name, implementation in IMPLEMENTATIONS.items():
            library.impl(name, _counted(name, implementation))
    _library = library


def disable():
    """Gives the operators back to PyTorch's own CPU kernels."""
    global _library
    if _library is None:
        return
    destroy = getattr(_library, "_destroy", None)
    if destroy is not None:
        destroy()
    _library = None


def is_enabled():
    return _library is not None


@contextlib.contextmanager
def enabled():
    """openaclnn's implementations within the block (restores the previous state after)."""
    was_enabled = is_enabled()
    enable()
    try:
        yield
    finally:
        if not was_enabled:
            disable()


def stats():
    """Calls that ran on openaclnn since the last reset_stats(), per ATen operator."""
    return dict(_counts)


def reset_stats():
    _counts.clear()
