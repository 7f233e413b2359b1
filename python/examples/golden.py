"""Golden data from openaclnn for operator test tools: for each case, the inputs and openaclnn's
outputs as raw little-endian .bin files, and one JSON index describing them.

    python golden.py --out out/golden [--dtypes float32,bfloat16] [--seed 0]

Layout: <out>/<case>/<tensor>.bin holds the bytes of the tensor's storage (the span its
elements cover); index.json lists per case the aclnn operator, its scalar parameters and every
input and output tensor with "file", "shape", "dtype" (NumPy name: float32, bfloat16, int64,
...), "strides" and "offset" in elements into that file. Most tensors are contiguous (strides
row-major, offset 0); cases whose name ends in "_strided" take views with an offset and gaps,
read in place by openaclnn as a test tool should read them.
"""

import argparse
import json
import os

import numpy as np

import openaclnn

BF16 = openaclnn.bfloat16


def storage(array):
    """(bytes of the storage span, strides in elements, offset in elements) of a view with
    non-negative strides: the span runs from its first element to its last."""
    item = array.itemsize
    strides = [s // item for s in array.strides]
    if any(s < 0 for s in strides):
        raise ValueError("golden: negative strides are not written")
    if array.size == 0:
        return b"", strides, 0
    span = 1 + sum((n - 1) * s for n, s in zip(array.shape, strides))
    flat = np.lib.stride_tricks.as_strided(array, shape=(span,), strides=(item,), writeable=False)
    return flat.tobytes(), strides, 0


def write_tensor(folder, case, name, array):
    data, strides, offset = storage(np.asarray(array))
    relative = os.path.join(case, f"{name}.bin")
    with open(os.path.join(folder, relative), "wb") as f:
        f.write(data)
    return {"name": name, "file": relative, "shape": list(np.shape(array)),
            "dtype": np.asarray(array).dtype.name, "strides": strides, "offset": offset}


def cases(rng, dtype):
    """(name, aclnn operator, parameters, inputs dict, function giving the outputs dict)."""

    def r(*shape, low=-1.0, high=1.0):
        return rng.uniform(low, high, shape).astype(dtype)

    x, w, b = r(8, 32), r(32, low=0.5, high=1.5), r(32)
    _, mean, rstd = openaclnn.layer_norm(x, [32], w, b)
    dy = r(8, 32)
    seq, conv_w, conv_b = r(12, 2, 16), r(3, 16, 8), r(8)
    grad_conv = r(12, 2, 8)
    wide = r(6, 24)
    strided = wide[1:, 2::2]  # (5, 11): offset 26, row stride 24, column stride 2
    return [
        ("layer_norm", "aclnnLayerNorm", {"normalizedShape": [32], "eps": 1e-5},
         {"input": x, "weight": w, "bias": b},
         lambda i: dict(zip(("out", "mean", "rstd"),
                            openaclnn.layer_norm(i["input"], [32], i["weight"], i["bias"])))),
        ("layer_norm_backward", "aclnnLayerNormBackward",
         {"normalizedShape": [32], "outputMask": [True, True, True]},
         {"gradOut": dy, "input": x, "mean": mean, "rstd": rstd, "weight": w, "bias": b},
         lambda i: dict(zip(("gradInput", "gradWeight", "gradBias"), openaclnn.layer_norm_backward(
             i["gradOut"], i["input"], [32], i["mean"], i["rstd"], i["weight"], i["bias"])))),
        ("conv_tbc", "aclnnConvTbc", {"pad": 1}, {"self": seq, "weight": conv_w, "bias": conv_b},
         lambda i: {"output": openaclnn.conv_tbc(i["self"], i["weight"], i["bias"], 1)}),
        ("conv_tbc_backward", "aclnnConvTbcBackward", {"pad": 1},
         {"self": grad_conv, "input": seq, "weight": conv_w, "bias": conv_b},
         lambda i: dict(zip(("gradInput", "gradWeight", "gradBias"), openaclnn.conv_tbc_backward(
             i["self"], i["input"], i["weight"], i["bias"], 1)))),
        ("softmax_strided", "aclnnSoftmax", {"dim": -1}, {"self": strided},
         lambda i: {"out": openaclnn.softmax(i["self"], -1)}),
        ("gelu_v2", "aclnnGeluV2", {"approximate": 0}, {"x": x},
         lambda i: {"y": openaclnn.gelu_v2(i["x"], 0)}),
        ("rms_norm", "aclnnRmsNorm", {"epsilon": 1e-6}, {"x": x, "gamma": w},
         lambda i: dict(zip(("yOut", "rstdOut"), openaclnn.rms_norm(i["x"], i["gamma"], 1e-6)))),
        ("mm", "aclnnMm", {"cubeMathType": 0}, {"self": x, "mat2": r(32, 16)},
         lambda i: {"out": openaclnn.mm(i["self"], i["mat2"])}),
        ("add_strided", "aclnnAdd", {"alpha": 0.5}, {"self": strided, "other": r(11)},
         lambda i: {"out": openaclnn.add(i["self"], i["other"], 0.5)}),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="golden", help="output folder (default: golden)")
    parser.add_argument("--dtypes", default="float32,bfloat16")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    index = {"generator": "openaclnn " + openaclnn.__version__, "seed": args.seed, "cases": []}
    for dtype_name in args.dtypes.split(","):
        dtype = BF16 if dtype_name == "bfloat16" else np.dtype(dtype_name)
        rng = np.random.default_rng(args.seed)
        for name, operator, params, inputs, run in cases(rng, dtype):
            case = f"{name}_{dtype_name}"
            os.makedirs(os.path.join(args.out, case), exist_ok=True)
            outputs = run(inputs)
            index["cases"].append({
                "name": case, "operator": operator, "dtype": dtype_name, "params": params,
                "inputs": [write_tensor(args.out, case, k, v) for k, v in inputs.items()],
                "outputs": [write_tensor(args.out, case, k, v) for k, v in outputs.items()],
            })
    with open(os.path.join(args.out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    print(f"golden: {len(index['cases'])} cases written to {args.out}/index.json")


if __name__ == "__main__":
    main()
