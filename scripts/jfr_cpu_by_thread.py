#!/usr/bin/env python3
"""CPU samples of a JFR recording by thread group and by hot frame, to see where a benchmark's
CPU went (docs/benchmarks-eventual.md uses it on EventualBenchmark's run).

  jfr print --events jdk.ExecutionSample --stack-depth 40 REC.jfr > samples.txt
  python3 scripts/jfr_cpu_by_thread.py samples.txt [TOP]

Thread names are grouped by dropping digits and what follows a last dash or dot ("scbf-eventual-
scbf_eventual" stays whole, "RpcServer.default.FPBQ.Fifo.handler=12,queue=0,port=3" becomes
"RpcServer.default.FPBQ.Fifo.handler"). For each group: its share of all samples and its TOP
(default 8) self frames (the top of each stack), then for the scbf and replication groups the
frames they spend most time under (any depth, by scbf or HBase class#method).
"""
import re
import sys
from collections import Counter, defaultdict


def group(name):
    name = re.sub(r"[=,].*$", "", name)
    name = re.sub(r"[-_.]?\d+$", "", name)
    return re.sub(r"\d+", "N", name)


def events(path):
    thread, frames, inside = None, [], False
    for line in open(path, encoding="utf-8", errors="replace"):
        s = line.strip()
        if s.startswith("jdk.ExecutionSample"):
            if thread is not None:
                yield thread, frames
            thread, frames, inside = None, [], False
        elif s.startswith("sampledThread"):
            m = re.search(r'"(.*)"', s)
            thread = m.group(1) if m else "?"
        elif s.startswith("stackTrace"):
            inside = True
        elif inside and s and s not in ("]", "}", "...") and not s.startswith("state"):
            frames.append(re.sub(r"\s+line:.*$", "", s))
    if thread is not None:
        yield thread, frames


def main():
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    by_group = Counter()
    self_frames = defaultdict(Counter)
    under = defaultdict(Counter)
    total = 0
    for thread, frames in events(sys.argv[1]):
        g = group(thread)
        total += 1
        by_group[g] += 1
        if frames:
            self_frames[g][frames[0]] += 1
        seen = set()
        for f in frames:
            if ("io.scbf" in f or "replication" in f) and f not in seen:
                seen.add(f)
                under[g][f] += 1
    print(f"{total} samples")
    for g, n in by_group.most_common(12):
        print(f"\n{100.0 * n / total:5.1f}%  {g}  ({n})")
        for f, k in self_frames[g].most_common(top):
            print(f"         {100.0 * k / n:5.1f}% self  {f}")
        for f, k in under[g].most_common(top):
            print(f"         {100.0 * k / n:5.1f}% under {f}")


if __name__ == "__main__":
    main()
