"""The determinism switch, the device, threads."""

import subprocess
import sys
import threading

import numpy as np
import pytest

import openaclnn as ops
from openaclnn import _C


def test_deterministic_switch_and_context_manager():
    ops.deterministic(False)
    assert not ops.is_deterministic()
    with ops.deterministic(True):
        assert ops.is_deterministic() and _C.get_deterministic() == 1
        x = np.random.default_rng(0).standard_normal((64, 33)).astype(np.float32)
        first = ops.reduce_sum(x, [0])
        np.testing.assert_array_equal(first, ops.reduce_sum(x, [0]))
    assert not ops.is_deterministic()
    ops.deterministic(True)
    assert ops.is_deterministic()
    ops.deterministic(False)
    assert not ops.is_deterministic()


def test_device_is_the_cpu_after_a_call():
    ops.softmax(np.zeros((1, 2), np.float32), -1)
    assert ops.device() == "cpu"
    ops.set_device("cpu")  # already the CPU: fine
    with pytest.raises(ValueError, match="cpu"):
        ops.set_device("npu")


def test_cuda_raises_a_clear_error_without_a_gpu_or_once_on_the_cpu():
    with pytest.raises(ops.AclnnError) as caught:
        ops.set_device("cuda")
    assert caught.value.code == 107001
    if _C.cuda_device_count() == 0:
        assert "no CUDA GPU" in caught.value.message
    else:
        assert "already runs openaclnn on cpu" in caught.value.message
    assert ops.device() == "cpu"
    np.testing.assert_allclose(ops.softmax(np.zeros((1, 2), np.float32), -1), 0.5)


def test_cuda_as_the_first_call_in_a_fresh_process():
    script = (
        "import numpy as np, openaclnn as o\n"
        "try:\n    o.set_device('cuda'); print('cuda', o.device())\n"
        "except o.AclnnError as e:\n    print('error', e.code, o.device())\n"
        "print(o.softmax(np.zeros((1, 2), np.float32), -1).tolist())\n")
    result = subprocess.run([sys.executable, "-P", "-c", script], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    if _C.cuda_device_count() == 0:
        assert lines[0] == "error 107001 unset"  # the process stays free to use the CPU
    else:
        assert lines[0] == "cuda cuda"
    assert lines[1] == "[[0.5, 0.5]]"


def test_operators_from_other_threads():
    x = np.random.default_rng(1).standard_normal((32, 16)).astype(np.float32)
    expected = ops.log_softmax(x, -1)
    results = [None] * 4

    def work(i):
        results[i] = ops.log_softmax(x, -1)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        np.testing.assert_array_equal(r, expected)
