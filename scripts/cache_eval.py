#!/usr/bin/env python3
"""The default policy (hotscore) against the best reference policy on every shared trace at eight
sizes, 1/16x to 8x of the trace's reference capacity (../shared/traces/README.md), with LRU and
OPT beside them (docs/benchmarks-cache.md, "Eight sizes").

Usage: scripts/cache_eval.py [--scbf build/scbf] [--traces ../shared/traces] [--csv FILE]
                             [--only t1,t2] [--jobs 2] [--no-opt] [--max-accesses N]
                             [--markdown FILE]
--max-accesses keeps each trace's first N accesses (the 5M-access traces take most of the time).
Prints one row per trace and size (hotscore, hotscore without its chooser, the best reference
policy and its name, the gap),
then the summary: rows more than 0.01 behind the best reference, the worst, the mean gap to OPT.
"""
import argparse
import concurrent.futures
import csv
import gzip
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cache_study import TRACES, run  # noqa: E402

SCALES = (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1, 2, 4, 8)
REFERENCE = ["arc", "lirs", "s3fifo", "sieve", "wtinylfu", "wtinylfu-1pct"]


def label(s):
    return "1/%dx" % round(1 / s) if s < 1 else "%dx" % s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scbf", default="build/scbf")
    ap.add_argument("--traces", default=os.environ.get("SCBF_TRACES", "../shared/traces"))
    ap.add_argument("--csv")
    ap.add_argument("--only")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-opt", action="store_true")
    ap.add_argument("--max-accesses", type=int)
    ap.add_argument("--markdown", help="also write every run as a Markdown table to this file")
    args = ap.parse_args()
    names = args.only.split(",") if args.only else list(TRACES)
    policies = ["hotscore", "hotscore-adaptive", "lru"] + REFERENCE + ([] if args.no_opt else ["opt"])

    tmp = tempfile.mkdtemp()
    jobs = []  # (trace, size label, capacity, path)
    for name in names:
        path = os.path.join(tmp, name)
        with gzip.open(os.path.join(args.traces, name + ".trace.gz"), "rt") as f, \
                open(path, "w") as out:
            for i, line in enumerate(f):
                if args.max_accesses and i >= args.max_accesses:
                    break
                out.write(line)
        for s in SCALES:
            jobs.append((name, label(s), max(2, round(TRACES[name][0] * s)), path))

    results = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run, args.scbf, p, j[2], j[3]): (j, p) for j in jobs for p in policies}
        for f in concurrent.futures.as_completed(futures):
            j, p = futures[f]
            results[(j[0], j[1], p)] = f.result()

    rows = []
    for name, size, cap, _ in jobs:
        r = {p: results[(name, size, p)] for p in policies}
        best = max(REFERENCE, key=lambda p: r[p])
        rows.append((name, size, cap, r, best))

    print("%-12s %-6s %7s  %8s  %8s  %8s %-14s %8s  %8s  %8s" % (
        "trace", "size", "entries", "hotscore", "adaptive", "best ref", "(policy)", "gap", "lru",
        "opt"))
    for name, size, cap, r, best in rows:
        print("%-12s %-6s %7d  %8.4f  %8.4f  %8.4f %-14s %+8.4f  %8.4f  %8s" % (
            name, size, cap, r["hotscore"], r["hotscore-adaptive"], r[best], best,
            r["hotscore"] - r[best], r["lru"], "%.4f" % r["opt"] if "opt" in r else "-"))
    for policy in ("hotscore", "hotscore-adaptive"):
        gaps = [r[policy] - r[best] for _, _, _, r, best in rows]
        behind = [g for g in gaps if g < -0.01]
        worst = min(rows, key=lambda row: row[3][policy] - row[3][row[4]])
        print("\n%s: %d runs; more than 0.01 behind the best reference policy in %d; worst %+.4f "
              "(%s %s, %s); mean difference %+.4f" % (
                  policy, len(rows), len(behind), worst[3][policy] - worst[3][worst[4]], worst[0],
                  worst[1], worst[4], sum(gaps) / len(gaps)))
        if "opt" in policies:
            for sel, title in ((rows, "all sizes"), ([x for x in rows if x[1] == "1x"], "1x")):
                print("  mean gap to OPT, %s: %s %.4f, best reference per run %.4f" % (
                    title, policy, sum(x[3]["opt"] - x[3][policy] for x in sel) / len(sel),
                    sum(x[3]["opt"] - x[3][x[4]] for x in sel) / len(sel)))

    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("| trace | size | entries | default | without the chooser | best reference | "
                    "default - best | LRU | OPT |\n")
            f.write("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |\n")
            for name, size, cap, r, best in rows:
                gap = r["hotscore"] - r[best]
                bold = "**%.4f**" if gap < -0.01 else "%.4f"
                f.write("| %s | %s | %d | %s | %.4f | %.4f (%s) | %+.4f | %.4f | %s |\n" % (
                    name, size, cap, bold % r["hotscore"], r["hotscore-adaptive"], r[best], best,
                    gap, r["lru"], "%.4f" % r["opt"] if "opt" in r else "-"))
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["trace", "size", "entries"] + policies + ["best_reference"])
            for name, size, cap, r, best in rows:
                w.writerow([name, size, cap] + ["%.6f" % r[p] for p in policies] + [best])
    return 0


if __name__ == "__main__":
    sys.exit(main())
