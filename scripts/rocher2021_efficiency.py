#!/usr/bin/env python3
"""Network efficiency over time from a saturn results directory (Rocher-Gonzalez et al. 2021
Figs. 6 and 7): throughput_per_node of series.csv (delivered 4 KB packets per node per cycle,
1 = line rate), averaged over trials, and its mean over phases of the run.

  scripts/rocher2021_efficiency.py DIR [DIR ...] --onset-ms 3 --stop-ms 93 [--csv OUT.csv]

Prints per directory the mean efficiency before the onset, in the first and the rest of the hot
spot, after it, the minimum during the first 7 ms of the hot spot, and the recovery time (first
bin after the onset from which efficiency stays >= 0.81 = 0.9 x the best possible H10 level of
0.90 until the stop, 003 item 48(b)).
"""
import argparse
import csv
import collections


def curve(d):
    acc = collections.defaultdict(list)
    with open(f"{d}/series.csv") as f:
        for row in csv.DictReader(f):
            if row["metric"] == "throughput_per_node" and row["point"] == "0":
                acc[float(row["time_ns"])].append(float(row["value"]))
    return sorted((t / 1e6, sum(v) / len(v)) for t, v in acc.items())


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--onset-ms", type=float, default=3.0)
    ap.add_argument("--stop-ms", type=float, default=93.0)
    ap.add_argument("--early-ms", type=float, default=7.0, help="length of the 'early' part of the hot spot")
    ap.add_argument("--level", type=float, default=0.81)
    ap.add_argument("--csv")
    a = ap.parse_args()
    print(f"{'run':34s} {'before':>7s} {'early':>7s} {'min_early':>9s} {'late':>7s} {'after':>7s} {'recovery_ms':>11s}")
    for d in a.dirs:
        c = curve(d)
        on, stop, early = a.onset_ms, a.stop_ms, a.onset_ms + a.early_ms
        # a bin [t - step, t] belongs to a phase when it lies inside it
        step = c[1][0] - c[0][0] if len(c) > 1 else 0
        before = [v for t, v in c if t <= on]
        e = [v for t, v in c if t - step >= on and t <= early]
        late = [v for t, v in c if t - step >= early and t <= stop]
        after = [v for t, v in c if t - step >= stop]
        during = [(t, v) for t, v in c if t - step >= on and t <= stop]
        rec = float("nan")
        for i, (t, v) in enumerate(during):
            if all(x >= a.level for _, x in during[i:]):
                rec = t - on
                break
        name = d.rstrip("/").split("/")[-1]
        print(f"{name:34s} {mean(before):7.3f} {mean(e):7.3f} {min(e) if e else float('nan'):9.3f} {mean(late):7.3f} "
              f"{mean(after):7.3f} {rec:11.2f}")
        if a.csv:
            with open(a.csv, "a") as f:
                for t, v in c:
                    f.write(f"{name},{t:.4f},{v:.5f}\n")


if __name__ == "__main__":
    main()
