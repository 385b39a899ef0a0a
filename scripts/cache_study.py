#!/usr/bin/env python3
"""Every cache policy on every shared trace at 1/2x, 1x and 2x its reference capacity, and on each
trace's first accesses (a short trace), split into a tuning set and a validation set.

A constant of a policy is chosen on the tuning set only; the validation set is never looked at
while tuning and says whether the choice generalizes (docs/benchmarks-cache.md, "Method").

Usage: scripts/cache_study.py [--scbf build/scbf] [--traces ../shared/traces]
                              [--csv docs/data/cache-policies.csv] [--policies a,b,...] [--quick]
Prints, per set, each policy's mean gap to OPT and its worst difference with LRU; then the table
of every run. --quick leaves out the three 5M-access traces.
"""
import argparse
import concurrent.futures
import csv
import gzip
import os
import subprocess
import sys
import tempfile

# Reference capacity (../shared/traces/README.md) and set of each trace. The split keeps one trace
# of each character on each side where there are two: loops and scans, bursty recency, ORM, address
# traces; the validation set is never used to choose a constant.
TRACES = {
    "multi1": (500, "tuning"),
    "loop": (500, "tuning"),
    "zigzag": (300, "tuning"),
    "corda-vault": (5000, "tuning"),
    "orm-night": (5000, "tuning"),
    "twolf": (32, "tuning"),
    "adapt-size": (1000, "tuning"),
    "cpp": (300, "validation"),
    "backf": (200, "validation"),
    "scan": (500, "validation"),
    "orm-busy": (5000, "validation"),
    "w106": (20000, "validation"),
    "swim": (32, "validation"),
    "gcc": (32, "validation"),
}
BIG = {"orm-night", "orm-busy", "w106"}
SCALES = (0.5, 1.0, 2.0)
# A short trace: the first SHORT accesses, at the reference capacity or a tenth of the keys they
# touch, whichever is smaller (a policy must find frequency quickly to win there).
SHORT = 5000
POLICIES = ["hotscore", "paper", "lru", "arc", "lirs", "s3fifo", "sieve", "wtinylfu",
            "wtinylfu-1pct"]


def run(scbf, policy, capacity, path):
    out = subprocess.run([scbf, "cache-sim", "--policy", policy, "--capacity", str(capacity), path],
                         capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1].split("=")[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scbf", default="build/scbf")
    ap.add_argument("--traces", default=os.environ.get("SCBF_TRACES", "../shared/traces"))
    ap.add_argument("--csv")
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    policies = args.policies.split(",")

    tmp = tempfile.mkdtemp()
    jobs = []  # (trace, set, size label, capacity, path)
    for name, (cap, which) in TRACES.items():
        if args.quick and name in BIG:
            continue
        with gzip.open(os.path.join(args.traces, name + ".trace.gz"), "rt") as f:
            keys = [line for line in f if line.strip()]
        full = os.path.join(tmp, name)
        with open(full, "w") as f:
            f.writelines(keys)
        for s in SCALES:
            jobs.append((name, which, "%gx" % s, max(1, int(cap * s)), full))
        short = os.path.join(tmp, name + ".short")
        with open(short, "w") as f:
            f.writelines(keys[:SHORT])
        distinct = len(set(keys[:SHORT]))
        jobs.append((name, which, "short", max(2, min(cap, distinct // 10)), short))

    results = {}
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        futures = {}
        for job in jobs:
            for p in policies + ["opt"]:
                futures[pool.submit(run, args.scbf, p, job[3], job[4])] = (job, p)
        for f in concurrent.futures.as_completed(futures):
            job, p = futures[f]
            results[(job[0], job[2], p)] = f.result()

    rows = []
    for name, which, size, cap, _ in jobs:
        r = {p: results[(name, size, p)] for p in policies + ["opt"]}
        rows.append((name, which, size, cap, r))

    def summary(title, keep):
        sel = [row for row in rows if keep(row)]
        if not sel:
            return
        print("\n%s (%d runs): mean gap to OPT, worst vs LRU (trace, size)" % (title, len(sel)))
        for p in policies:
            gaps = [row[4]["opt"] - row[4][p] for row in sel]
            worst = min(sel, key=lambda row: row[4][p] - row[4]["lru"])
            print("  %-14s %.4f   %+.4f (%s %s)" % (
                p, sum(gaps) / len(gaps), worst[4][p] - worst[4]["lru"], worst[0], worst[2]))

    for which in ("tuning", "validation"):
        summary(which + " set, 1/2x 1x 2x", lambda row, w=which: row[1] == w and row[2] != "short")
        summary(which + " set, short traces", lambda row, w=which: row[1] == w and row[2] == "short")
    summary("all traces at 1x", lambda row: row[2] == "1x")

    print("\n%-12s %-10s %-5s %6s  %s  %6s" % ("trace", "set", "size", "cache",
                                              "  ".join("%8s" % p[:8] for p in policies), "opt"))
    for name, which, size, cap, r in rows:
        print("%-12s %-10s %-5s %6d  %s  %6.4f" % (
            name, which, size, cap, "  ".join("%8.4f" % r[p] for p in policies), r["opt"]))

    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["trace", "set", "size", "entries"] + policies + ["opt"])
            for name, which, size, cap, r in rows:
                w.writerow([name, which, size, cap] + ["%.6f" % r[p] for p in policies + ["opt"]])
    return 0


if __name__ == "__main__":
    sys.exit(main())
