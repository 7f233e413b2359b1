"""The five-line example at the top of docs/python.md (the README's) runs as written."""

import os
import pathlib

import pytest

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


@pytest.mark.skipif(not DOC.exists(), reason="docs/python.md is not next to this checkout")
def test_docs_example_runs():
    text = DOC.read_text()
    example = text.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(example.strip().splitlines()) == 5
    torch_wanted = os.environ.get("OPENACLNN_REQUIRE_TORCH") == "1"
    if not torch_wanted:
        pytest.importorskip("torch")
    import openaclnn.torch

    scope = {}
    try:
        exec(compile(example, str(DOC), "exec"), scope)
    finally:
        openaclnn.torch.disable()
    assert scope["dx"].shape == (4, 8) and scope["dw"].shape == (8,)
    assert openaclnn.torch.is_enabled() is False
