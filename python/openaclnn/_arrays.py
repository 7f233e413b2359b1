"""Arrays as the extension takes them, and outputs allocated like the inputs (NumPy or torch)."""

import ml_dtypes
import numpy as np

bfloat16 = np.dtype(ml_dtypes.bfloat16)

# aclDataType codes (acl/acl_base.h).
ACL_DTYPES = {
    np.dtype(np.float32): 0,
    np.dtype(np.float16): 1,
    np.dtype(np.int8): 2,
    np.dtype(np.int32): 3,
    np.dtype(np.uint8): 4,
    np.dtype(np.int16): 6,
    np.dtype(np.uint16): 7,
    np.dtype(np.uint32): 8,
    np.dtype(np.int64): 9,
    np.dtype(np.uint64): 10,
    np.dtype(np.float64): 11,
    np.dtype(np.bool_): 12,
    bfloat16: 27,
}
FLOATING = (np.dtype(np.float16), bfloat16, np.dtype(np.float32), np.dtype(np.float64))


def acl_dtype(dtype):
    """The aclDataType code of a NumPy (or ml_dtypes, or torch) dtype."""
    dtype = numpy_dtype(dtype)
    if dtype not in ACL_DTYPES:
        raise TypeError(f"openaclnn: no aclDataType for dtype {dtype}")
    return ACL_DTYPES[dtype]


def is_torch(x):
    return type(x).__module__.startswith("torch")


def numpy_dtype(dtype):
    """np.dtype of a NumPy dtype-like or a torch.dtype."""
    if type(dtype).__module__.startswith("torch"):
        name = str(dtype).split(".")[-1]
        return bfloat16 if name == "bfloat16" else np.dtype("bool" if name == "bool" else name)
    return np.dtype(dtype)


def dtype_of(x):
    return numpy_dtype(x.dtype)


def shape_of(x):
    return tuple(int(d) for d in x.shape)


def arg(x):
    """A tensor argument for the extension: bfloat16 NumPy arrays go as their uint16 view."""
    if x is None:
        return None
    if is_torch(x):
        return x.detach()  # DLPack refuses tensors that require grad; the view shares memory
    if not isinstance(x, np.ndarray) and not hasattr(x, "__dlpack__"):
        x = np.asarray(x)
    if isinstance(x, np.ndarray) and x.dtype == bfloat16:
        return (x.view(np.uint16), ACL_DTYPES[bfloat16])
    return x


def empty(like, shape, dtype):
    """A new array of `shape` and `dtype`: a torch tensor if `like` is one, else NumPy."""
    dtype = numpy_dtype(dtype)
    if is_torch(like):
        import torch

        name = "bfloat16" if dtype == bfloat16 else str(dtype)
        return torch.empty(tuple(shape), dtype=getattr(torch, "bool" if name == "bool" else name))
    return np.empty(tuple(shape), dtype)


def check_writable(*arrays):
    """Arrays an operator writes must be writable (NumPy's read-only arrays and broadcast views
    are refused before the library could write them)."""
    for x in arrays:
        if isinstance(x, np.ndarray) and not x.flags.writeable:
            raise ValueError("openaclnn: an array the operator writes is read-only")


def outputs(out, specs):
    """The output arrays: `out` when given (one array or a sequence, None where not wanted), else
    new ones for each (like, shape, dtype) in `specs` (None for an output not computed)."""
    if out is None:
        return [None if spec is None else empty(*spec) for spec in specs]
    given = list(out) if isinstance(out, (tuple, list)) else [out]
    if len(given) != len(specs):
        raise ValueError(f"openaclnn: out must hold {len(specs)} arrays, got {len(given)}")
    check_writable(*given)
    return given
