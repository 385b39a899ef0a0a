#!/usr/bin/env python3
"""Chart of the range benchmark that `mvn -B -Pphoenix,bench-range verify` writes.

    python3 scripts/plot_ranges.py docs/data/bench-ranges.csv docs/img

makes ranges.png: range queries/s by width (scbf ORDERED covered and rows, BY_VALUE rows, Phoenix's
covered global index, the filtered full scan), the first 10 of a 1% range (median and p99),
equality on ORDERED vs BY_VALUE vs Phoenix, and loads of increasing timestamps vs random values.
Needs matplotlib (pip install matplotlib).
"""
import csv
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    values = defaultdict(dict)  # (section, system, case) -> {metric: value}
    order = defaultdict(list)  # section -> systems in file order
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["section"], r["system"], r["case"])
            values[key][r["metric"]] = float(r["value"])
            if r["system"] not in order[r["section"]]:
                order[r["section"]].append(r["system"])
    return values, order


def ranges(ax, values, order):
    systems = order["range"]
    widths = []
    for (section, _, case) in values:
        if section == "range" and case not in widths:
            widths.append(case)
    bar = 0.8 / len(systems)
    for k, s in enumerate(systems):
        ax.bar([x + k * bar for x in range(len(widths))],
               [values[("range", s, w)].get("qps", 0) for w in widths], bar, label=s)
    ax.set_xticks([x + 0.4 - bar / 2 for x in range(len(widths))], [f"{w} of the rows" for w in widths])
    ax.set_yscale("log")
    ax.set_ylabel("queries/s (16 threads; scan: 1 thread)")
    ax.set_title("Ranges on a LONG column")
    ax.legend(fontsize=7)


def top10(ax, values, order):
    keys = [k for k in values if k[0] == "top10"]
    labels = [f"{s} ({c})".replace("rangeEntries", "entries") for (_, s, c) in keys]
    x = range(len(keys))
    ax.bar([i - 0.2 for i in x], [values[k]["median_ms"] for k in keys], 0.4, label="median")
    ax.bar([i + 0.2 for i in x], [values[k]["p99_ms"] for k in keys], 0.4, label="p99")
    ax.set_xticks(list(x), labels, rotation=30, ha="right", fontsize=6)
    ax.set_yscale("log")
    ax.set_ylabel("ms (1 thread, log scale)")
    ax.set_title("First 10 in value order of a 1% range")
    ax.legend(fontsize=7)


def equality(ax, values, order):
    systems = order["equality"]
    ax.bar(range(len(systems)), [values[("equality", s, "")]["qps"] for s in systems])
    ax.set_xticks(range(len(systems)), systems, rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("queries/s (16 threads)")
    ax.set_title("Equality, one row per value")


def loads(ax, values, order):
    systems = order["load"]
    keys = [k for k in values if k[0] == "load"]
    ax.bar(range(len(keys)), [values[k]["rows_per_s"] for k in keys])
    ax.set_xticks(range(len(keys)), [f"{s}\n({c})" for (_, s, c) in keys], rotation=30,
                  ha="right", fontsize=7)
    ax.set_ylabel("rows/s")
    ax.set_title("Loads into an ORDERED LONG index")
    del systems


def main():
    values, order = load(sys.argv[1])
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(2, 2, figsize=(13, 9))
    ranges(axes[0][0], values, order)
    top10(axes[0][1], values, order)
    equality(axes[1][0], values, order)
    loads(axes[1][1], values, order)
    fig.suptitle("scbf ORDERED indexes vs Phoenix 5.2.1 covered global indexes, one mini cluster")
    fig.tight_layout()
    fig.savefig(out / "ranges.png", dpi=110)


if __name__ == "__main__":
    main()
