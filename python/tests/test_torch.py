"""PyTorch: CPU tensors as inputs through DLPack (no copies), and openaclnn.torch, which runs
ATen's CPU operators on openaclnn; a small fairseq-style model trained 50 steps both ways."""

import os

import numpy as np
import pytest
from conftest import assert_close, f64

import openaclnn as ops

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # the test command requires torch (OPENACLNN_REQUIRE_TORCH=1)
    if os.environ.get("OPENACLNN_REQUIRE_TORCH") == "1":
        raise
    pytest.skip("torch is not importable", allow_module_level=True)

import openaclnn.torch as ot


@pytest.fixture(autouse=True)
def torch_integration_off():
    ot.disable()
    ot.reset_stats()
    yield
    ot.disable()


# --- DLPack inputs -----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_torch_tensors_in_and_out(dtype):
    generator = torch.Generator().manual_seed(0)
    base = torch.randn(6, 11, generator=generator).to(dtype)
    x = base[1:, 2:10:2].t()  # offset, stride 2, transposed: read in place
    assert not x.is_contiguous()
    w = torch.rand(5, generator=generator).to(dtype) + 0.5
    out, mean, rstd = ops.layer_norm(x, [5], w, None)
    assert isinstance(out, torch.Tensor) and out.dtype == dtype
    golden = F.layer_norm(x.double(), [5], w.double(), None, 1e-5)
    assert_close(out.float().numpy(), f64(golden), ops._arrays.numpy_dtype(dtype))


def test_torch_out_and_requires_grad():
    x = torch.randn(4, 7, requires_grad=True)
    out = torch.empty(4, 7)
    assert ops.softmax(x, -1, out=out) is out
    assert_close(out.numpy(), f64(torch.softmax(x.double(), -1)))
    ops.inplace_mul(out, 2.0)  # writes the tensor's own memory
    assert_close(out.numpy(), f64(2 * torch.softmax(x.double(), -1)))


def test_torch_int_indices():
    weight = torch.randn(10, 3)
    indices = torch.tensor([[1, 2], [9, 0]])
    np.testing.assert_array_equal(ops.embedding(weight, indices).numpy(), weight[indices].numpy())


# --- openaclnn.torch: ATen operators on openaclnn ----------------------------------------------


def _aten_cases():
    g = torch.Generator().manual_seed(3)

    def r(*shape):
        return torch.randn(*shape, generator=g)

    x3, w_conv, b_conv = r(7, 2, 4), r(3, 4, 6), r(6)
    a, b, bias = r(4, 5), r(5, 3), r(3)
    logits = r(6, 5)
    target = torch.tensor([0, 4, 2, 1, 3, 3])
    return {
        "conv_tbc": lambda: torch.conv_tbc(x3, w_conv, b_conv, 1),
        "native_layer_norm": lambda: F.layer_norm(x3, [4], r(4), r(4)),
        "mm": lambda: a @ b,
        "addmm": lambda: torch.addmm(bias, a, b, beta=0.5, alpha=2),
        "bmm": lambda: torch.bmm(r(2, 4, 5), r(2, 5, 3)),
        "add.Tensor": lambda: a + r(5) * 1.0,
        "mul.Tensor": lambda: torch.mul(a, r(4, 1)),
        "sub.Tensor": lambda: torch.sub(a, r(5), alpha=0.5),
        "div.Tensor": lambda: (a / (r(4, 5).abs() + 0.5), torch.arange(6) / torch.tensor(4)),
        "baddbmm": lambda: torch.baddbmm(r(2, 4, 3), r(2, 4, 5), r(2, 5, 3), beta=2, alpha=0.5),
        "sum.dim_IntList": lambda: (a.sum(0), x3.sum((0, 2), keepdim=True),
                                    target.sum(0), a.sum(1, dtype=torch.float64)),
        "_softmax": lambda: torch.softmax(logits, -1),
        "_log_softmax": lambda: F.log_softmax(logits, 0),
        "gelu": lambda: (F.gelu(a), F.gelu(a, approximate="tanh")),
        "glu": lambda: F.glu(r(4, 6), -1),
        "embedding": lambda: F.embedding(target, r(5, 3)),
        "nll_loss_forward": lambda: F.nll_loss(logits, target, weight=r(5).abs()),
    }


@pytest.mark.parametrize("name", list(_aten_cases()))
def test_aten_operator_on_openaclnn_matches_torch(name):
    expected = _aten_cases()[name]()
    with ot.enabled():
        got = _aten_cases()[name]()
    assert ot.stats().get(name, 0) >= 1, ot.stats()
    for e, o in zip(expected if isinstance(expected, tuple) else (expected,),
                    got if isinstance(got, tuple) else (got,)):
        assert o.dtype == e.dtype and o.shape == e.shape
        if o.is_floating_point():
            # FLOAT inputs summed into a DOUBLE result accumulate in fp32: FLOAT's tolerance.
            tolerance = np.float32 if o.dtype == torch.float64 else ops._arrays.numpy_dtype(o.dtype)
            assert_close(o.numpy(), f64(e), tolerance)
        else:
            assert torch.equal(o, e)
    assert not ot.is_enabled()


def test_backward_operators_match_torch():
    def grads():
        g = torch.Generator().manual_seed(5)
        x = torch.randn(6, 2, 8, generator=g, requires_grad=True)
        w = torch.randn(3, 8, 8, generator=g, requires_grad=True)
        b = torch.randn(8, generator=g, requires_grad=True)
        y = F.gelu(torch.conv_tbc(x, w, b, 1))
        y = F.glu(torch.softmax(y, -1) + y, -1)
        loss = F.nll_loss(F.log_softmax(y.reshape(-1, 4), -1), torch.arange(12) % 4)
        loss.backward()
        return [loss.detach(), x.grad, w.grad, b.grad]

    expected = grads()
    with ot.enabled():
        got = grads()
    for name in ("conv_tbc_backward", "gelu_backward", "glu_backward", "_softmax_backward_data",
                 "_log_softmax_backward_data", "nll_loss_backward"):
        assert ot.stats().get(name, 0) >= 1, (name, ot.stats())
    for e, o in zip(expected, got):
        assert_close(o.numpy(), f64(e))


def test_enable_is_idempotent_and_disable_restores_torch():
    ot.enable()
    ot.enable()
    torch.softmax(torch.zeros(2, 2), -1)
    ot.disable()
    torch.softmax(torch.zeros(2, 2), -1)
    assert ot.stats() == {"_softmax": 1}


class FairseqStyle(torch.nn.Module):
    """Embedding, ConvTBC with GLU, LayerNorm, a linear layer; log-softmax and NLL loss outside."""

    def __init__(self, vocab=24, dim=16, kernel=3):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        self.conv_weight = torch.nn.Parameter(torch.randn(kernel, dim, 2 * dim) * 0.3)
        self.conv_bias = torch.nn.Parameter(torch.zeros(2 * dim))
        self.norm = torch.nn.LayerNorm(dim)
        self.project = torch.nn.Linear(dim, vocab)

    def forward(self, tokens):  # (time, batch)
        x = self.embed(tokens)
        x = F.glu(torch.conv_tbc(x, self.conv_weight, self.conv_bias, 1), dim=2)
        x = self.norm(x)
        return F.log_softmax(self.project(x.reshape(-1, x.shape[-1])), dim=-1)


def _train(steps=50):
    torch.manual_seed(0)
    model = FairseqStyle()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    data = torch.Generator().manual_seed(1)
    tokens = torch.randint(0, 24, (12, 4), generator=data)
    target = torch.roll(tokens, 1, 0).reshape(-1)  # the previous token, one step back in time
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = F.nll_loss(model(tokens), target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return np.array(losses)


def test_training_50_steps_matches_torch():
    reference = _train()
    with ot.enabled():
        on_openaclnn = _train()
    counts = ot.stats()
    assert reference[-1] < 0.5 * reference[0]  # it learns
    assert_close(on_openaclnn, reference.astype(np.float64), np.float32)
    for name in ("embedding", "embedding_dense_backward", "conv_tbc", "conv_tbc_backward", "glu",
                 "glu_backward", "native_layer_norm", "native_layer_norm_backward", "addmm", "mm",
                 "_log_softmax", "_log_softmax_backward_data", "nll_loss_forward",
                 "nll_loss_backward"):
        assert counts.get(name, 0) >= 50, (name, counts)
