"""One function per aclnn operator, named in snake case after it, arguments in aclnn's order.

Outputs are allocated (NumPy arrays, or torch tensors when the first tensor argument is one) and
returned, unless given as ``out=`` (one array, or a tuple for several outputs). ``inplace_*``
functions write their first argument and return it. Every failure raises AclnnError.
"""

import math

import numpy as np

from . import _C
from ._arrays import (FLOATING, acl_dtype, arg, check_writable, dtype_of, empty, outputs,
                      shape_of)


def _call(name, *args):
    if name.startswith("Inplace"):
        check_writable(args[0])
    getattr(_C, name)(*[arg(a) if _is_array(a) else a for a in args])


def _is_array(a):
    return hasattr(a, "shape") and hasattr(a, "dtype")


def _single(out, like, shape, dtype, name, *args):
    """Runs an operator with one output appended to `args`; returns the output."""
    (result,) = outputs(out, [(like, shape, dtype)])
    _call(name, *args, result)
    return result


def _is_scalar(x):
    return isinstance(x, (bool, int, float))


# --- pointwise: CANN's type promotion (docs/ops/pointwise.md) ---------------------------------


def _promote(a, b):
    """The result dtype of a tensor `a` with a tensor or Python scalar `b`."""
    ta = dtype_of(a)
    if _is_scalar(b):
        if ta in FLOATING:
            return ta
        if isinstance(b, float):
            return np.dtype(np.float32)
        if ta == np.bool_ and not isinstance(b, bool):
            return np.dtype(np.int64)
        return ta
    tb = dtype_of(b)
    if ta == tb:
        return ta
    if (ta in FLOATING) != (tb in FLOATING):  # a float with an integer or bool: the float
        return ta if ta in FLOATING else tb
    if ta in FLOATING:  # the wider float; FLOAT16 with BFLOAT16 gives FLOAT
        wider = max(FLOATING.index(ta), FLOATING.index(tb))
        return FLOATING[max(wider, 2) if {ta, tb} == set(FLOATING[:2]) else wider]
    return np.result_type(ta, tb)


def _binary(name, self, other, alpha, out, true_divide=False):
    scalar = _is_scalar(other)
    dtype = _promote(self, other)
    if true_divide and dtype not in FLOATING:
        dtype = np.dtype(np.float32)
    shape = shape_of(self) if scalar else np.broadcast_shapes(shape_of(self), shape_of(other))
    args = (self, other) if alpha is None else (self, other, alpha)
    return _single(out, self, shape, dtype, name + ("s" if scalar else ""), *args)


def _inplace(name, self, other, alpha=None):
    args = (self, other) if alpha is None else (self, other, alpha)
    _call(name + ("s" if _is_scalar(other) else ""), *args)
    return self


def add(self, other, alpha=1, out=None):
    """self + alpha * other (aclnnAdd, or aclnnAdds for a scalar other)."""
    return _binary("Add", self, other, alpha, out)


def sub(self, other, alpha=1, out=None):
    """self - alpha * other (aclnnSub / aclnnSubs)."""
    return _binary("Sub", self, other, alpha, out)


def mul(self, other, out=None):
    """self * other (aclnnMul / aclnnMuls)."""
    return _binary("Mul", self, other, None, out)


def div(self, other, out=None):
    """self / other, true division (aclnnDiv / aclnnDivs)."""
    return _binary("Div", self, other, None, out, true_divide=True)


def inplace_add(self, other, alpha=1):
    return _inplace("InplaceAdd", self, other, alpha)


def inplace_sub(self, other, alpha=1):
    return _inplace("InplaceSub", self, other, alpha)


def inplace_mul(self, other):
    return _inplace("InplaceMul", self, other)


def inplace_div(self, other):
    return _inplace("InplaceDiv", self, other)


def cast(self, dtype, out=None):
    """self converted to `dtype` (aclnnCast)."""
    return _single(out, self, shape_of(self), dtype, "Cast", self, acl_dtype(dtype))


def inplace_copy(self, src):
    """Copies src (broadcast, converted) into self (aclnnInplaceCopy)."""
    _call("InplaceCopy", self, src)
    return self


def inplace_fill_scalar(self, value):
    _call("InplaceFillScalar", self, value)
    return self


def inplace_zero(self):
    _call("InplaceZero", self)
    return self


def inplace_one(self):
    _call("InplaceOne", self)
    return self


def reduce_sum(self, dims, keep_dims=False, dtype=None, out=None):
    """The sum over `dims` (all when empty) in `dtype` (self's by default) (aclnnReduceSum)."""
    shape = shape_of(self)
    rank = len(shape)
    reduced = {d % rank for d in dims} if dims and rank else set(range(rank))
    kept = [1 if i in reduced else n for i, n in enumerate(shape) if keep_dims or i not in reduced]
    dtype = dtype_of(self) if dtype is None else dtype
    return _single(out, self, kept, dtype, "ReduceSum", self, list(dims), keep_dims,
                   acl_dtype(dtype))


# --- softmax, activations ----------------------------------------------------------------------


def _like(name, x, out, *args):
    return _single(out, x, shape_of(x), dtype_of(x), name, *args)


def softmax(self, dim, out=None):
    return _like("Softmax", self, out, self, dim)


def softmax_backward(grad_output, output, dim, out=None):
    return _like("SoftmaxBackward", grad_output, out, grad_output, output, dim)


def log_softmax(self, dim, out=None):
    return _like("LogSoftmax", self, out, self, dim)


def log_softmax_backward(grad_output, output, dim, out=None):
    return _like("LogSoftmaxBackward", grad_output, out, grad_output, output, dim)


def gelu(self, out=None):
    """GELU, tanh form (aclnnGelu)."""
    return _like("Gelu", self, out, self)


def gelu_backward(grad_output, self, out=None):
    """GELU's gradient, erf form (aclnnGeluBackward)."""
    return _binary_like("GeluBackward", grad_output, self, out)


def gelu_v2(x, approximate=0, out=None):
    """GELU: approximate 0 = erf, 1 = tanh (aclnnGeluV2)."""
    return _like("GeluV2", x, out, x, approximate)


def gelu_backward_v2(grad_output, self, approximate="none", out=None):
    """GELU's gradient: approximate "none" or "tanh" (aclnnGeluBackwardV2)."""
    return _binary_like("GeluBackwardV2", grad_output, self, out, approximate)


def _binary_like(name, grad, x, out, *extra):
    shape = np.broadcast_shapes(shape_of(grad), shape_of(x))
    return _single(out, grad, shape, _promote(grad, x), name, grad, x, *extra)


def _halved(x, dim):
    shape = list(shape_of(x))
    shape[dim] //= 2
    return shape


def glu(self, dim=-1, out=None):
    return _single(out, self, _halved(self, dim), dtype_of(self), "Glu", self, dim)


def glu_backward(grad_out, self, dim=-1, out=None):
    return _like("GluBackward", self, out, grad_out, self, dim)


# --- normalisation -----------------------------------------------------------------------------


def _stat_shape(x, trailing):
    shape = shape_of(x)
    return shape[: len(shape) - trailing] + (1,) * trailing


def rms_norm(x, gamma, epsilon=1e-6, out=None):
    """(y, rstd) with rstd FLOAT of shape x's leading dims + ones (aclnnRmsNorm)."""
    y, rstd = outputs(out, [(x, shape_of(x), dtype_of(x)),
                            (x, _stat_shape(x, len(shape_of(gamma))), np.float32)])
    _call("RmsNorm", x, gamma, epsilon, y, rstd)
    return y, rstd


def rms_norm_grad(dy, x, rstd, gamma, out=None):
    """(dx, dgamma), dgamma FLOAT (aclnnRmsNormGrad)."""
    dx, dgamma = outputs(out, [(x, shape_of(x), dtype_of(x)),
                               (x, shape_of(gamma), np.float32)])
    _call("RmsNormGrad", dy, x, rstd, gamma, dx, dgamma)
    return dx, dgamma


def _layer_norm(name, input, normalized_shape, weight, bias, eps, out, *extra):
    normalized_shape = [int(n) for n in normalized_shape]
    stats = _stat_shape(input, len(normalized_shape))
    result, mean, rstd = outputs(out, [(input, shape_of(input), dtype_of(input)),
                                       (input, stats, np.float32), (input, stats, np.float32)])
    _call(name, input, normalized_shape, weight, bias, eps, result, mean, rstd, *extra)
    return result, mean, rstd


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, out=None):
    """(out, mean, rstd); mean and rstd FLOAT, shaped input's leading dims + ones
    (aclnnLayerNorm). out=(out, mean, rstd) may give None for mean or rstd."""
    return _layer_norm("LayerNorm", input, normalized_shape, weight, bias, eps, out)


def layer_norm_with_impl_mode(input, normalized_shape, weight=None, bias=None, eps=1e-5,
                              impl_mode=0, out=None):
    return _layer_norm("LayerNormWithImplMode", input, normalized_shape, weight, bias, eps, out,
                       impl_mode)


def fast_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, out=None):
    return _layer_norm("FastLayerNorm", input, normalized_shape, weight, bias, eps, out)


def layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight=None, bias=None,
                        output_mask=(True, True, True), out=None):
    """(grad_input, grad_weight, grad_bias), None where output_mask is False
    (aclnnLayerNormBackward)."""
    normalized_shape = [int(n) for n in normalized_shape]
    param = weight if weight is not None else bias if bias is not None else input
    param_dtype = dtype_of(param)
    specs = [(input, shape_of(input), dtype_of(input)),
             (input, normalized_shape, param_dtype), (input, normalized_shape, param_dtype)]
    mask = [bool(m) for m in output_mask]
    specs = [spec if len(mask) != 3 or mask[i] else None for i, spec in enumerate(specs)]
    results = outputs(out, specs)
    _call("LayerNormBackward", grad_out, input, normalized_shape, mean, rstd, weight, bias, mask,
          *results)
    return tuple(results)


# --- convolution, matmul -----------------------------------------------------------------------


def conv_tbc(self, weight, bias, pad, cube_math_type=0, out=None):
    """The time-batch-channel convolution: self (T, B, Cin), weight (K, Cin, Cout), bias (Cout)
    give (T + 2 pad - K + 1, B, Cout) (aclnnConvTbc)."""
    time, batch, _ = shape_of(self)
    shape = (time + 2 * pad - shape_of(weight)[0] + 1, batch, shape_of(weight)[2])
    (result,) = outputs(out, [(self, shape, dtype_of(self))])
    _call("ConvTbc", self, weight, bias, pad, result, cube_math_type)
    return result


def conv_tbc_backward(self, input, weight, bias, pad, cube_math_type=0, out=None):
    """(grad_input, grad_weight, grad_bias) for grad_output `self` (aclnnConvTbcBackward)."""
    grads = outputs(out, [(x, shape_of(x), dtype_of(x)) for x in (input, weight, bias)])
    _call("ConvTbcBackward", self, input, weight, bias, pad, cube_math_type, *grads)
    return tuple(grads)


def _matmul_shape(a, b):
    if len(a) == 1 and len(b) == 1:
        return ()
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    shape = np.broadcast_shapes(a2[:-2], b2[:-2]) + (a2[-2], b2[-1])
    if len(b) == 1:
        shape = shape[:-1]
    if len(a) == 1:
        shape = shape[:-2] + shape[-1:]
    return shape


def matmul(self, mat2, cube_math_type=0, out=None):
    """torch.matmul's semantics (aclnnMatmul)."""
    shape = _matmul_shape(shape_of(self), shape_of(mat2))
    (result,) = outputs(out, [(self, shape, dtype_of(self))])
    _call("Matmul", self, mat2, result, cube_math_type)
    return result


def mm(self, mat2, cube_math_type=0, out=None):
    return _matmul_like("Mm", self, mat2, cube_math_type, out)


def batch_matmul(self, mat2, cube_math_type=0, out=None):
    return _matmul_like("BatchMatMul", self, mat2, cube_math_type, out)


def _matmul_like(name, self, mat2, cube_math_type, out):
    shape = shape_of(self)[:-1] + shape_of(mat2)[-1:]
    (result,) = outputs(out, [(self, shape, dtype_of(self))])
    _call(name, self, mat2, result, cube_math_type)
    return result


def addmm(self, mat1, mat2, beta=1, alpha=1, cube_math_type=0, out=None):
    """beta * self + alpha * mat1 @ mat2 (aclnnAddmm)."""
    shape = shape_of(mat1)[:-1] + shape_of(mat2)[-1:]
    (result,) = outputs(out, [(mat1, shape, dtype_of(mat1))])
    _call("Addmm", self, mat1, mat2, beta, alpha, result, cube_math_type)
    return result


def inplace_addmm(self, mat1, mat2, beta=1, alpha=1, cube_math_type=0):
    _call("InplaceAddmm", self, mat1, mat2, beta, alpha, cube_math_type)
    return self


def baddbmm(self, batch1, batch2, beta=1, alpha=1, cube_math_type=0, out=None):
    """beta * self + alpha * batch1 @ batch2 (aclnnBaddbmm)."""
    shape = shape_of(batch1)[:-1] + shape_of(batch2)[-1:]
    (result,) = outputs(out, [(batch1, shape, dtype_of(batch1))])
    _call("Baddbmm", self, batch1, batch2, beta, alpha, result, cube_math_type)
    return result


def inplace_baddbmm(self, batch1, batch2, beta=1, alpha=1, cube_math_type=0):
    _call("InplaceBaddbmm", self, batch1, batch2, beta, alpha, cube_math_type)
    return self


# --- embedding, losses, dropout, optimizer -----------------------------------------------------


def embedding(weight, indices, out=None):
    """weight's rows at indices: indices.shape + (D,) (aclnnEmbedding)."""
    shape = shape_of(indices) + shape_of(weight)[1:]
    return _single(out, weight, shape, dtype_of(weight), "Embedding", weight, indices)


def embedding_dense_backward(grad, indices, num_weights, padding_idx=-1,
                             scale_grad_by_freq=False, out=None):
    """The (num_weights, D) weight gradient; padding_idx -1 for none
    (aclnnEmbeddingDenseBackward)."""
    shape = (num_weights, shape_of(grad)[-1])
    return _single(out, grad, shape, dtype_of(grad), "EmbeddingDenseBackward", grad, indices,
                   num_weights, padding_idx, scale_grad_by_freq)


def nll_loss(self, target, weight=None, reduction=1, ignore_index=-100, out=None):
    """(out, total_weight); reduction 0 none, 1 mean, 2 sum; weight defaults to ones
    (aclnnNLLLoss)."""
    shape = shape_of(self)
    weight = _default_weight(self) if weight is None else weight
    loss_shape = shape[:1] if reduction == 0 and len(shape) == 2 else ()
    loss, total = outputs(out, [(self, loss_shape, dtype_of(self)), (self, (), dtype_of(self))])
    _call("NLLLoss", self, target, weight, reduction, ignore_index, loss, total)
    return loss, total


def nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight,
                      out=None):
    """The gradient for self (aclnnNLLLossBackward)."""
    weight = _default_weight(self) if weight is None else weight
    return _like("NLLLossBackward", self, out, grad_output, self, target, weight, reduction,
                 ignore_index, total_weight)


def _default_weight(self):
    """Class weights of ones (PyTorch's default), in self's kind and dtype."""
    weight = empty(self, shape_of(self)[-1:], dtype_of(self))
    _call("InplaceOne", weight)
    return weight


def _mask_spec(shape):
    return (None, (math.ceil(math.prod(shape) / 128) * 16,), np.uint8)


def dropout_gen_mask(shape, prob, seed=0, offset=0, out=None):
    """The keep mask, a bit per element, align(numel, 128) / 8 UINT8 bytes
    (aclnnDropoutGenMask)."""
    (mask,) = outputs(out, [_mask_spec(shape)])
    _call("DropoutGenMask", list(shape), prob, seed, offset, mask)
    return mask


def dropout_gen_mask_v2(shape, prob, seed=0, offset=0, prob_data_type=np.float32, out=None):
    (mask,) = outputs(out, [_mask_spec(shape)])
    _call("DropoutGenMaskV2", list(shape), prob, seed, offset, acl_dtype(prob_data_type), mask)
    return mask


def dropout_gen_mask_v2_tensor(shape, prob, seed_tensor, offset_tensor, offset=0,
                               prob_data_type=np.float32, out=None):
    (mask,) = outputs(out, [_mask_spec(shape)])
    _call("DropoutGenMaskV2Tensor", list(shape), prob, seed_tensor, offset_tensor, offset,
          acl_dtype(prob_data_type), mask)
    return mask


def dropout_do_mask(self, mask, prob, out=None):
    """self * mask / (1 - prob) (aclnnDropoutDoMask)."""
    return _like("DropoutDoMask", self, out, self, mask, prob)


def apply_adam_w(var, m, v, beta1_power, beta2_power, lr, weight_decay, beta1, beta2, eps, grad,
                 max_grad_norm=None, amsgrad=False, maximize=False):
    """One AdamW step in place on var, m, v; hyperparameters as 1-element arrays
    (aclnnApplyAdamW). Returns (var, m, v)."""
    check_writable(var, m, v)
    _call("ApplyAdamW", var, m, v, beta1_power, beta2_power, lr, weight_decay, beta1, beta2, eps,
          grad, max_grad_norm, amsgrad, maximize)
    return var, m, v


def apply_adam_w_v2(var, m, v, max_grad_norm, grad, step, lr, beta1, beta2, weight_decay, eps,
                    amsgrad=False, maximize=False):
    """One AdamW step in place on var, m, v (and max_grad_norm with amsgrad); step a 1-element
    array (aclnnApplyAdamWV2). Returns (var, m, v)."""
    check_writable(var, m, v, max_grad_norm)
    _call("ApplyAdamWV2", var, m, v, max_grad_norm, grad, step, lr, beta1, beta2, weight_decay,
          eps, amsgrad, maximize)
    return var, m, v


__all__ = [name for name, value in list(globals().items())
           if not name.startswith("_") and callable(value)
           and getattr(value, "__module__", None) == __name__]
