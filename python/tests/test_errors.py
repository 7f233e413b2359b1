"""Failures: aclnn's status code and message as openaclnn.AclnnError, nothing on stderr; wrong
Python argument types as TypeError."""

import numpy as np
import pytest

import openaclnn as ops
from openaclnn import _C


def test_aclnn_error_is_a_runtime_error():
    assert issubclass(ops.AclnnError, RuntimeError)


def test_wrong_dtype_is_161002_with_the_message(capfd):
    x = np.ones((2, 8), np.int32)
    with pytest.raises(ops.AclnnError) as caught:
        ops.layer_norm(x, [8])
    assert caught.value.code == 161002
    assert "aclnnLayerNorm" in caught.value.message and "INT32" in caught.value.message
    assert "161002" in str(caught.value)
    assert capfd.readouterr() == ("", "")  # raised, not printed


def test_none_where_required_is_161001():
    x = np.ones((2, 8), np.float32)
    _, mean, rstd = ops.layer_norm(x, [8])
    with pytest.raises(ops.AclnnError) as caught:
        ops.layer_norm_backward(x, x, [8], None, rstd)
    assert caught.value.code == 161001
    assert "mean" in caught.value.message
    with pytest.raises(ops.AclnnError) as caught:
        _C.Softmax(None, -1, np.empty((2, 8), np.float32))
    assert caught.value.code == 161001 and "self" in caught.value.message


def test_wrong_shapes_are_161002():
    x = np.ones((3, 4), np.float32)
    with pytest.raises(ops.AclnnError) as caught:
        ops.softmax(x, -1, out=np.empty((4, 3), np.float32))
    assert caught.value.code == 161002 and "out" in caught.value.message
    with pytest.raises(ops.AclnnError) as caught:
        ops.softmax(x, 5)
    assert caught.value.code == 161002 and "dim" in caught.value.message
    with pytest.raises(ops.AclnnError) as caught:
        ops.mm(x, x)
    assert caught.value.code == 161002


def test_bad_indices_and_values():
    weight = np.ones((4, 2), np.float32)
    with pytest.raises(ops.AclnnError) as caught:
        ops.nll_loss(np.zeros((2, 4), np.float32), np.array([0, 7], np.int64), None, 1, -100)
    # Targets are read when the operator runs: the stream reports the failed task (507015) with
    # the operator's own status and message.
    assert caught.value.code == 507015
    assert "target element 1 is 7" in caught.value.message and "161002" in caught.value.message
    with pytest.raises(ops.AclnnError) as caught:
        ops.gelu_backward_v2(weight, weight, "fast")
    assert caught.value.code == 161002 and "approximate" in caught.value.message


def test_python_argument_errors_are_type_errors():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(TypeError, match="takes 3 arguments"):
        _C.Softmax(x, -1)
    with pytest.raises(TypeError, match="argument 1"):
        _C.Softmax(x, "last", x)
    with pytest.raises(TypeError, match="argument 0"):
        _C.Softmax(object(), -1, x)
    with pytest.raises(TypeError):
        ops.cast(x, np.dtype("datetime64[s]"))


def test_error_leaves_the_library_usable():
    with pytest.raises(ops.AclnnError):
        ops.softmax(np.ones((2, 2), np.int64), -1)
    np.testing.assert_allclose(ops.softmax(np.zeros((2, 2), np.float32), -1), 0.5)


def test_read_only_outputs_and_out_counts_are_refused():
    x = np.ones((2, 3), np.float32)
    frozen = np.zeros((2, 3), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ops.softmax(x, -1, out=frozen)
    with pytest.raises(ValueError, match="read-only"):
        ops.inplace_zero(np.broadcast_to(np.float32(1), (2, 3)))
    with pytest.raises(ValueError, match="read-only"):
        ops.apply_adam_w_v2(frozen, x.copy(), x.copy(), None, x, np.array([1], np.int64), 0.1,
                            0.9, 0.99, 0.0, 1e-8)
    assert (frozen == 0).all()
    with pytest.raises(ValueError, match="3 arrays"):
        ops.layer_norm(x, [3], out=(x.copy(),))
    np.testing.assert_allclose(ops.softmax(frozen, -1), 1 / 3)  # read-only inputs are fine
