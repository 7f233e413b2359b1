"""What the PyTorch peer scripts bench/bench_<op>.py share: importing torch (exiting with a clear
message where it is missing), their command line (--quick, --threads) with the "#torch <version>
<cpu capability> <threads> threads" first line the C++ benchmarks read, and the median time of
single calls.

A peer script runs as `python3 bench/bench_<op>.py`, so this folder is on its import path.
"""
import argparse
import os
import statistics
import sys
import time


def import_torch(script):
    """torch, or exit (status 1) with a message naming `script` (the caller's __file__)."""
    try:
        import torch
    except ImportError:
        sys.exit(f"{os.path.basename(script)} needs PyTorch (pip install torch); "
                 "it is not importable here")
    return torch


def start(torch):
    """Parses --quick and --threads (0: PyTorch's default), sets PyTorch's threads and prints the
    "#torch" line; returns the parsed arguments."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int, default=0, help="0: PyTorch's default")
    args = parser.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    print(f"#torch {torch.__version__} {torch.backends.cpu.get_cpu_capability()} "
          f"{torch.get_num_threads()} threads", flush=True)
    return args


def timed_indexed(call, min_calls, seconds):
    """The median seconds of single calls of `call(i)`, i counting the calls from 0 (for scripts
    that rotate over copies of their inputs), after two untimed ones: at least `min_calls` timed
    calls and `seconds` seconds. Each call is timed on its own: on a shared machine an average over
    many calls mostly measures the calls whose threads waited for a CPU."""
    for i in range(2):
        call(i)
    times = []
    begin = time.perf_counter()
    i = 2
    while len(times) < min_calls or time.perf_counter() - begin < seconds:
        t0 = time.perf_counter()
        call(i)
        times.append(time.perf_counter() - t0)
        i += 1
    return statistics.median(times)


def timed(call, min_calls, seconds):
    """timed_indexed for a `call()` that takes no index."""
    return timed_indexed(lambda _: call(), min_calls, seconds)
