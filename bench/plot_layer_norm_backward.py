#!/usr/bin/env python3
"""Draws the table printed by bench_layer_norm_backward as a picture.

Usage: plot_layer_norm_backward.py BENCH_OUTPUT.txt OUT.png

BENCH_OUTPUT.txt is what the benchmark printed (its Google Benchmark lines may stay in: only the
rows of its first markdown table, the issue's shapes, are read). The upper panel shows each
shape's fraction of its same-run floor, FLOAT and BF16 side by side, with the issue's 80 % target;
the lower one the speed-up over oneDNN and PyTorch where the run measured them (log scale, 1x
marked). Needs matplotlib (Debian's python3-matplotlib); exits with status 2 and a message
without it or when the file holds no table.
"""

import re
import sys


def parse_rows(text):
    """The rows of the first table: (shape, dtype, of floor, oneDNN / ours, PyTorch / ours)."""
    rows = []
    in_table = False
    for line in text.splitlines():
        if line.startswith("| shape"):
            if rows:
                break  # the small problems' table follows; it is not the issue's
            in_table = True
            continue
        if not in_table:
            continue
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 10 or cells[0].startswith("---"):
            continue
        floor = re.match(r"([\d.]+) %", cells[5])
        if floor is None:
            continue

        def ratio(cell):
            return float(cell) if re.fullmatch(r"[\d.]+", cell) else None

        rows.append((cells[0], cells[1], float(floor.group(1)), ratio(cells[7]), ratio(cells[9])))
    return rows


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_layer_norm_backward: matplotlib is not installed (Debian: python3-matplotlib)",
              file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8", errors="replace") as f:
        text = f.read()
    rows = parse_rows(text)
    if not rows:
        print(f"plot_layer_norm_backward: no benchmark table in {argv[1]}", file=sys.stderr)
        return 2
    title = next((l for l in text.splitlines() if l.startswith("openaclnn LayerNorm backward")),
                 "openaclnn LayerNorm backward")

    shapes = []
    for shape, *_ in rows:
        if shape not in shapes:
            shapes.append(shape)
    dtypes = ["FLOAT", "BF16"]
    by_key = {(r[0], r[1]): r for r in rows}
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(12, 8.5), sharex=True)
    width = 0.38
    colours = {"FLOAT": "#3b6ea8", "BF16": "#e08a2c"}
    for k, dtype in enumerate(dtypes):
        xs = [i + (k - 0.5) * width for i, s in enumerate(shapes) if (s, dtype) in by_key]
        ys = [by_key[(s, dtype)][2] for s in shapes if (s, dtype) in by_key]
        bars = top.bar(xs, ys, width, label=dtype, color=colours[dtype])
        top.bar_label(bars, labels=[f"{y:.0f}" for y in ys], fontsize=7, padding=1)
    top.axhline(80, color="#b22222", linestyle="--", linewidth=1, label="target: 80 % of the floor")
    top.set_ylim(0, max(100, max(r[2] for r in rows)) * 1.22)  # room for the legend
    top.set_ylabel("% of the same-run floor")
    top.set_title(title, fontsize=10)
    top.legend(fontsize=8, loc="upper left", ncol=3)
    top.grid(axis="y", alpha=0.3)

    peers = [("oneDNN", 3, "#5a9e5a"), ("PyTorch", 4, "#8e5aa8")]
    drawn = False
    for k, (peer, column, colour) in enumerate(peers):
        for d, dtype in enumerate(dtypes):
            points = [(i, by_key[(s, dtype)][column]) for i, s in enumerate(shapes)
                      if (s, dtype) in by_key and by_key[(s, dtype)][column] is not None]
            if not points:
                continue
            drawn = True
            offset = (k - 0.5) * width + (d - 0.5) * width / 2
            bottom.bar([i + offset for i, _ in points], [v for _, v in points], width / 2,
                       label=f"{peer} / ours, {dtype}", color=colour,
                       alpha=1.0 if dtype == "FLOAT" else 0.55)
    bottom.axhline(1, color="black", linewidth=0.8)
    bottom.set_yscale("log")
    bottom.set_ylabel("peer time / our time (higher: we are faster)")
    bottom.grid(axis="y", alpha=0.3, which="both")
    if drawn:
        bottom.set_ylim(top=bottom.get_ylim()[1] * 4)  # room for the legend
        bottom.legend(fontsize=8, loc="upper left", ncol=4)
    else:
        bottom.text(0.5, 0.5, "no peer measured in this run", ha="center", va="center",
                    transform=bottom.transAxes)
    bottom.set_xticks(range(len(shapes)))
    bottom.set_xticklabels([s.replace(" over last 2", "\nover last 2") for s in shapes],
                           rotation=30, ha="right", fontsize=8)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=110)
    print(f"plot_layer_norm_backward: wrote {argv[2]} ({len(rows)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
