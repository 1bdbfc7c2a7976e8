#!/usr/bin/python3
"""Plot metrics of a Saturn series.csv (stats.series_interval_ns) against time: the mean over
trials per sweep point, optionally smoothed by a centred sliding window (the 2 ms window of
Santos et al.'s figures: --smooth-ns 2e6).

  /usr/bin/python3 scripts/plot_series.py results/fig2a/series.csv \
      --metric 'flow_rate[A_V->B_V]' --metric 'link_util[A->B]' --smooth-ns 2e6 --out fig2a.png
"""
import argparse
import csv
import math
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FIXED = {"point", "trial", "time_ns", "metric", "value"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("series", help="series.csv written by saturn run")
    ap.add_argument("--metric", required=True, action="append", help="metric to plot (repeatable)")
    ap.add_argument("--smooth-ns", type=float, default=0.0, help="centred sliding-window width in ns")
    ap.add_argument("--out", required=True, help="output image (PNG, PDF, SVG)")
    ap.add_argument("--title", default=None)
    args = ap.parse_args()

    # (metric, point) -> time -> [values over trials]
    data = defaultdict(lambda: defaultdict(list))
    labels = {}
    with open(args.series, newline="") as f:
        reader = csv.DictReader(f)
        swept = [k for k in reader.fieldnames if k not in FIXED]
        for r in reader:
            if r["metric"] not in args.metric:
                continue
            value = float(r["value"])
            if math.isnan(value):
                continue
            data[(r["metric"], r["point"])][float(r["time_ns"])].append(value)
            labels[r["point"]] = ", ".join(f"{k}={r[k]}" for k in swept)
    missing = [m for m in args.metric if not any(key[0] == m for key in data)]
    if missing:
        sys.exit(f"plot_series: no values of {', '.join(missing)} in {args.series}")

    fig, ax = plt.subplots(figsize=(9, 4.5))
    for (metric, point), by_time in sorted(data.items()):
        times = sorted(by_time)
        means = [sum(by_time[t]) / len(by_time[t]) for t in times]
        if args.smooth_ns > 0 and len(times) > 1:
            half = args.smooth_ns / 2
            smoothed = []
            for t in times:
                window = [m for tt, m in zip(times, means) if abs(tt - t) <= half]
                smoothed.append(sum(window) / len(window))
            means = smoothed
        label = metric + (f" ({labels[point]})" if labels.get(point) else "")
        ax.plot([t / 1e6 for t in times], means, label=label)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("fraction of link bandwidth / metric value")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    if args.title:
        ax.set_title(args.title)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"plot_series: wrote {args.out}")


if __name__ == "__main__":
    main()
