#!/usr/bin/env python3
"""Charts of the cache hit ratios that `scbf-bench cache --csv FILE` writes.

    python3 scripts/plot_cache.py docs/data/cache-hit-ratios.csv docs/img

makes cache-traces.png (one panel per trace: hit ratio vs capacity, one line
per policy, the reference capacity marked) and cache-zipf.png (one panel per
Zipf skew). Needs matplotlib (pip install matplotlib).
"""
import csv
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

POLICIES = [("opt", "OPT", "k", ":"), ("hotscore", "hotscore (adaptive)", "tab:red", "-"),
            ("paper", "paper", "tab:blue", "--"), ("lru", "LRU", "tab:green", "-.")]


def load(path):
    rows = defaultdict(list)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows[(r["kind"], r["workload"])].append(r)
    return rows


def panel(ax, rows, title, reference=None):
    rows = sorted(rows, key=lambda r: int(r["entries"]))
    x = [int(r["entries"]) for r in rows]
    for key, label, color, style in POLICIES:
        ax.plot(x, [float(r[key]) for r in rows], style, color=color, marker="o", ms=3,
                label=label)
    if reference:
        ax.axvline(reference, color="grey", lw=0.6)
    ax.set_xscale("log")
    ax.minorticks_off()
    ax.set_xticks(x)
    ax.set_xticklabels([str(v) for v in x])
    ax.set_title(title, fontsize=9)
    ax.set_xlabel("cache entries", fontsize=8)
    ax.set_ylabel("hit ratio", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(alpha=0.3)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = load(sys.argv[1])
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for kind, name, cols in (("trace", "cache-traces.png", 3), ("zipf", "cache-zipf.png", 4)):
        keys = [k for k in rows if k[0] == kind]
        if not keys:
            continue
        n = len(keys)
        nrows = (n + cols - 1) // cols
        fig, axes = plt.subplots(nrows, cols, figsize=(4 * cols, 3.2 * nrows), squeeze=False)
        for ax, key in zip(axes.flat, keys):
            ref = [int(r["entries"]) for r in rows[key] if r["reference"] == "1"]
            panel(ax, rows[key], key[1], ref[0] if ref else None)
        for ax in list(axes.flat)[n:]:
            ax.axis("off")
        axes.flat[0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        print(out / name)


if __name__ == "__main__":
    main()
