#!/usr/bin/env python3
"""Chart of scripts/cache_eval.py's CSV: per trace, the hit ratio of the default policy (hotscore),
of the same without its chooser, of the best reference policy at each size, of LRU and of OPT, at 1/16x to 8x the reference capacity.

    python3 scripts/plot_cache_eval.py docs/data/cache-eight-sizes.csv docs/img/cache-eight-sizes.png

Needs matplotlib (pip install matplotlib).
"""
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

REFERENCE = ["arc", "lirs", "s3fifo", "sieve", "wtinylfu", "wtinylfu-1pct"]


def main(dst, *srcs):
    rows = []
    for src in srcs:
        with open(src, newline="") as f:
            rows += list(csv.DictReader(f))
    traces = list(dict.fromkeys(r["trace"] for r in rows))
    cols = 4
    fig, axes = plt.subplots(math.ceil(len(traces) / cols), cols, figsize=(14, 3 * math.ceil(
        len(traces) / cols)), squeeze=False)
    for ax, t in zip(axes.flat, traces):
        sel = [r for r in rows if r["trace"] == t]
        x = [int(r["entries"]) for r in sel]
        best = [max(float(r[p]) for p in REFERENCE) for r in sel]
        ax.plot(x, [float(r["hotscore"]) for r in sel], "o-", label="hotscore (default)")
        if "hotscore-adaptive" in sel[0]:
            ax.plot(x, [float(r["hotscore-adaptive"]) for r in sel], "x:", lw=0.8,
                    label="hotscore without its chooser")
        ax.plot(x, best, "s--", label="best reference policy")
        ax.plot(x, [float(r["lru"]) for r in sel], ":", color="grey", label="LRU")
        if "opt" in sel[0]:
            ax.plot(x, [float(r["opt"]) for r in sel], "-", color="black", lw=0.8, label="OPT")
        ax.set_xscale("log", base=2)
        ax.set_title(t, fontsize=10)
        ax.tick_params(labelsize=8)
    for ax in list(axes.flat)[len(traces):]:
        ax.axis("off")
    axes[0][0].legend(fontsize=7)
    fig.supxlabel("cache entries (1/16x to 8x the trace's reference capacity)")
    fig.supylabel("hit ratio")
    fig.tight_layout()
    fig.savefig(dst, dpi=90)


if __name__ == "__main__":
    main(sys.argv[1], *sys.argv[2:])
