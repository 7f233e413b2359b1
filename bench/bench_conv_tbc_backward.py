#!/usr/bin/env python3
"""aclnnConvTbcBackward against PyTorch's conv_tbc_backward on issue 4's shapes.

Runs bench_conv_tbc_backward (Google Benchmark, JSON output), then PyTorch (this interpreter's,
in subprocesses, one per environment configuration) on the same shapes and dtypes, and prints a
Markdown table: median times, GFLOP/s (counted as ../shared/notes/machine.md does), the ratio to
the fp32 FMA peak the C++ program measured in the same run, and the speed-up over PyTorch as
installed and over PyTorch in its fastest configuration (the best, per shape, of the OpenMP
settings below; its MKL BLAS has no switch that helps on this CPU).

    /opt/benchenv/bin/python bench/bench_conv_tbc_backward.py \
        --bench build/bench/bench_conv_tbc_backward [--quick] [--threads N] [--rounds N]

Each shape and dtype is measured on both sides right after each other; with --rounds N that pair
is measured N times, and the table gives the medians over the rounds of each side's times and of
the per-round speed-ups (a ratio taken within a round is steadier on a shared host whose load
drifts than one between medians measured apart).
"""
import argparse
import json
import math
import statistics
import subprocess
import sys
import time

SHAPES = [  # (T_in, B, Cin, Cout, K, pad)
    (32, 128, 512, 1024, 3, 1), (32, 128, 512, 1024, 3, 2), (32, 128, 1024, 2048, 3, 1),
    (32, 128, 1024, 4096, 1, 0), (30, 100, 768, 1536, 3, 1), (100, 40, 512, 1024, 3, 1),
    (25, 160, 256, 512, 3, 1), (1024, 1, 850, 1700, 6, 5), (64, 16, 64, 64, 3, 1),
    (64, 32, 512, 512, 31, 15),
]
QUICK = [0, 3, 8]
# Seconds between measurements: OpenMP runtimes spin for up to ~0.2-0.3 s after a parallel region
# (GOMP_SPINCOUNT, KMP_BLOCKTIME); a process measured right after another would share its cores.
PAUSE_S = 1.0


def flops(shape):
    t_in, b, cin, cout, k, pad = shape
    t_out = t_in + 2 * pad + 1 - k
    steps = sum(max(0, min(t_out, t_in + pad - kk) - max(0, pad - kk)) for kk in range(k))
    return 2.0 * 2.0 * b * cin * cout * steps


def name(shape, dtype):
    t_in, b, cin, cout, k, pad = shape
    return f"ConvTbcBackward/{dtype}/T{t_in}_B{b}_Cin{cin}_Cout{cout}_K{k}_pad{pad}"


def torch_median_ms(shape, dtype, reps, min_time):
    import torch
    t_in, b, cin, cout, k, pad = shape
    t_out = t_in + 2 * pad + 1 - k
    tdt = torch.float32 if dtype == "FLOAT" else torch.bfloat16
    g = torch.Generator().manual_seed(0)
    x = torch.randn(t_in, b, cin, generator=g).to(tdt)
    w = (0.1 * torch.randn(k, cin, cout, generator=g)).to(tdt)
    bias = torch.zeros(cout, dtype=tdt)
    dy = torch.randn(t_out, b, cout, generator=g).to(tdt)
    op = torch.ops.aten.conv_tbc_backward
    op(dy, x, w, bias, pad)  # warm-up
    times = []
    start = time.perf_counter()
    while len(times) < reps or time.perf_counter() - start < min_time:
        t0 = time.perf_counter()
        op(dy, x, w, bias, pad)
        times.append(time.perf_counter() - t0)
        if len(times) >= 200:
            break
    return statistics.median(times) * 1e3


# PyTorch's OpenMP runtime spins or sleeps between calls depending on these; which is fastest
# depends on the shape, so every configuration is measured and the best kept per shape.
TORCH_CONFIGS = {
    "as installed": {},
    "OMP_NUM_THREADS=cores": {"OMP_NUM_THREADS": "{threads}"},
    "OMP_WAIT_POLICY=PASSIVE": {"OMP_WAIT_POLICY": "PASSIVE"},
}


def torch_worker(reps, min_time, threads):
    """Answers "index dtype" lines on stdin with a median time in ms (one line of JSON each)."""
    import torch
    if threads:
        torch.set_num_threads(threads)
    print(json.dumps({"info": f"PyTorch {torch.__version__}, {torch.get_num_threads()} threads"}),
          flush=True)
    for line in sys.stdin:
        index, dtype = line.split()
        print(json.dumps({"ms": torch_median_ms(SHAPES[int(index)], dtype, reps, min_time)}),
              flush=True)


class TorchWorkers:
    """One persistent PyTorch process per configuration, so shapes can be interleaved with ours
    (the development machines are shared: measuring both in the same minute keeps ratios fair)."""

    def __init__(self, quick, threads):
        import os
        self.procs = {}
        for config, env_delta in TORCH_CONFIGS.items():
            env = dict(os.environ)
            for k, v in env_delta.items():
                env[k] = v.format(threads=threads or os.cpu_count())
            cmd = [sys.executable, __file__, "--torch-worker", "--threads", str(threads)] + (
                ["--quick"] if quick else [])
            proc = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    text=True)
            self.procs[config] = proc
        self.info = None
        for proc in self.procs.values():
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError("PyTorch worker failed to start")
            self.info = json.loads(line)["info"]

    def measure(self, index, dtype):
        result = {}
        for config, proc in self.procs.items():
            time.sleep(PAUSE_S)
            proc.stdin.write(f"{index} {dtype}\n")
            proc.stdin.flush()
            result[config] = json.loads(proc.stdout.readline())["ms"]
        return result

    def close(self):
        for proc in self.procs.values():
            proc.stdin.close()
            proc.wait()


def run_ours(bench, quick, bench_filter=None):
    cmd = [bench, "--benchmark_format=json"] + (["--quick"] if quick else [])
    if bench_filter:
        cmd.append(f"--benchmark_filter={bench_filter}")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    header = [line for line in out.stdout.splitlines() if line.startswith("threads ")]
    data = json.loads(out.stdout[out.stdout.index("{"):])
    times, mins, peak = {}, {}, 0.0
    for b in data["benchmarks"]:
        base = b["run_name"].split("/iterations")[0].split("/min_time")[0]
        base = base.split("/repeats")[0].split("/manual_time")[0]
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "min":
                mins[base] = b["real_time"]
            if b.get("aggregate_name") != "median":
                continue
        times[base] = b["real_time"]  # ms (manual time)
        peak = b.get("peak_GFLOPs", peak)
    return times, mins, peak, header[0] if header else ""


def geomean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", help="path of bench_conv_tbc_backward")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--threads", type=int, default=0, help="PyTorch threads (default: all CPUs)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="measurements of each shape on both sides (medians reported)")
    ap.add_argument("--torch-worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error(f"--rounds must be at least 1, got {args.rounds}")
    indices = QUICK if args.quick else list(range(len(SHAPES)))
    reps, min_time = (3, 0.2) if args.quick else (7, 1.0)
    if args.torch_worker:
        torch_worker(reps, min_time, args.threads)
        return 0
    if not args.bench:
        ap.error("--bench is required")
    try:
        workers = TorchWorkers(args.quick, args.threads)
    except (RuntimeError, OSError):
        workers = None
    print(workers.info if workers else "PyTorch not available")
    print()
    print("| shape (T_in, B, Cin, Cout, K, pad) | dtype | ours ms (median / min) | GFLOP/s | "
          "FMA peak GFLOP/s | % of peak | PyTorch ms (as installed / fastest) | "
          "PyTorch GFLOP/s (fastest) | speed-up (as installed / fastest) |")
    print("|---|---|---|---|---|---|---|---|---|")
    speedups = {("FLOAT", 0): [], ("BF16", 0): [], ("FLOAT", 1): [], ("BF16", 1): []}
    gflops = {}
    header = ""
    for index in indices:
        shape = SHAPES[index]
        for dtype in ("FLOAT", "BF16"):
            key = name(shape, dtype)
            # Ours and PyTorch's right after each other, with the peak measured in the same run.
            # The pause lets the previous PyTorch process's OpenMP threads stop spinning.
            ours, mins_over, peaks, shipped_over, best_over = [], [], [], [], []
            theirs_over = {}
            for _ in range(args.rounds):
                time.sleep(PAUSE_S)
                times, mins, peak, header = run_ours(args.bench, args.quick, "^" + key + "(/|$)")
                if key not in times:
                    break
                ours.append(times[key])
                mins_over.append(mins.get(key, times[key]))
                peaks.append(peak)
                if workers:
                    theirs = workers.measure(index, dtype)
                    for config, their_ms in theirs.items():
                        theirs_over.setdefault(config, []).append(their_ms)
                    shipped_over.append(theirs["as installed"] / times[key])
                    best_over.append(min(theirs.values()) / times[key])
            if not ours:
                continue
            ms, peak = statistics.median(ours), statistics.median(peaks)
            gf = flops(shape) / (ms * 1e-3) / 1e9
            gflops[(shape, dtype)] = gf
            row = (f"| {shape} | {dtype} | {ms:.3f} / {min(mins_over):.3f} | {gf:.0f} | "
                   f"{peak:.0f} | {100 * gf / peak:.0f} % |")
            if workers:
                theirs = {config: statistics.median(v) for config, v in theirs_over.items()}
                shipped = theirs["as installed"]
                best_cfg = min(theirs, key=theirs.get)
                best = theirs[best_cfg]
                shipped_speedup = statistics.median(shipped_over)
                best_speedup = statistics.median(best_over)
                speedups[(dtype, 0)].append(shipped_speedup)
                speedups[(dtype, 1)].append(best_speedup)
                row += (f" {shipped:.3f} / {best:.3f} ({best_cfg}) | "
                        f"{flops(shape) / (best * 1e-3) / 1e9:.0f} | "
                        f"{shipped_speedup:.2f} / {best_speedup:.2f} |")
            else:
                row += " - | - | - |"
            print(row, flush=True)
    if workers:
        workers.close()
    print()
    print(header)
    for dtype in ("FLOAT", "BF16"):
        if speedups[(dtype, 1)]:
            print(f"geometric-mean speed-up over PyTorch, {dtype}: as installed "
                  f"{geomean(speedups[(dtype, 0)]):.2f}, fastest configuration "
                  f"{geomean(speedups[(dtype, 1)]):.2f}")
    ratios = [gflops[(SHAPES[i], "BF16")] / gflops[(SHAPES[i], "FLOAT")] for i in indices
              if (SHAPES[i], "BF16") in gflops and (SHAPES[i], "FLOAT") in gflops]
    if ratios:
        print(f"BF16 throughput / FLOAT throughput: min {min(ratios):.2f}, "
              f"geometric mean {geomean(ratios):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
