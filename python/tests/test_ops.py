"""Every operator's values against a NumPy float64 reference, in FLOAT, FLOAT16 and BFLOAT16,
on contiguous arrays and on strided views with offsets (no copies: the library reads them)."""

import math

import numpy as np
import pytest
from conftest import BF16, FLOAT_DTYPES, assert_close, f64, make

import openaclnn as ops

CASES = [(dtype, strided) for dtype in FLOAT_DTYPES for strided in (False, True)]
CASE_IDS = [f"{np.dtype(d).name}-{'strided' if s else 'contiguous'}" for d, s in CASES]
cases = pytest.mark.parametrize("dtype,strided", CASES, ids=CASE_IDS)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


erf = np.vectorize(math.erf)


# --- pointwise ---------------------------------------------------------------------------------


@cases
def test_add_sub_mul_div_tensors(rng, dtype, strided):
    a = make(rng, (3, 4, 5), dtype, strided)
    b = make(rng, (4, 1), dtype, strided, 0.5, 2.0)  # broadcast, away from 0 for div
    assert_close(ops.add(a, b, alpha=0.5), f64(a) + 0.5 * f64(b))
    assert_close(ops.sub(a, b, alpha=2), f64(a) - 2 * f64(b))
    assert_close(ops.mul(a, b), f64(a) * f64(b))
    assert_close(ops.div(a, b), f64(a) / f64(b))


@cases
def test_scalar_forms_and_inplace(rng, dtype, strided):
    a = make(rng, (6, 7), dtype, strided)
    golden = f64(a)
    assert_close(ops.add(a, 1.5, alpha=2), golden + 3.0)
    assert_close(ops.sub(a, 0.25), golden - 0.25)
    assert_close(ops.mul(a, 3), golden * 3)
    assert_close(ops.div(a, 4.0), golden / 4)
    b = make(rng, (7,), dtype)
    assert ops.inplace_add(a, b, alpha=-1) is a
    assert_close(a, golden - f64(b))
    ops.inplace_mul(a, 2.0)
    assert_close(a, (golden - f64(b)) * 2, dtype)
    golden = f64(a)
    c = make(rng, (6, 7), dtype, strided, 1.0, 2.0)
    assert ops.inplace_div(a, c) is a
    assert_close(a, golden / f64(c), dtype)
    golden = f64(a)
    assert ops.inplace_sub(a, 0.5, alpha=2) is a
    assert_close(a, golden - 1.0, dtype)


def test_type_promotion():
    half = np.ones((2, 3), np.float16)
    bf16 = np.full((2, 3), 2, BF16)
    assert ops.add(half, bf16).dtype == np.float32  # CANN: FLOAT16 with BFLOAT16 gives FLOAT
    ints = np.arange(6, dtype=np.int32).reshape(2, 3)
    assert ops.add(ints, ints).dtype == np.int32
    np.testing.assert_array_equal(ops.mul(ints, 3), ints * 3)
    assert ops.add(ints, 0.5).dtype == np.float32  # an int tensor with a float scalar
    np.testing.assert_allclose(ops.div(ints, 4), ints / 4)  # true division
    assert ops.add(ints, np.ones(3, np.float32)).dtype == np.float32


@pytest.mark.parametrize("target", [np.float32, np.float16, BF16, np.int32, np.float64])
def test_cast(rng, target):
    a = make(rng, (5, 6), np.float32, True, -50, 50)
    got = ops.cast(a, target)
    assert got.dtype == np.dtype(target)
    expected = a.astype(np.int32) if target is np.int32 else a.astype(target)
    np.testing.assert_array_equal(f64(got), f64(expected))


@cases
def test_copy_fill_zero_one(rng, dtype, strided):
    dst = make(rng, (4, 6), dtype, strided)
    src = make(rng, (6,), np.float32)
    assert ops.inplace_copy(dst, src) is dst
    np.testing.assert_array_equal(f64(dst), np.broadcast_to(f64(src.astype(dtype)), (4, 6)))
    np.testing.assert_array_equal(f64(ops.inplace_fill_scalar(dst, 2.5)), 2.5)
    np.testing.assert_array_equal(f64(ops.inplace_zero(dst)), 0)
    np.testing.assert_array_equal(f64(ops.inplace_one(dst)), 1)


def test_inplace_writes_only_the_view(rng):
    base = np.full((4, 8), 7, np.float32)
    view = base[1:3, ::2]
    ops.inplace_zero(view)
    expected = np.full((4, 8), 7, np.float32)
    expected[1:3, ::2] = 0
    np.testing.assert_array_equal(base, expected)


@cases
@pytest.mark.parametrize("dims,keep", [((1,), False), ((0, 2), True), ((), False)])
def test_reduce_sum(rng, dtype, strided, dims, keep):
    a = make(rng, (3, 4, 5), dtype, strided)
    golden = f64(a).sum(axis=dims if dims else None, keepdims=keep)
    assert_close(ops.reduce_sum(a, dims, keep), golden)
    as_float = ops.reduce_sum(a, dims, keep, dtype=np.float32)
    assert as_float.dtype == np.float32
    assert_close(as_float, golden, dtype)


# --- softmax, activations ----------------------------------------------------------------------


@cases
@pytest.mark.parametrize("dim", [-1, 1])
def test_softmax_log_softmax(rng, dtype, strided, dim):
    x = make(rng, (3, 6, 5), dtype, strided, -4, 4)
    g = make(rng, (3, 6, 5), dtype, strided)
    xd = f64(x)
    e = np.exp(xd - xd.max(axis=dim, keepdims=True))
    soft = e / e.sum(axis=dim, keepdims=True)
    assert_close(ops.softmax(x, dim), soft)
    assert_close(ops.log_softmax(x, dim), np.log(soft))
    y = ops.softmax(x, dim)
    yd, gd = f64(y), f64(g)
    assert_close(ops.softmax_backward(g, y, dim),
                 yd * (gd - (gd * yd).sum(axis=dim, keepdims=True)))
    ly = ops.log_softmax(x, dim)
    assert_close(ops.log_softmax_backward(g, ly, dim),
                 gd - np.exp(f64(ly)) * gd.sum(axis=dim, keepdims=True))


def gelu_erf(x):
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def gelu_erf_grad(x):
    return 0.5 * (1 + erf(x / math.sqrt(2))) + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def gelu_tanh_grad(x):
    k = math.sqrt(2 / math.pi)
    t = np.tanh(k * (x + 0.044715 * x**3))
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x)


@cases
def test_gelu_family(rng, dtype, strided):
    x = make(rng, (4, 9), dtype, strided, -3, 3)
    g = make(rng, (4, 9), dtype, strided)
    xd, gd = f64(x), f64(g)
    assert_close(ops.gelu(x), gelu_tanh(xd))
    assert_close(ops.gelu_v2(x, 0), gelu_erf(xd))
    assert_close(ops.gelu_v2(x, 1), gelu_tanh(xd))
    assert_close(ops.gelu_backward(g, x), gd * gelu_erf_grad(xd))
    assert_close(ops.gelu_backward_v2(g, x, "none"), gd * gelu_erf_grad(xd))
    assert_close(ops.gelu_backward_v2(g, x, "tanh"), gd * gelu_tanh_grad(xd))


@cases
@pytest.mark.parametrize("dim", [-1, 0])
def test_glu(rng, dtype, strided, dim):
    x = make(rng, (6, 8), dtype, strided, -3, 3)
    a, b = np.split(f64(x), 2, axis=dim)
    out = ops.glu(x, dim)
    assert_close(out, a * sigmoid(b))
    g = make(rng, out.shape, dtype)
    gd = f64(g)
    golden = np.concatenate([gd * sigmoid(b), gd * a * sigmoid(b) * (1 - sigmoid(b))], axis=dim)
    assert_close(ops.glu_backward(g, x, dim), golden)


# --- normalisation -----------------------------------------------------------------------------


@cases
def test_rms_norm_and_grad(rng, dtype, strided):
    x = make(rng, (3, 4, 8), dtype, strided)
    gamma = make(rng, (8,), dtype, False, 0.5, 1.5)
    xd, gm = f64(x), f64(gamma)
    eps = 1e-6
    rstd = 1 / np.sqrt((xd * xd).mean(-1, keepdims=True) + eps)
    y, got_rstd = ops.rms_norm(x, gamma, eps)
    assert got_rstd.shape == (3, 4, 1) and got_rstd.dtype == np.float32
    assert_close(y, xd * rstd * gm)
    assert_close(got_rstd, rstd)
    dy = make(rng, x.shape, dtype, strided)
    dyd = f64(dy)
    dx, dgamma = ops.rms_norm_grad(dy, x, got_rstd, gamma)
    r = f64(got_rstd)
    golden_dx = r * (dyd * gm - xd * r * r * (dyd * gm * xd).mean(-1, keepdims=True))
    assert_close(dx, golden_dx)
    assert_close(dgamma, (dyd * xd * r).sum(axis=(0, 1)), dtype)


def layer_norm_reference(x, n_axes, weight, bias, eps):
    axes = tuple(range(x.ndim - n_axes, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    rstd = 1 / np.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + eps)
    out = (x - mean) * rstd
    out = out * weight if weight is not None else out
    out = out + bias if bias is not None else out
    return out, mean, rstd


@cases
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm(rng, dtype, strided, affine):
    x = make(rng, (3, 4, 6), dtype, strided, -2, 3)
    w = make(rng, (4, 6), dtype, False, 0.5, 1.5) if affine else None
    b = make(rng, (4, 6), dtype) if affine else None
    out, mean, rstd = ops.layer_norm(x, [4, 6], w, b, eps=1e-5)
    assert mean.shape == (3, 1, 1) and rstd.dtype == np.float32
    golden = layer_norm_reference(f64(x), 2, None if w is None else f64(w),
                                  None if b is None else f64(b), 1e-5)
    assert_close(out, golden[0])
    assert_close(mean, golden[1])
    assert_close(rstd, golden[2])
    for variant in (ops.fast_layer_norm(x, [4, 6], w, b),
                    ops.layer_norm_with_impl_mode(x, [4, 6], w, b, 1e-5, 0)):
        np.testing.assert_array_equal(f64(variant[0]), f64(out))


@cases
def test_layer_norm_backward(rng, dtype, strided):
    x = make(rng, (5, 8), dtype, strided, -2, 2)
    w = make(rng, (8,), dtype, False, 0.5, 1.5)
    b = make(rng, (8,), dtype)
    dy = make(rng, (5, 8), dtype, strided)
    _, mean, rstd = ops.layer_norm(x, [8], w, b)
    dx, dw, db = ops.layer_norm_backward(dy, x, [8], mean, rstd, w, b)
    xd, dyd, wd, m, r = f64(x), f64(dy), f64(w), f64(mean), f64(rstd)
    xhat = (xd - m) * r
    g = dyd * wd
    golden_dx = r * (g - g.mean(-1, keepdims=True) - xhat * (g * xhat).mean(-1, keepdims=True))
    assert_close(dx, golden_dx)
    assert_close(dw, (dyd * xhat).sum(0))
    assert_close(db, dyd.sum(0))
    masked = ops.layer_norm_backward(dy, x, [8], mean, rstd, w, b, (True, False, False))
    assert masked[1] is None and masked[2] is None
    np.testing.assert_array_equal(f64(masked[0]), f64(dx))


# --- convolution, matmul -----------------------------------------------------------------------


def conv_tbc_reference(x, w, bias, pad):
    time, batch, _ = x.shape
    k = w.shape[0]
    xp = np.pad(x, ((pad, pad), (0, 0), (0, 0)))
    out_t = time + 2 * pad - k + 1
    out = np.broadcast_to(bias, (out_t, batch, w.shape[2])).copy()
    for i in range(k):
        out += xp[i:i + out_t] @ w[i]
    return out


@cases
@pytest.mark.parametrize("pad", [0, 1])
def test_conv_tbc_and_backward(rng, dtype, strided, pad):
    x = make(rng, (7, 3, 4), dtype, strided)
    w = make(rng, (3, 4, 5), dtype, strided)
    bias = make(rng, (5,), dtype)
    out = ops.conv_tbc(x, w, bias, pad)
    xd, wd, bd = f64(x), f64(w), f64(bias)
    assert_close(out, conv_tbc_reference(xd, wd, bd, pad))
    g = make(rng, out.shape, dtype, strided)
    gd = f64(g)
    gi, gw, gb = ops.conv_tbc_backward(g, x, w, bias, pad)
    xp = np.pad(xd, ((pad, pad), (0, 0), (0, 0)))
    k, out_t = wd.shape[0], gd.shape[0]
    golden_gw = np.stack([np.einsum("tbc,tbo->co", xp[i:i + out_t], gd) for i in range(k)])
    golden_gxp = np.zeros_like(xp)
    for i in range(k):
        golden_gxp[i:i + out_t] += gd @ wd[i].T
    assert_close(gi, golden_gxp[pad:pad + xd.shape[0]])
    assert_close(gw, golden_gw)
    assert_close(gb, gd.sum(axis=(0, 1)))


@cases
def test_matmul_family(rng, dtype, strided):
    a = make(rng, (4, 6), dtype, strided)
    b = make(rng, (6, 3), dtype, strided)
    ad, bd = f64(a), f64(b)
    assert_close(ops.mm(a, b), ad @ bd)
    assert_close(ops.matmul(a, b), ad @ bd)
    batch1 = make(rng, (2, 4, 6), dtype, strided)
    batch2 = make(rng, (2, 6, 3), dtype, strided)
    b1, b2 = f64(batch1), f64(batch2)
    assert_close(ops.batch_matmul(batch1, batch2), b1 @ b2)
    assert_close(ops.matmul(batch1, b), b1 @ bd)  # broadcast batch
    vec = make(rng, (6,), dtype)
    assert_close(ops.matmul(a, vec), ad @ f64(vec))
    bias = make(rng, (3,), dtype)
    assert_close(ops.addmm(bias, a, b, beta=0.5, alpha=2), 0.5 * f64(bias) + 2 * (ad @ bd))
    acc = make(rng, (4, 3), dtype)
    golden = f64(acc) + ad @ bd
    assert ops.inplace_addmm(acc, a, b) is acc
    assert_close(acc, golden)
    c = make(rng, (2, 4, 3), dtype)
    assert_close(ops.baddbmm(c, batch1, batch2, beta=2, alpha=0.5), 2 * f64(c) + 0.5 * b1 @ b2)
    golden = f64(c) + b1 @ b2
    ops.inplace_baddbmm(c, batch1, batch2)
    assert_close(c, golden)


# --- embedding, losses, dropout, optimizer -----------------------------------------------------


@cases
def test_embedding_and_dense_backward(rng, dtype, strided):
    weight = make(rng, (10, 4), dtype, strided)
    indices = np.array([[1, 3, 3], [0, 9, 1]], np.int64)
    out = ops.embedding(weight, indices)
    np.testing.assert_array_equal(f64(out), f64(weight)[indices])
    grad = make(rng, (2, 3, 4), dtype, strided)
    for padding_idx, scale in ((-1, False), (3, False), (-1, True)):
        golden = np.zeros((10, 4))
        np.add.at(golden, indices.reshape(-1), f64(grad).reshape(-1, 4))
        if padding_idx >= 0:
            golden[padding_idx] = 0
        if scale:
            counts = np.bincount(indices.reshape(-1), minlength=10)
            golden /= np.maximum(counts, 1)[:, None]
        got = ops.embedding_dense_backward(grad, indices, 10, padding_idx, scale)
        assert_close(got, golden)


@cases
@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_nll_loss_and_backward(rng, dtype, strided, reduction):
    x = make(rng, (6, 5), dtype, strided, -3, 0)
    target = np.array([0, 4, 2, -100, 2, 1], np.int64)
    weight = make(rng, (5,), dtype, False, 0.5, 2)
    loss, total = ops.nll_loss(x, target, weight, reduction, -100)
    valid = target != -100
    wn = np.where(valid, f64(weight)[np.where(valid, target, 0)], 0)
    ln = -wn * f64(x)[np.arange(6), np.where(valid, target, 0)]
    golden = {0: ln, 1: ln.sum() / wn.sum(), 2: ln.sum()}[reduction]
    assert_close(loss, golden)
    assert_close(total, wn.sum() if reduction else 0 * wn.sum())
    g = make(rng, loss.shape, dtype)
    got = ops.nll_loss_backward(g, x, target, weight, reduction, -100, total)
    scale = f64(g) / (wn.sum() if reduction == 1 else 1)
    golden_grad = np.zeros((6, 5))
    golden_grad[np.arange(6), np.where(valid, target, 0)] = -wn * scale
    assert_close(got, golden_grad)


def test_nll_loss_default_weight(rng):
    x = make(rng, (4, 3), np.float32)
    target = np.array([2, 0, 1, 1], np.int64)
    loss, total = ops.nll_loss(x, target)
    assert_close(loss, -f64(x)[np.arange(4), target].mean())
    assert float(total) == 4


def test_dropout_masks(rng):
    shape = (3, 50)
    keep_all = ops.dropout_gen_mask(shape, 0.0, seed=1)
    assert keep_all.dtype == np.uint8 and keep_all.shape == (32,)  # align(150, 128) / 8
    assert (keep_all == 0xFF).all()
    assert (ops.dropout_gen_mask(shape, 1.0) == 0).all()
    mask = ops.dropout_gen_mask_v2((64, 64), 0.25, seed=7, offset=0)
    np.testing.assert_array_equal(mask, ops.dropout_gen_mask_v2((64, 64), 0.25, seed=7))
    assert not np.array_equal(mask, ops.dropout_gen_mask_v2((64, 64), 0.25, seed=8))
    kept = np.unpackbits(mask, bitorder="little").mean()
    assert abs(kept - 0.75) < 0.03
    seed = np.array([7], np.int64)
    offset = np.array([0], np.int64)
    np.testing.assert_array_equal(
        mask, ops.dropout_gen_mask_v2_tensor((64, 64), 0.25, seed, offset, 0))
    x = make(rng, shape, np.float32, True)
    bits = ops.dropout_gen_mask(shape, 0.5, seed=3)
    keep = np.unpackbits(bits, bitorder="little")[:150].reshape(shape).astype(bool)
    assert_close(ops.dropout_do_mask(x, bits, 0.5), np.where(keep, f64(x) / 0.5, 0))


def adamw_reference(var, m, v, grad, step, lr, beta1, beta2, weight_decay, eps):
    var = var * (1 - lr * weight_decay)
    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * grad * grad
    denom = np.sqrt(v) / math.sqrt(1 - beta2**step) + eps
    return var - lr / (1 - beta1**step) * m / denom, m, v


@pytest.mark.parametrize("dtype", [np.float32, BF16])
def test_apply_adam_w(rng, dtype):
    var, m, v = (make(rng, (5, 7), dtype, True) for _ in range(3))
    v = np.abs(v)
    grad = make(rng, (5, 7), dtype, True)
    hyper = dict(lr=0.01, beta1=0.9, beta2=0.999, weight_decay=0.1, eps=1e-8)
    golden = adamw_reference(f64(var), f64(m), f64(v), f64(grad), 3, **hyper)
    copies = [x.copy() for x in (var, m, v)]
    step = np.array([3], np.int64)
    ops.apply_adam_w_v2(var, m, v, None, grad, step, hyper["lr"], hyper["beta1"], hyper["beta2"],
                        hyper["weight_decay"], hyper["eps"])
    for got, want in zip((var, m, v), golden):
        assert_close(got, want)
    if dtype != np.float32:
        return
    # V1: the hyperparameters as one-element arrays of var's dtype (FLOAT here: BFLOAT16 would
    # round beta2 to 1), the beta powers those of the previous step.
    one = {k: np.array([val], np.float32) for k, val in hyper.items()}
    ops.apply_adam_w(*copies, np.array([0.9**2], np.float32), np.array([0.999**2], np.float32),
                     one["lr"], one["weight_decay"], one["beta1"], one["beta2"], one["eps"], grad)
    for got, want in zip(copies, golden):
        assert_close(got, want)


# --- outputs given by the caller ---------------------------------------------------------------


def test_out_arrays_are_written_and_returned(rng):
    x = make(rng, (4, 6), np.float32)
    out = np.empty((4, 6), np.float32)
    assert ops.softmax(x, -1, out=out) is out
    base = np.zeros((4, 12), np.float32)
    strided_out = base[:, ::2]
    ops.gelu_v2(x, 0, out=strided_out)
    assert_close(strided_out, gelu_erf(f64(x)))
    assert (base[:, 1::2] == 0).all()  # nothing written between the view's elements
    y, mean, rstd = ops.layer_norm(x, [6], out=(np.empty((4, 6), BF16), None, None))
    assert y.dtype == BF16 and mean is None and rstd is None
    assert_close(y, layer_norm_reference(f64(x), 1, None, None, 1e-5)[0])


def test_empty_and_zero_dim(rng):
    empty = np.zeros((0, 5), np.float32)
    assert ops.softmax(empty, -1).shape == (0, 5)
    scalar = np.array(2.0, np.float32)
    assert float(ops.mul(scalar, scalar)) == 4.0
    assert ops.reduce_sum(np.ones((2, 3), np.float32), ()).shape == ()


def test_negative_strides_are_read_in_place(rng):
    a = make(rng, (5, 6), np.float32)
    reversed_view = a[::-1, ::-2]
    assert_close(ops.add(reversed_view, 1.0), f64(reversed_view) + 1)
    out = np.zeros((5, 6), np.float32)
    ops.softmax(a, -1, out=out[:, ::-1])
    e = np.exp(f64(a) - f64(a).max(-1, keepdims=True))
    assert_close(out[:, ::-1], e / e.sum(-1, keepdims=True))
