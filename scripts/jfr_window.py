#!/usr/bin/env python3
"""Files the CPU samples of a time window of a JFR recording, as docs/benchmarks-hbase.md reads them.

    jfr print --events jdk.ExecutionSample --stack-depth 64 rec.jfr > samples.txt
    python3 scripts/jfr_window.py samples.txt 16:36:35 16:37:01            # by category
    python3 scripts/jfr_window.py samples.txt 16:36:35 16:37:01 \\
        --within BatchIndexer.read --below KeyValueHeap.pollRealKV          # call chains

A sample belongs to the first category whose frame pattern occurs anywhere in its stack (the order
below matters: the data read is tested before the memstore work it may call). With --within, only
samples whose stack holds that frame are kept, and the chains of --depth frames called from the
deepest --below frame are counted.
"""
import argparse
import collections
import re

CATEGORIES = [
    ("data read (BatchIndexer.read)", "BatchIndexer.read"),
    ("index endpoint (index region write)", "IndexWriteEndpoint"),
    ("index writer send (client side)", "IndexWriter.send"),
    ("index cleanup send", "IndexCleanups"),
    ("filter bookkeeping", "FilterBookkeeping"),
    ("local index", "LocalIndex"),
    ("WAL", "wal."),
    ("memstore/minibatch", "doMiniBatchMutate"),
    ("rpc server", "ipc."),
    ("client (bench)", "client."),
    ("hdfs", "hdfs"),
    ("netty", "netty"),
]


def samples(path, start, end):
    """(thread, frames from the top) of each sample whose start time is in [start, end]."""
    for event in open(path).read().split("jdk.ExecutionSample {")[1:]:
        at = re.search(r"startTime = (\d\d:\d\d:\d\d)", event)
        if not at or not start <= at.group(1) <= end:
            continue
        thread = re.search(r'sampledThread = "([^"]*)"', event)
        yield (thread.group(1) if thread else "?"), re.findall(r"^\s+([\w$.<>]+)\(", event, re.M)


def short(frame):
    return ".".join(frame.split(".")[-2:])


def main():
    a = argparse.ArgumentParser()
    a.add_argument("samples")
    a.add_argument("start", help="HH:MM:SS")
    a.add_argument("end", help="HH:MM:SS")
    a.add_argument("--within")
    a.add_argument("--below")
    a.add_argument("--depth", type=int, default=6)
    args = a.parse_args()
    if args.within:
        chains = collections.Counter()
        n = 0
        for _, frames in samples(args.samples, args.start, args.end):
            if not any(args.within in f for f in frames):
                continue
            at = [i for i, f in enumerate(frames) if (args.below or args.within) in f]
            if not at:
                continue
            n += 1
            chain = frames[max(0, at[-1] - args.depth) : at[-1] + 1][::-1]
            chains[" < ".join(short(f) for f in chain)] += 1
        print("samples", n)
        for chain, count in chains.most_common(25):
            print(f"{count:6d} {chain}")
        return
    categories = collections.Counter()
    threads = collections.Counter()
    n = 0
    for thread, frames in samples(args.samples, args.start, args.end):
        n += 1
        threads[re.sub(r"\d+", "N", thread)] += 1
        stack = " ".join(frames)
        name = next((c for c, pattern in CATEGORIES if pattern in stack), "other")
        categories[name] += 1
    print("samples", n)
    for name, count in categories.most_common():
        print(f"{count:6d} {100 * count / max(n, 1):5.1f}% {name}")
    print("--- threads")
    for name, count in threads.most_common(15):
        print(f"{count:6d} {name}")


if __name__ == "__main__":
    main()
