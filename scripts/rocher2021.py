#!/usr/bin/python3
"""Rocher-Gonzalez et al. 2021 Figs. 6 and 7: the figure logic behind `saturn reproduce rocher2021
fig6|fig7` (scripts/reproduce.py holds the acceptance checks). Runs build/saturn on
configs/papers/rocher2021/fig6_<traffic>_<queue>_<technique>.toml, one run per curve, and writes
efficiency.csv (network efficiency = throughput_per_node of series.csv, averaged over trials, per
curve and time) and fig6.png or fig7.png (one panel per traffic x queuing scheme) into the output
directory.

Fig. 7 (item 49) is Fig. 6 on the 3456-node RLFT of 24-port switches (Table 3, config #2): the
same configs with `topology.rlft_radix=24` and, for H10-4 and H25-4, config #2's hot spots
(endnodes 0, 889, 1772, 3454) as overrides; the single hot spot is endnode 4 in both configs.
Quick Fig. 7: the Fig. 6 preview's timing on H10 1Q (D-mod-K, ARN, ARN + AFI) and H10-4 1Q
(ARN + AFI), for checks 49(a) on H10 and (b), (c); no R1 curve (item 49 asks for none).

Full: the paper's timing (120 ms, hot spots 3-93 ms, CRT 5 ms), the configs' 5 trials, every
panel that has configs (RND, H10, H10-4, H25, H25-4 x 1Q, DBBM, vFtree, Flow2SL) and the six
techniques. Quick: the reduced preview of docs/model/isolation.md (every time / 10: 12 ms run,
hot spot 0.3-9.3 ms, CRT 0.5 ms, ARN TTL 0.1 ms, series every 0.1 ms), 1 trial, panel H10 1Q only
(item 48(b)), techniques D-mod-K, ARN and ARN + AFI.

The ARN techniques run under incast reading R2 (docs/model/isolation.md: the reading that
recovers from H10); ARN + AFI is also run under R1, the literal pseudo-code, on H10 1Q, since
PAPERS-SPEC item 48 asks for R1 results as well. R1 curves are reported, not checked. On H10 1Q of
Fig. 6, ARN + AFI also runs under R3 with the text's reading of adapted packets (reading
"r3_text": isolation.incast_reading = "r3", isolation.adapted_arns = "text"; PAPERS-SPEC P1.9-6),
the combination that holds at the paper's timing; its item 48(b) checks are printed apart.
"""
import csv
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import rocher2021_efficiency  # noqa: E402
import saturn_child  # noqa: E402

TRAFFIC = ["rnd", "h10", "h10_4", "h25", "h25_4"]
SCHEMES = ["1q", "dbbm", "vftree", "flow2sl"]
TECHNIQUES = ["dmodk", "oblivious", "adaptive_th", "adaptive_th_afi", "arn", "arn_afi"]
NAMES = {"dmodk": "D-mod-K", "oblivious": "Oblivious", "adaptive_th": "Adaptive-Th",
         "adaptive_th_afi": "Adaptive-Th + AFI", "arn": "ARN", "arn_afi": "ARN + AFI"}
QUICK_TECHNIQUES = ["dmodk", "arn", "arn_afi"]
# The paper's times (ms); the preview divides each by 10.
ONSET_MS, STOP_MS, RUN_MS = 3.0, 93.0, 120.0
PREVIEW_SCALE = 0.1
PREVIEW_SETS = ["simulation.trials=1", "simulation.duration_ns=12e6", "simulation.sample_interval_ns=1e5",
                "traffic.hotspot_start_ns=3e5", "traffic.hotspot_stop_ns=9.3e6", "stats.series_interval_ns=1e5"]
PREVIEW_ARN_SETS = ["isolation.crt_ns=5e5", "isolation.arn_ttl_ns=1e5"]
# Fig. 7: Table 3 config #2 over the Fig. 6 configs (PAPERS-SPEC M41, T-003H10-4/H25-4).
FIG7_SETS = ["topology.rlft_radix=24"]
FIG7_HOT4_SET = "traffic.hotspot_nodes=[0, 889, 1772, 3454]"
NODES = {"fig6": 432, "fig6h10": 432, "fig7": 3456}


def config_path(traffic, scheme, technique):
    return os.path.join(ROOT, "configs", "papers", "rocher2021", f"fig6_{traffic}_{scheme}_{technique}.toml")


def curves(quick, fig="fig6"):
    """(traffic, scheme, technique, reading) for every curve the run makes; reading '' = not ARN."""
    def curve(traffic, scheme, technique):
        return (traffic, scheme, technique, "r2" if technique.startswith("arn") else "")
    if fig == "fig7":
        if quick:
            return [curve("h10", "1q", t) for t in QUICK_TECHNIQUES] + [curve("h10_4", "1q", "arn_afi")]
        return [curve(t, s, te) for t in TRAFFIC for s in SCHEMES for te in TECHNIQUES]
    out = []
    # fig6h10: the quick mode's H10 1Q panel, but at the paper's timing and trial count (5).
    panels = [("h10", "1q")] if quick or fig == "fig6h10" else [(t, s) for t in TRAFFIC for s in SCHEMES]
    for traffic, scheme in panels:
        for technique in (QUICK_TECHNIQUES if quick or fig == "fig6h10" else TECHNIQUES):
            out.append(curve(traffic, scheme, technique))
        if traffic == "h10" and scheme == "1q":
            out.append((traffic, scheme, "arn_afi", "r1"))
            out.append((traffic, scheme, "arn_afi", "r3_text"))
    return out


def reading_sets(reading):
    """The --set values of a curve's reading: "r1" ... "r3", optionally "_text" (adapted_arns)."""
    incast, _, adapted = reading.partition("_")
    return [f'isolation.incast_reading="{incast}"'] + ([f'isolation.adapted_arns="{adapted}"'] if adapted else [])


def reading_name(reading):
    """Legend and check label of a reading: "R2", "R3, text"."""
    incast, _, adapted = reading.partition("_")
    return incast.upper() + (f", {adapted}" if adapted else "")


def label(c):
    traffic, scheme, technique, reading = c
    return f"{traffic}_{scheme}_{technique}" + (f"_{reading}" if reading else "")


def missing_configs(quick, fig="fig6"):
    return [config_path(*c[:3]) for c in curves(quick, fig) if not os.path.isfile(config_path(*c[:3]))]


def curve_args(c, quick, fig="fig6"):
    """The config and --set arguments of one curve's run."""
    traffic, scheme, technique, reading = c
    sets = list(PREVIEW_SETS) if quick else []
    if fig == "fig7":
        sets += FIG7_SETS + ([FIG7_HOT4_SET] if traffic.endswith("_4") else [])
    if reading:
        sets += (PREVIEW_ARN_SETS if quick else []) + reading_sets(reading)
    return [config_path(traffic, scheme, technique)] + [a for x in sets for a in ("--set", x)]


def validate(saturn, quick, fig="fig6"):
    """`saturn validate` on every run the figure would make; returns the error lines (none: all valid)."""
    errors = []
    for c in curves(quick, fig):
        p = subprocess.run([saturn, "validate"] + curve_args(c, quick, fig), capture_output=True, text=True)
        if p.returncode != 0:
            errors.append(f"{label(c)}: {p.stderr.strip()}")
    return errors


# "--force": a figure run twice replaces its runs; "--resume" (saturn reproduce --resume) keeps the
# trials a stopped run finished and reads a complete run as it is. rocher2021_fig8.py's runs too.
REPLACE_FLAG = "--force"


def run_saturn(cmd, **kwargs):
    """One saturn run (saturn_child.run: a stop reaches it and is waited out), its command line
    printed in one write, so that runs side by side do not interleave their lines."""
    sys.stderr.write("+ " + " ".join(cmd) + "\n")
    saturn_child.run(cmd, **kwargs)


def run_curve(saturn, out, c, quick, fig="fig6"):
    d = os.path.join(out, label(c))
    run_saturn([saturn, "run"] + curve_args(c, quick, fig) + ["--out", d, "--quiet", REPLACE_FLAG, "--threads", "1"])
    return rocher2021_efficiency.curve(d)


def plot(data, scale, out, title, fig_name="fig6"):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = sorted({(c[0], c[1]) for c in data}, key=lambda p: (TRAFFIC.index(p[0]), SCHEMES.index(p[1])))
    cols = min(4, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(max(7.0, 4.2 * cols + 1.5), 3.2 * rows + 0.6), squeeze=False)
    for ax, (traffic, scheme) in zip(axes.flat, panels):
        for c, pts in data.items():
            if (c[0], c[1]) != (traffic, scheme):
                continue
            name = NAMES[c[2]] + (f" ({reading_name(c[3])})" if c[3] else "")
            ax.plot([t for t, _ in pts], [v for _, v in pts], label=name, lw=1, ls="--" if c[3] == "r1" else "-")
        if traffic != "rnd":
            ax.axvspan(ONSET_MS * scale, STOP_MS * scale, color="0.92", zorder=0)  # the hot spots
        ax.set_title(f"{traffic.upper().replace('_', '-')}, {scheme}", fontsize=9)
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("time (ms)" + (" [preview: paper times / 10]" if scale != 1 else ""), fontsize=8)
        ax.set_ylabel("network efficiency", fontsize=8)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    max(axes.flat[:len(panels)], key=lambda a: len(a.get_lines())).legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(out, fig_name + ".png"), dpi=110)
    plt.close(fig)


def read_efficiency(path):
    """efficiency.csv back into ({(traffic, scheme, technique, reading): [(time_ms, efficiency)]}, timing)."""
    data, timing = {}, None
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            timing = row["timing"]
            key = (row["traffic"], row["queue_scheme"], row["technique"], row["incast_reading"])
            data.setdefault(key, []).append((float(row["time_ms"]), float(row["efficiency"])))
    return data, timing


def run_figure(saturn, out, quick, fig="fig6"):
    """Runs every curve; writes efficiency.csv and fig6.png or fig7.png. Returns (data, scale):
    data = {(traffic, scheme, technique, reading): [(time_ms, efficiency)]}, scale = time factor."""
    missing = missing_configs(quick, fig)
    if missing:
        raise SystemExit(f"saturn reproduce: {len(missing)} Fig. 6 configs missing, first {missing[0]} "
                         "(run scripts/rocher2021_configs.py)")
    scale = PREVIEW_SCALE if quick else 1.0
    todo = curves(quick, fig)
    # One curve per core, each run on one thread: a curve's 5 trials one after another, where one run
    # of 5 trials on 2 threads would leave a core idle for its last trial.
    data = dict(zip(todo, saturn_child.side_by_side(lambda c: run_curve(saturn, out, c, quick, fig), todo)))
    timing = "preview_times_div_10" if quick else "paper"
    with open(os.path.join(out, "efficiency.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["timing", "traffic", "queue_scheme", "technique", "incast_reading", "time_ms", "efficiency"])
        for c, pts in data.items():
            for t, v in pts:
                w.writerow([timing, *c, f"{t:.4f}", f"{v:.5f}"])
    number = fig[3:4]
    preview = ("PREVIEW (every time / 10, 1 trial, H10 1Q and H10-4 1Q ARN + AFI)" if fig == "fig7" else
               "PREVIEW (every time / 10, 1 trial, H10 1Q only)")
    full = "paper timing (120 ms)" + (", H10 1Q panel, 5 trials" if fig == "fig6h10" else "")
    title = (f"Rocher-Gonzalez et al. 2021 Fig. {number}, {NODES[fig]}-node RLFT, " +
             (preview if quick else full) +
             "\nnetwork efficiency = delivered 4 KB packets per node per cycle (1 = line rate)")
    plot(data, scale, out, title, fig)
    return data, scale
