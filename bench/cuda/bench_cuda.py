#!/usr/bin/env python3
"""The GPU benchmark: openaclnn's CUDA operators against PyTorch on the same GPU.

Runs bench_cuda_ops (Google Benchmark, JSON) for LayerNorm backward and ConvTbc backward on the
CPU issues' shapes, FLOAT and BFLOAT16, together with a device-to-device copy measured in the same
run; then PyTorch's native_layer_norm_backward and conv_tbc_backward on the same shapes, timed the
same way (CUDA events around the operator only, a 64 MiB buffer overwritten before each repetition
so the 50 MB L2 holds none of the operands). Prints a Markdown table of medians with:
  - LayerNorm backward: achieved GB/s and its ratio to the same-run copy bandwidth;
  - ConvTbc backward: TFLOP/s;
  - the speed-up over PyTorch, and geometric means per operator and dtype.

    python bench/cuda/bench_cuda.py --bench build/release/bench/bench_cuda_ops [--quick]
"""
import argparse
import json
import math
import statistics
import subprocess
import sys

FLUSH_BYTES = 64 << 20


def run_ours(bench, quick):
    args = [bench, "--benchmark_format=json", "--benchmark_repetitions=5",
            "--benchmark_report_aggregates_only=true"]
    if quick:
        args.append("--benchmark_filter=DeviceCopy|M16384_N1024|M401408_N24|T32_B128_Cin512_Cout1024_K3_pad1")
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    if not out.lstrip().startswith("{"):
        print(out.strip())
        return None
    results = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        results[b["run_name"]] = b
    return results


def torch_ms(fn, reps=20):
    import torch
    flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")
    fn()
    torch.cuda.synchronize()
    times = []
    for i in range(reps):
        flush.fill_(i & 0xFF)
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def torch_layer_norm(m, n, dtype):
    import torch
    tdt = torch.float32 if dtype == "FLOAT" else torch.bfloat16
    dy = torch.rand(m, n, device="cuda").mul_(2).sub_(1).to(tdt)
    x = torch.rand(m, n, device="cuda").mul_(3).sub_(2).to(tdt)
    mean = torch.full((m, 1), -0.5, device="cuda")
    rstd = torch.full((m, 1), 0.65, device="cuda")
    w = torch.ones(n, device="cuda", dtype=tdt)
    b = torch.zeros(n, device="cuda", dtype=tdt)
    op = torch.ops.aten.native_layer_norm_backward
    return torch_ms(lambda: op(dy, x, [n], mean, rstd, w, b, [True, True, True]))


def torch_conv(t_in, batch, c_in, c_out, taps, pad, dtype):
    import torch
    tdt = torch.float32 if dtype == "FLOAT" else torch.bfloat16
    t_out = t_in + 2 * pad + 1 - taps
    dy = torch.randn(t_out, batch, c_out, device="cuda").to(tdt)
    x = torch.randn(t_in, batch, c_in, device="cuda").to(tdt)
    w = (0.1 * torch.randn(taps, c_in, c_out, device="cuda")).to(tdt)
    b = torch.zeros(c_out, device="cuda", dtype=tdt)
    op = torch.ops.aten.conv_tbc_backward
    return torch_ms(lambda: op(dy, x, w, b, pad))


def parse(name):
    op, dtype, shape = name.split("/")
    fields = {}
    for part in shape.split("_"):
        key = part.rstrip("0123456789")
        fields[key] = int(part[len(key):])
    return op, dtype, fields


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench", default="build/release/bench/bench_cuda_ops")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    ours = run_ours(args.bench, args.quick)
    if ours is None:
        return 0
    try:
        import torch
        have_torch = torch.cuda.is_available()
    except ImportError:
        have_torch = False
    copy = next((v for k, v in ours.items() if k.startswith("DeviceCopy")), None)
    copy_gbps = copy["GBps"] / 1e9 if copy else float("nan")
    print(f"Device-to-device copy, same run: {copy_gbps:.0f} GB/s (read + write)\n")
    print("| operator | dtype | shape | ours ms | GB/s or TFLOP/s | % of copy BW | torch ms | "
          "speed-up |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    speedups = {}
    bw_target = []
    for run_name, b in sorted(ours.items()):
        if run_name.startswith("DeviceCopy"):
            continue
        # Google Benchmark appends "/min_time:..." and "/manual_time" to the registered name.
        name = "/".join(p for p in run_name.split("/") if ":" not in p and p != "manual_time")
        op, dtype, f = parse(name)
        ms = b["real_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
        peer = float("nan")
        if op == "LayerNormBackward":
            rate = b["GBps"] / 1e9
            share = 100 * rate / copy_gbps
            rate_text, share_text = f"{rate:.0f} GB/s", f"{share:.0f} %"
            if f["M"] >= 8192 and f["N"] >= 768:
                bw_target.append((name, share))
            if have_torch:
                peer = torch_layer_norm(f["M"], f["N"], dtype)
        else:
            rate_text, share_text = f"{b['TFLOPs'] / 1e12:.1f} TFLOP/s", "-"
            if have_torch:
                peer = torch_conv(f["T"], f["B"], f["Cin"], f["Cout"], f["K"], f["pad"], dtype)
        speedup = peer / ms if peer == peer else float("nan")
        speedups.setdefault((op, dtype), []).append(speedup)
        print(f"| {op} | {dtype} | {name.split('/')[2]} | {ms:.3f} | {rate_text} | {share_text} | "
              f"{peer:.3f} | {speedup:.2f}x |")
    print()
    for (op, dtype), values in sorted(speedups.items()):
        print(f"geometric mean speed-up over torch, {op} {dtype}: {geomean(values):.2f}x")
    if bw_target:
        worst = min(bw_target, key=lambda item: item[1])
        print(f"LayerNorm backward, M >= 8192 and N >= 768: lowest share of copy bandwidth "
              f"{worst[1]:.0f} % ({worst[0]}); target 85 %")
    if not have_torch:
        print("(PyTorch with CUDA is not available here: no peer column)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
