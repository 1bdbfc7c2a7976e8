#!/usr/bin/python3
"""The batches a study runs as, from its manifest: batches x trials, and trials per batch.

  bench/figure_batches.py RUN_DIR [RUN_DIR ...]

A batch is the study's unit of shared state (host/study): the trials of points that differ only in
per-trial keys. The manifest lists each batch's parts (CPU sub-batches) with their batch index;
a manifest written before the index existed counts each part as a batch.
"""
import collections
import json
import sys


def shapes(run_dir):
    with open(f"{run_dir}/manifest.json") as f:
        m = json.load(f)
    trials = collections.Counter()
    for i, b in enumerate(m["batches"]):
        trials[b.get("batch", i)] += b["trials"]
    return sorted(trials.values(), reverse=True)


def main():
    for d in sys.argv[1:]:
        sizes = shapes(d)
        hist = collections.Counter(sizes)
        text = " + ".join(f"{n} x {t}" for t, n in sorted(hist.items(), key=lambda x: -x[0]))
        print(f"{d}: {len(sizes)} batches, {sum(sizes)} trials: {text} (batches x trials)")


if __name__ == "__main__":
    main()
