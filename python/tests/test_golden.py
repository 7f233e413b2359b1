"""examples/golden.py: the index describes every file, and the files read back as the views
openaclnn computed on."""

import json
import pathlib
import subprocess
import sys

import numpy as np
from conftest import BF16, assert_close, f64

GOLDEN = pathlib.Path(__file__).resolve().parent.parent / "examples" / "golden.py"


def read(folder, entry):
    dtype = BF16 if entry["dtype"] == "bfloat16" else np.dtype(entry["dtype"])
    raw = np.fromfile(folder / entry["file"], dtype)
    span = 1 + sum((n - 1) * s for n, s in zip(entry["shape"], entry["strides"]))
    assert raw.size == entry["offset"] + span
    return np.lib.stride_tricks.as_strided(raw[entry["offset"]:], entry["shape"],
                                           [s * dtype.itemsize for s in entry["strides"]])


def test_golden_files(tmp_path):
    subprocess.run([sys.executable, "-P", str(GOLDEN), "--out", str(tmp_path)], check=True,
                   timeout=120)
    index = json.loads((tmp_path / "index.json").read_text())
    names = {case["name"] for case in index["cases"]}
    assert {"layer_norm_float32", "layer_norm_bfloat16", "conv_tbc_backward_bfloat16"} <= names
    for case in index["cases"]:
        tensors = {e["name"]: read(tmp_path, e) for e in case["inputs"] + case["outputs"]}
        if case["operator"] == "aclnnMm":
            assert_close(tensors["out"], f64(tensors["self"]) @ f64(tensors["mat2"]))
        if case["operator"] == "aclnnAdd":
            assert case["inputs"][0]["strides"] == [24, 2]  # a strided view, as written
            assert_close(tensors["out"], f64(tensors["self"]) + 0.5 * f64(tensors["other"]))
