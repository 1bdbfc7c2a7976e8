#!/usr/bin/python3
"""The standard plots of a Saturn results directory (`saturn plot DIR` runs this), PNG and SVG in
DIR/plots/:

  summary_<metric>  each metric of summary.csv against the swept axis, mean with its 95% band, one
                    line per combination of the other swept keys (per-link and per-flow metrics,
                    name[A->B], one plot per family with one line per member, at most 12);
  overview          the headline metrics side by side;
  series_<metric>   with series.csv (stats.series_interval_ns): each metric against time, mean over
                    trials with a 95% band, one line per sweep point (--smooth-ns: centred window);
  latency_cdf       with stats.latency_histogram (net_ and msg_latency_hist[UPPER_NS] rows of
                    summary.csv): each point's network and message latency CDF, from the mean
                    count per bin over trials.

  /usr/bin/python3 scripts/saturn_plot.py results/default [--x traffic.load] [--metric M]...
Exit code 2 with one line for a directory that is not a results directory, a CSV that is not
one Saturn wrote (ragged, binary, cut mid-line), an --out that cannot be created, or a bad option.
"""
import argparse
import csv
import io
import math
import os
import re
import statistics
import sys
from collections import defaultdict

import headless_pyplot  # (same folder)

SUMMARY_FIXED = {"point", "metric", "mean", "stddev", "ci95_low", "ci95_high", "n"}
SERIES_FIXED = {"point", "trial", "time_ns", "metric", "value"}
HEADLINE = ["throughput_per_node", "net_latency_mean_ns", "net_latency_p99_ns", "msg_latency_mean_ns",
            "link_util_max", "completion_time_ns", "contention_max", "contention_mean", "saa_completion",
            "maxmin_completion", "switch_ports"]
MAX_LINES = 12
# Student-t 0.975 quantiles by degrees of freedom (summary.csv's intervals use the same).
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
        12: 2.179, 15: 2.131, 20: 2.086, 25: 2.060, 30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980}


def fail(message):
    print(f"saturn plot: {message}", file=sys.stderr)
    sys.exit(2)


def read_csv(path, fixed):
    """The header and rows of a results CSV, checked: text, the fixed columns present, every row as
    wide as the header, the last line ended (a write cut short is refused, not plotted)."""
    short = path[:60]
    try:
        with open(path, newline="", encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError:
        fail(f"'{short}' is not text (not a CSV written by saturn)")
    except OSError as e:
        fail(f"cannot read '{short}': {e.strerror}")
    if "\0" in text:
        fail(f"'{short}' holds NUL bytes (not a CSV written by saturn)")
    if text and not text.endswith("\n"):
        fail(f"'{short}' line {text.count(chr(10)) + 1} is cut mid-line (no line end): the file is incomplete")
    try:
        table = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as e:
        fail(f"'{short}' is not a valid CSV: {e}")
    if not table:
        fail(f"'{short}' is empty (not even a header)")
    header = table[0]
    missing = [c for c in sorted(fixed) if c not in header]
    if missing:
        fail(f"'{short}' has no column '{missing[0]}' (expected {', '.join(sorted(fixed))} and the swept keys)")
    for i, row in enumerate(table[1:], start=2):
        if row and len(row) != len(header):
            fail(f"'{short}' line {i} has {len(row)} fields, expected {len(header)}")
    return header, [dict(zip(header, row)) for row in table[1:] if row]


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def t975(df):
    """The quantile for the largest tabulated df not above df (conservative); 1.96 past 120."""
    if df > 120:
        return 1.96
    return T975[max(k for k in T975 if k <= max(df, 1))]


def mean_ci(values):
    values = [v for v in values if not math.isnan(v)]
    if not values:
        return math.nan, math.nan, math.nan
    m = statistics.fmean(values)
    if len(values) < 2:
        return m, m, m
    h = t975(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return m, m - h, m + h


def family(metric):
    """'link_util[A->B]' -> ('link_util', 'A->B'); plain metrics -> (metric, '')."""
    m = re.match(r"^([^\[]+)\[(.*)\]$", metric)
    return (m.group(1), m.group(2)) if m else (metric, "")


def file_name(text):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")


def save(fig, out_dir, name, written):
    for ext in ("png", "svg"):
        path = os.path.join(out_dir, f"{name}.{ext}")
        fig.savefig(path, dpi=110)
        written.append(path)


def choose_x(rows, swept, wanted):
    if wanted:
        if wanted not in swept:
            fail(f"--x {wanted} is not a swept key of this run (swept: {', '.join(swept) or 'none'})")
        return wanted
    best, best_count = None, 1
    for key in swept:  # the numeric axis with the most values; later (faster-varying) axes win ties
        values = {r[key] for r in rows}
        if all(not math.isnan(number(v)) for v in values) and len(values) >= best_count:
            best, best_count = key, len(values)
    return best or (swept[-1] if swept else "point")


def draw_lines(ax, lines, logx=False):
    """lines: label -> [(x, mean, lo, hi)]; draws each with its band, at most MAX_LINES."""
    for label in list(lines)[:MAX_LINES]:
        pts = sorted(lines[label])
        xs = [p[0] for p in pts]
        line, = ax.plot(xs, [p[1] for p in pts], marker="o" if len(pts) < 30 else None, ms=3, label=label)
        ax.fill_between(xs, [p[2] for p in pts], [p[3] for p in pts], color=line.get_color(), alpha=0.2, lw=0)
    if logx:
        ax.set_xscale("log")
    ax.grid(alpha=0.3)
    if any(lines):  # unlabelled: one line, nothing to tell apart
        ax.legend(fontsize=7)


def plot_summary(plt, rows, swept, x_key, metrics, out_dir, title, written):
    others = [k for k in swept if k != x_key]
    categorical = x_key != "point" and any(math.isnan(number(r[x_key])) for r in rows)
    ticks = sorted({r[x_key] for r in rows}) if categorical else []
    by_family = defaultdict(lambda: defaultdict(list))
    for r in rows:
        fam, member = family(r["metric"])
        if metrics and r["metric"] not in metrics and fam not in metrics:
            continue
        label = ", ".join(f"{k}={r[k]}" for k in others)
        if member:
            label = member + (f" ({label})" if label else "")
        x = ticks.index(r[x_key]) if categorical else number(r[x_key])
        by_family[fam][label].append((x, number(r["mean"]), number(r["ci95_low"]), number(r["ci95_high"])))
    if metrics:
        missing = [m for m in metrics if family(m)[0] not in by_family]
        if missing:  # name what there is, not what the filter left (nothing)
            known = sorted({family(r["metric"])[0] for r in rows})
            fail(f"metric {missing[0][:60]} is not in summary.csv (metrics: {', '.join(known)})")
    for fam, lines in by_family.items():
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        draw_lines(ax, lines)
        if categorical:
            ax.set_xticks(range(len(ticks)), ticks)
        ax.set_xlabel(x_key)
        ax.set_ylabel(fam)
        ax.set_title(f"{title}: {fam}" + (f" (first {MAX_LINES} of {len(lines)} lines)" if len(lines) > MAX_LINES else ""),
                     fontsize=9)
        fig.tight_layout()
        save(fig, out_dir, "summary_" + file_name(fam), written)
        plt.close(fig)
    headline = [m for m in HEADLINE if m in by_family] or list(by_family)
    headline = headline[:4]
    if headline:
        fig, axes = plt.subplots(1, len(headline), figsize=(4.6 * len(headline), 3.8), squeeze=False)
        for ax, fam in zip(axes[0], headline):
            draw_lines(ax, by_family[fam])
            if categorical:
                ax.set_xticks(range(len(ticks)), ticks)
            ax.set_xlabel(x_key)
            ax.set_ylabel(fam)
        fig.suptitle(f"{title} (mean, 95% band)", fontsize=10)
        fig.tight_layout()
        save(fig, out_dir, "overview", written)
        plt.close(fig)


def plot_series(plt, path, metrics, smooth_ns, out_dir, title, written):
    header, rows = read_csv(path, SERIES_FIXED)
    swept = [k for k in header if k not in SERIES_FIXED]
    values = defaultdict(lambda: defaultdict(list))  # (family, line) -> time -> [value per trial]
    for i, r in enumerate(rows, start=2):
        if HIST.match(r["metric"]):
            continue  # histogram bins over time: the CDF of summary.csv shows them
        fam, member = family(r["metric"])
        if metrics and r["metric"] not in metrics and fam not in metrics:
            continue
        label = ", ".join(f"{k}={r[k]}" for k in swept) or f"point {r['point']}"
        if member:
            label = member + " (" + label + ")"
        time_ns = number(r["time_ns"])
        if not math.isfinite(time_ns):
            fail(f"'{path[:60]}' line {i}: time_ns '{r['time_ns'][:30]}' is not a number")
        values[(fam, label)][time_ns].append(number(r["value"]))
    by_family = defaultdict(dict)
    for (fam, label), by_time in values.items():
        times = sorted(by_time)
        if smooth_ns > 0 and len(times) > 1:
            half = max(0, int(round(smooth_ns / (times[1] - times[0]) / 2)))
            pts = []
            for i, t in enumerate(times):
                window = [v for j in range(max(0, i - half), min(len(times), i + half + 1)) for v in by_time[times[j]]]
                pts.append((t / 1e6,) + mean_ci(window))
        else:
            pts = [(t / 1e6,) + mean_ci(by_time[t]) for t in times]
        by_family[fam][label] = pts
    for fam, lines in by_family.items():
        fig, ax = plt.subplots(figsize=(7, 4))
        draw_lines(ax, lines)
        ax.set_xlabel("time (ms)")
        ax.set_ylabel(fam)
        ax.set_title(f"{title}: {fam} over time" + (f", {smooth_ns / 1e6:g} ms centred average" if smooth_ns else ""),
                     fontsize=9)
        fig.tight_layout()
        save(fig, out_dir, "series_" + file_name(fam), written)
        plt.close(fig)


HIST = re.compile(r"^(net|msg)_latency_hist\[(.+)\]$")


def plot_latency_cdf(plt, rows, swept, out_dir, title, written):
    """summary.csv's net_latency_hist[UPPER_NS] / msg_latency_hist[UPPER_NS] rows: the mean count per
    bin over a point's trials; their running sum over the total is the CDF (upper bin edges)."""
    bins = defaultdict(list)
    for r in rows:
        m = HIST.match(r["metric"])
        if m:
            label = m.group(1) + " " + ", ".join(f"{k}={r[k]}" for k in swept)
            bins[(m.group(1), label.strip())].append((number(m.group(2)), number(r["mean"])))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, kind, name in zip(axes, ("net", "msg"), ("network latency", "message latency")):
        lines = [(label, pts) for (k, label), pts in bins.items() if k == kind]
        for label, pts in lines[:MAX_LINES]:
            pts.sort()
            total = sum(c for _, c in pts)
            if total <= 0:
                continue
            acc, xs, ys = 0.0, [], []
            for upper, count in pts:
                if count <= 0 and acc == 0:
                    continue  # leading empty bins: start the curve at the first latency seen
                acc += count
                xs.append(upper)
                ys.append(acc / total)
                if acc >= total:
                    break  # trailing empty bins would stretch the axis to the top bin (2^32 cycles)
            ax.step(xs, ys, where="post", label=label[len(kind) + 1:] or kind)
        ax.set_xscale("log")
        ax.set_xlabel(name + " (ns, bin upper edges)")
        ax.set_ylabel("CDF")
        ax.grid(alpha=0.3)
        if lines:
            ax.legend(fontsize=7)
        ax.set_title(f"{title}: {name} CDF" + (f" (first {MAX_LINES} of {len(lines)})" if len(lines) > MAX_LINES else ""),
                     fontsize=9)
    fig.tight_layout()
    save(fig, out_dir, "latency_cdf", written)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(prog="saturn plot", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help="results directory written by saturn run or saturn merge")
    ap.add_argument("--x", default=None, help="swept key for the x axis (default: the numeric axis with most values)")
    ap.add_argument("--metric", action="append", default=[], help="only this metric or family (repeatable)")
    ap.add_argument("--smooth-ns", type=float, default=0.0, help="series: centred sliding window in ns")
    ap.add_argument("--out", default=None, help="output directory (default DIR/plots)")
    args = ap.parse_args()
    if not (math.isfinite(args.smooth_ns) and args.smooth_ns >= 0):
        fail(f"--smooth-ns {args.smooth_ns}: expected a window of 0 ns (none) or more")
    summary = os.path.join(args.dir, "summary.csv")
    series = os.path.join(args.dir, "series.csv")
    if not os.path.isdir(args.dir):
        fail(f"'{args.dir[:60]}' is not a directory")
    if not os.path.isfile(summary) and not os.path.isfile(series):
        fail(f"'{args.dir[:60]}' has no summary.csv or series.csv (a sharded run needs saturn merge first)")
    plt = headless_pyplot.pyplot()  # or one line naming this interpreter, and exit 2
    out_dir = args.out or os.path.join(args.dir, "plots")
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:  # a parent that is a file, no permission, a name too long
        fail(f"--out '{out_dir[:60]}': cannot create the directory: {e.strerror}")
    title = os.path.basename(os.path.normpath(args.dir))
    written = []
    try:
        plot_all(plt, args, summary, series, out_dir, title, written)
    except OSError as e:  # a plot that cannot be written (a full disk, a name taken by a directory)
        fail(f"cannot write into '{out_dir[:60]}': {e.strerror}")
    for path in written:
        print(path)
    print(f"saturn plot: {len(written)} files in {out_dir}", file=sys.stderr)


def plot_all(plt, args, summary, series, out_dir, title, written):
    """Every plot of the directory (main has checked the arguments and made out_dir)."""
    if os.path.isfile(summary):
        header, rows = read_csv(summary, SUMMARY_FIXED)
        swept = [k for k in header if k not in SUMMARY_FIXED]
        if not rows:
            fail(f"'{summary[:60]}' has no rows")
        hist_rows = [r for r in rows if HIST.match(r["metric"])]
        rows = [r for r in rows if not HIST.match(r["metric"])]
        if rows:
            plot_summary(plt, rows, swept, choose_x(rows, swept, args.x), set(args.metric), out_dir, title, written)
        if hist_rows:
            plot_latency_cdf(plt, hist_rows, swept, out_dir, title, written)
    if os.path.isfile(series):
        plot_series(plt, series, set(args.metric), args.smooth_ns, out_dir, title, written)


if __name__ == "__main__":
    main()
