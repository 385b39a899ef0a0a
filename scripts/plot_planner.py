#!/usr/bin/env python3
"""Chart of the query planner run that PlannerBenchmark writes.

    python3 scripts/plot_planner.py docs/data/bench-planner.csv docs/img

makes planner-crossover.png: find's time against the value's share of the rows, for the index plan,
the scan plan and the plan chosen, next to a sequential full scan; one panel per index mode. The
crossover of the index and scan lines is what the planner's per-row costs encode. Needs
matplotlib (pip install matplotlib).
"""
import csv
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(path, out_dir):
    rows = defaultdict(list)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows[r["mode"]].append(r)
    fig, axes = plt.subplots(1, len(rows), figsize=(6 * len(rows), 4.2), squeeze=False)
    for ax, (mode, rs) in zip(axes[0], sorted(rows.items())):
        share = [100 * float(r["share"]) for r in rs]
        for column, label, style in [
            ("index_ms", "index plan (find, re-check)", "o-"),
            ("index_keys_ms", "index plan (row keys)", "^:"),
            ("scan_ms", "scan plan (parallel)", "s-"),
            ("baseline_ms", "sequential full scan", "x--"),
            ("planned_ms", "planned (chosen)", "D-"),
        ]:
            ax.plot(share, [float(r[column]) for r in rs], style, label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("value's share of the rows (%)")
        ax.set_ylabel("find, median ms")
        ax.set_title(f"{mode} index")
        ax.grid(True, which="both", lw=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    out = Path(out_dir) / "planner-crossover.png"
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_planner.py <bench-planner.csv> <output dir>")
    main(sys.argv[1], sys.argv[2])
