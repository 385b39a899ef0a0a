#!/usr/bin/env python3
"""Chart of scripts/cache_study.py's CSV: each policy's mean gap to OPT on the tuning set, the
validation set and the short traces (lower is better).

    python3 scripts/plot_cache_study.py docs/data/cache-policies.csv docs/img/cache-policies.png

Needs matplotlib (pip install matplotlib).
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

GROUPS = [("tuning", "tuning set (1/2x, 1x, 2x)"), ("validation", "validation set (1/2x, 1x, 2x)"),
          ("short", "short traces (first 5,000 accesses)")]


def main(src, dst):
    with open(src, newline="") as f:
        rows = list(csv.DictReader(f))
    policies = [c for c in rows[0].keys() if c not in ("trace", "set", "size", "entries", "opt")]
    gaps = defaultdict(list)
    for r in rows:
        group = "short" if r["size"] == "short" else r["set"]
        for p in policies:
            gaps[(group, p)].append(float(r["opt"]) - float(r[p]))
    fig, ax = plt.subplots(figsize=(11, 4.5))
    width = 0.8 / len(GROUPS)
    for g, (group, label) in enumerate(GROUPS):
        means = [sum(gaps[(group, p)]) / len(gaps[(group, p)]) for p in policies]
        ax.bar([i + (g - 1) * width for i in range(len(policies))], means, width, label=label)
    ax.set_xticks(range(len(policies)))
    ax.set_xticklabels(policies, rotation=20)
    ax.set_ylabel("mean gap to OPT (hit ratio)")
    ax.set_title("Every policy on the shared traces: tuning vs validation (hotscore = the default)")
    ax.axhline(0.05, color="k", linestyle=":", linewidth=1)
    ax.legend()
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
