"""openaclnn: Huawei CANN's aclnn operators on the CPU (and CUDA GPUs) for NumPy and PyTorch.

    import numpy as np, openaclnn
    x = np.random.rand(4, 8).astype(np.float32)
    out, mean, rstd = openaclnn.layer_norm(x, [8])

Every function of aclnn's operators is here in snake case (layer_norm, conv_tbc_backward, ...);
failures raise AclnnError. ``openaclnn.torch.enable()`` runs PyTorch's CPU operators on openaclnn.
"""

from . import _C
from ._arrays import bfloat16  # noqa: F401
from ._errors import AclnnError  # noqa: F401
from ._ops import *  # noqa: F401,F403

__version__ = "0.1.0"


class deterministic:
    """The determinism switch (ACL_OPT_DETERMINISTIC through aclrtSetSysParamOpt).

    ``openaclnn.deterministic(True)`` sets it; ``with openaclnn.deterministic(True): ...`` sets it
    for the block and restores the previous value after.
    """

    def __init__(self, enabled=True):
        self._previous = _C.get_deterministic()
        _C.set_deterministic(1 if enabled else 0)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C.set_deterministic(self._previous)
        return False


def is_deterministic():
    return _C.get_deterministic() != 0


def set_device(name):
    """Runs openaclnn on "cpu" or "cuda" (GPU 0). Call before the first operator: the device is
    fixed for the process then. "cuda" without a GPU raises AclnnError (107001)."""
    _C.set_device(name)


def device():
    """"cpu" or "cuda"; "unset" before the first operator or set_device."""
    return _C.device()
