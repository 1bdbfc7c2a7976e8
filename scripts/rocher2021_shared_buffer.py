#!/usr/bin/python3
"""Rocher-Gonzalez et al. 2021 Fig. 6 under switch.vc_buffer = "shared" against the split: the mean
efficiency over the hot spot, [3, 93] ms, of each shared-buffer run against the complete figure's
curve (docs/rocher2021/fig6_full_efficiency.csv), and item 48(d) (scheme - 1Q >= -0.02) with 1Q
under the same buffer where it was run (docs/rocher2021.md, "Fig. 6 with a shared VC buffer").

  scripts/rocher2021_shared_buffer.py RUNS_DIR [OUT.csv] [--variant NAME]

RUNS_DIR holds `saturn run` directories named after the Fig. 6 configs (fig6_h10_4_flow2sl_dmodk, ...),
each run with --set 'switch.vc_buffer="shared"'. --variant names the runs' change in the CSV's
columns (default "shared"): the same table serves other one-key variants of the figure's curves, e.g.
`--variant source_mixed` for runs with --set isolation.flow2sl_source=true (docs/rocher2021.md);
1Q is then taken from RUNS_DIR where it was run, else from the complete figure.
"""
import argparse
import collections
import csv
import glob
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from reproduce_checks import mean_in  # noqa: E402  (the figure's own phase rule)
from rocher2021_hand_runs import curve_dir, split_name  # noqa: E402


split = collections.defaultdict(list)
for row in csv.DictReader(open(ROOT / "docs" / "rocher2021" / "fig6_full_efficiency.csv")):
    if row["incast_reading"] in ("", "r2"):
        split[(row["traffic"], row["queue_scheme"], row["technique"])].append((float(row["time_ms"]), float(row["efficiency"])))
ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("runs_dir")
ap.add_argument("out_csv", nargs="?")
ap.add_argument("--variant", default="shared", help="the runs' change, in the CSV's column names (default shared)")
opts = ap.parse_args()
variant = opts.variant
shared = {}
for d in sorted(glob.glob(os.path.join(opts.runs_dir, "fig6_*/"))):
    if not os.path.exists(d + "manifest.json") or not os.path.exists(d + "series.csv"):
        continue
    shared[split_name(os.path.basename(d.rstrip("/"))[5:])] = curve_dir(d)
m = lambda pts: mean_in(pts, 3.0, 93.0)
print(f"traffic scheme technique: split -> {variant} (mean [3, 93] ms); (d) vs 1Q - 0.02")
rows = []
for k in sorted(shared):
    s, p = m(split[k]), m(shared[k])
    one = shared.get((k[0], "1q", k[2])) or split.get((k[0], "1q", k[2]))
    one_m = m(one)
    d_split = s - m(split[(k[0], "1q", k[2])])
    d_shared = p - one_m
    rows.append((k, s, p, one_m, d_split, d_shared))
    print(f"{k[0]:6s} {k[1]:8s} {k[2]:16s} {s:.3f} -> {p:.3f}   1Q {one_m:.3f}  (d) split {d_split:+.3f} {'pass' if d_split >= -0.02 else 'miss'}"
          f"  {variant} {d_shared:+.3f} {'pass' if d_shared >= -0.02 else 'miss'}")
if opts.out_csv:
    with open(opts.out_csv, "w") as f:
        w = csv.writer(f)
        w.writerow(["traffic", "queue_scheme", "technique", "split_mean_3_93ms", f"{variant}_mean_3_93ms", "1q_mean_3_93ms",
                    "d_split_minus_1q", f"d_{variant}_minus_1q"])
        for k, s, p, o, a, b in rows:
            w.writerow([*k, f"{s:.4f}", f"{p:.4f}", f"{o:.4f}", f"{a:+.4f}", f"{b:+.4f}"])
