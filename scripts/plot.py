#!/usr/bin/python3
"""Plot one metric of a Saturn summary.csv against a swept key, one line per combination of the
other swept keys, with 95% confidence intervals as error bars.

  /usr/bin/python3 scripts/plot.py results/default/summary.csv --x traffic.load \
      --metric net_latency_mean_ns --out results/default/latency.png
"""
import argparse
import csv
import math
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FIXED = {"point", "metric", "mean", "stddev", "ci95_low", "ci95_high", "n"}


def number(text):
    try:
        return float(text)
    except ValueError:
        return math.nan


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("summary", help="summary.csv written by saturn run")
    ap.add_argument("--x", required=True, help="swept key for the x axis")
    ap.add_argument("--metric", required=True, action="append", help="metric to plot (repeatable)")
    ap.add_argument("--out", required=True, help="output image (PNG, PDF, SVG)")
    ap.add_argument("--title", default=None)
    ap.add_argument("--logy", action="store_true")
    args = ap.parse_args()

    with open(args.summary, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"plot: {args.summary} has no rows")
    swept = [k for k in rows[0].keys() if k not in FIXED]
    if args.x not in swept:
        sys.exit(f"plot: --x {args.x} is not a swept key of {args.summary} (swept: {', '.join(swept) or 'none'})")
    known = {r["metric"] for r in rows}
    for m in args.metric:
        if m not in known:
            sys.exit(f"plot: metric {m} is not in {args.summary}")
    others = [k for k in swept if k != args.x]

    fig, axes = plt.subplots(1, len(args.metric), figsize=(6 * len(args.metric), 4.2), squeeze=False)
    for ax, metric in zip(axes[0], args.metric):
        series = defaultdict(list)
        for r in rows:
            if r["metric"] != metric:
                continue
            label = ", ".join(f"{k}={r[k]}" for k in others) or metric
            series[label].append((number(r[args.x]), number(r["mean"]), number(r["ci95_low"]), number(r["ci95_high"])))
        for label, pts in series.items():
            pts.sort()
            xs = [p[0] for p in pts]
            ys = [p[1] for p in pts]
            err = [[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]]
            ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=label)
        ax.set_xlabel(args.x)
        ax.set_ylabel(metric)
        if args.logy:
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"plot: wrote {args.out}")


if __name__ == "__main__":
    main()
