#!/usr/bin/env python3
"""Charts of the scbf vs Apache Phoenix run that `mvn -B -Pphoenix,bench-phoenix verify` writes.

    python3 scripts/plot_phoenix.py docs/data/bench-phoenix.csv docs/img

makes phoenix-writes.png (load and update throughput of each configuration as a ratio to the
unindexed table of the same system) and phoenix-queries.png (median cold and hot latency per
query kind). Needs matplotlib (pip install matplotlib).
"""
import csv
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    values = defaultdict(dict)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            values[(r["kind"], r["configuration"])][r["metric"]] = float(r["value"])
    return values


def writes(values, out):
    configs = [c for (k, c) in values if k == "write" and not c.endswith("plain") and c != "P_PLAIN"]
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.38
    for i, metric in enumerate(["load_ratio", "update_ratio"]):
        ax.bar([x + i * width for x in range(len(configs))],
               [values[("write", c)][metric] for c in configs], width,
               label=metric.replace("_ratio", ""))
    ax.set_xticks([x + width / 2 for x in range(len(configs))], configs, rotation=20)
    ax.set_ylabel("throughput / unindexed (same system)")
    ax.axhline(1.0, color="grey", lw=0.5)
    ax.legend()
    ax.set_title("Indexed writes: scbf (bench_*) vs Phoenix 5.2.1 (P_*)")
    fig.tight_layout()
    fig.savefig(out / "phoenix-writes.png", dpi=110)


def queries(values, out):
    configs = [c for (k, c) in values if k == "query"]
    kinds = sorted({m.rsplit("_", 2)[0] for c in configs for m in values[("query", c)]})
    fig, axes = plt.subplots(1, len(kinds), figsize=(4 * len(kinds), 4))
    for ax, kind in zip(axes, kinds):
        for i, temp in enumerate(["cold", "hot"]):
            ax.bar([x + i * 0.38 for x in range(len(configs))],
                   [values[("query", c)].get(f"{kind}_{temp}_ms", 0) for c in configs], 0.38,
                   label=temp)
        ax.set_xticks([x + 0.19 for x in range(len(configs))], configs, rotation=35, ha="right")
        ax.set_yscale("log")
        ax.set_title(kind)
        ax.set_ylabel("median ms")
        ax.legend()
    fig.tight_layout()
    fig.savefig(out / "phoenix-queries.png", dpi=110)


def main():
    values = load(sys.argv[1])
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    writes(values, out)
    queries(values, out)


if __name__ == "__main__":
    main()
