#!/usr/bin/python3
"""Rocher-Gonzalez et al. 2021 Fig. 6 curves run under another incast reading (M39) than the
complete figure's R2: each run's mean efficiency against the figure's own curve and against the
best of the panel's other techniques in the figure (items 48(a), (e) and (f); docs/rocher2021.md,
"Item 48(a) on RND: the incast reading at the paper's timing" and "Item 48(e) under R3 + text on
every panel it missed").

  scripts/rocher2021_readings.py RUNS_DIR [OUT.csv]

RUNS_DIR holds `saturn run` directories named after the Fig. 6 configs (fig6_rnd_dbbm_arn,
fig6_h10_4_flow2sl_arn_afi, ...), each run with the reading it is to show (the configs' default
R1, or --set 'isolation.incast_reading="r3"' --set 'isolation.adapted_arns="text"'); the reading is
read back from each run's manifest. RND is averaged over [3, 120] ms (item 48(a)), the hot-spot
panels over the hot spot, [3, 93] ms (item 48(e)), with the figure's own phase rule.
"""
import argparse
import collections
import csv
import glob
import json
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from reproduce_checks import mean_in  # noqa: E402  (the figure's own phase rule)
from rocher2021_hand_runs import curve_dir, split_name  # noqa: E402


def per_trial(d, metric):
    """A metric of the run's trials.csv, averaged over its trials."""
    xs = [float(r["value"]) for r in csv.DictReader(open(f"{d}/trials.csv")) if r["metric"] == metric]
    return sum(xs) / len(xs) if xs else float("nan")


figure = collections.defaultdict(list)  # the complete figure's curves (R2 where a reading applies)
for row in csv.DictReader(open(ROOT / "docs" / "rocher2021" / "fig6_full_efficiency.csv")):
    if row["incast_reading"] in ("", "r2"):
        figure[(row["traffic"], row["queue_scheme"], row["technique"])].append(
            (float(row["time_ms"]), float(row["efficiency"])))

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("runs_dir")
ap.add_argument("out_csv", nargs="?")
opts = ap.parse_args()
rows = []
for d in sorted(glob.glob(os.path.join(opts.runs_dir, "fig6_*/"))):
    if not os.path.exists(d + "manifest.json") or not os.path.exists(d + "series.csv"):
        continue
    key = split_name(os.path.basename(d.rstrip("/"))[5:])
    manifest = json.load(open(d + "manifest.json"))
    values = manifest["config"]["values"]
    reading = values["isolation.incast_reading"]  # and, for ARN + AFI under R3, the reading of adapted ARNs
    if reading == "r3" and key[2] == "arn_afi":
        reading += "+" + values["isolation.adapted_arns"]
    stop = 120.0 if key[0] == "rnd" else 93.0
    m = lambda pts: mean_in(pts, 3.0, stop)
    others = {t: m(pts) for (tr, q, t), pts in figure.items() if (tr, q) == key[:2] and t != key[2]}
    best = max((v, t) for t, v in others.items())
    rows.append((*key, reading, f"[3, {stop:g}]", m(curve_dir(d)), m(figure[key]), best[1], best[0],
                 per_trial(d, "arn_sent"), per_trial(d, "adapted_packets"),
                 manifest.get("wall_seconds", float("nan"))))
print("traffic scheme technique reading window: run, figure (R2), panel's best other in the figure")
for r in rows:
    print(f"{r[0]:6s} {r[1]:8s} {r[2]:8s} {r[3]:8s} {r[4]:10s} {r[5]:.3f}  figure {r[6]:.3f}  best other {r[7]} {r[8]:.3f}"
          f"  ARNs {r[9] / 1e6:.1f} M, adapted {r[10]:.0f} a trial  ({r[11] / 60:.1f} min)")
if opts.out_csv:
    with open(opts.out_csv, "w") as f:
        w = csv.writer(f)
        w.writerow(["traffic", "queue_scheme", "technique", "incast_reading", "window_ms", "run_mean",
                    "figure_mean_r2", "best_other_technique", "best_other_mean", "arn_sent_per_trial",
                    "adapted_packets_per_trial", "wall_seconds"])
        for r in rows:
            w.writerow([*r[:5], f"{r[5]:.4f}", f"{r[6]:.4f}", r[7], f"{r[8]:.4f}", f"{r[9]:.0f}", f"{r[10]:.0f}",
                        f"{r[11]:.0f}"])
