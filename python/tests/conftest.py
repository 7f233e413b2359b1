"""Shared helpers: inputs in each dtype (contiguous or strided views), CANN's tolerances."""

import ml_dtypes
import numpy as np
import pytest

BF16 = np.dtype(ml_dtypes.bfloat16)
FLOAT_DTYPES = [np.dtype(np.float32), np.dtype(np.float16), BF16]
# CANN's precision standard (docs/numerics.md): |actual - golden| <= atol + rtol * |golden|.
TOLERANCE = {np.dtype(np.float32): (2**-10, 2**-16), np.dtype(np.float16): (2**-9, 2**-9),
             BF16: (2**-6, 2**-6), np.dtype(np.float64): (1e-12, 1e-12)}


def f64(x):
    """float64 copy of an array (NumPy of any dtype, or a torch tensor)."""
    if hasattr(x, "detach"):
        x = x.detach().float().numpy()
    return np.asarray(x).astype(np.float64)


def assert_close(actual, golden, dtype=None):
    dtype = np.dtype(dtype if dtype is not None else actual.dtype)
    rtol, atol = TOLERANCE[dtype]
    golden = np.asarray(golden, np.float64)
    assert tuple(actual.shape) == golden.shape, (actual.shape, golden.shape)
    got = f64(actual)
    excess = np.abs(got - golden) - (atol + rtol * np.abs(golden))
    worst = np.unravel_index(np.argmax(excess), excess.shape) if excess.size else None
    assert excess.size == 0 or excess.max() <= 0, (
        f"{dtype}: worst at {worst}: got {got[worst]}, golden {golden[worst]}")


def make(rng, shape, dtype, strided=False, low=-1.0, high=1.0):
    """Random values in [low, high) of `dtype`; strided=True gives a view with an offset and a
    stride of 2 on the last dim (and a transposed walk for rank >= 2) into a larger buffer."""
    shape = tuple(shape)
    if not strided:
        return rng.uniform(low, high, shape).astype(dtype)
    if len(shape) >= 2:
        base = make(rng, shape[:-2] + (shape[-1], 2 * shape[-2] + 1), dtype, False, low, high)
        return np.swapaxes(base[..., 1::2], -1, -2)
    base = rng.uniform(low, high, (2 * shape[0] + 3,) if shape else (2,)).astype(dtype)
    return base[3::2] if shape else base[1:].reshape(())


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
