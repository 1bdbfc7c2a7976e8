#!/usr/bin/python3
"""Rocher-Gonzalez et al. 2021 Figs. 6 and 7: the figure logic behind `saturn reproduce rocher2021
fig6|fig7` (scripts/reproduce_rocher2021.py holds the acceptance checks). Runs build/saturn on the figure's
studies, configs/papers/rocher2021/fig6.toml (case axes `pattern` x `curve`) and
fig6_readings.toml, one `saturn run` each, with their case axes narrowed by --set where a run
makes fewer curves (studies()), and writes efficiency.csv (network efficiency =
throughput_per_node of series.csv, averaged over trials, per curve and time) and fig6.png or
fig7.png (one panel per traffic x queuing scheme) into the output directory.

Fig. 7 (item 49) is Fig. 6 on the 3456-node RLFT of 24-port switches (Table 3, config #2): the
same study with `topology.rlft_radix=24` and, for H10-4 and H25-4, config #2's hot spots
(endnodes 0, 889, 1772, 3454) in the pattern cases; the single hot spot is endnode 4 in both configs.
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
import collections
import csv
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import headless_pyplot  # noqa: E402
import rocher2021_configs  # noqa: E402
import reproduce_shards  # noqa: E402

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
                "stats.series_interval_ns=1e5"]  # and the hot spots' window, in the pattern cases
PREVIEW_ARN_KEYS = {"isolation.crt_ns": 5e5, "isolation.arn_ttl_ns": 1e5}  # in the ARN curves' cases
# Fig. 7: Table 3 config #2 over the Fig. 6 configs (PAPERS-SPEC M41, T-003H10-4/H25-4).
FIG7_SETS = ["topology.rlft_radix=24"]
FIG7_HOT4 = [0, 889, 1772, 3454]
NODES = {"fig6": 432, "fig6h10": 432, "fig7": 3456}


def curve_name(scheme, technique, reading):
    """A curve case's name in the figure configs: "1q/arn_afi", or with a reading other than the
    figure's (R2 for ARN techniques) "1q/arn_afi/r1"."""
    default = "r2" if technique.startswith("arn") else ""
    return f"{scheme}/{technique}" + (f"/{reading}" if reading != default else "")


def studies(quick, fig="fig6"):
    """The `saturn run`s of a figure: (config, run directory, traffic patterns, curves), each run a
    product of its patterns and curves (scheme, technique, reading; reading '' = not ARN). Fig. 6
    is configs/papers/rocher2021/fig6.toml (120 curves) and fig6_readings.toml (H10 1Q ARN + AFI
    under R1 and R3 with the text's adapted ARNs); previews and Fig. 7 narrow their axes."""
    def curve(scheme, technique):
        return (scheme, technique, "r2" if technique.startswith("arn") else "")
    every = [curve(s, te) for s in SCHEMES for te in TECHNIQUES]
    h10_1q = [curve("1q", te) for te in QUICK_TECHNIQUES]
    readings = ("fig6_readings.toml", "readings", ["h10"], [("1q", "arn_afi", "r1"), ("1q", "arn_afi", "r3_text")])
    if fig == "fig7":
        if quick:
            return [("fig6.toml", "fig7", ["h10"], h10_1q), ("fig6.toml", "fig7_h10_4", ["h10_4"], [curve("1q", "arn_afi")])]
        return [("fig6.toml", "fig7", TRAFFIC, every)]
    if quick or fig == "fig6h10":  # fig6h10: the quick mode's H10 1Q panel at the paper's timing and 5 trials
        return [("fig6.toml", "fig6", ["h10"], h10_1q), readings]
    return [("fig6.toml", "fig6", TRAFFIC, every), readings]


def curves(quick, fig="fig6"):
    """(traffic, scheme, technique, reading) for every curve the runs make; reading '' = not ARN."""
    return [(t, *c) for _, _, patterns, cs in studies(quick, fig) for t in patterns for c in cs]


def reading_name(reading):
    """Legend and check label of a reading: "R2", "R3, text"."""
    incast, _, adapted = reading.partition("_")
    return incast.upper() + (f", {adapted}" if adapted else "")


def label(c):
    traffic, scheme, technique, reading = c
    return f"{traffic}_{scheme}_{technique}" + (f"_{reading}" if reading else "")


def config_path(name):
    return os.path.join(ROOT, "configs", "papers", "rocher2021", name)


def missing_configs(quick, fig="fig6"):
    return sorted({config_path(c) for c, _, _, _ in studies(quick, fig) if not os.path.isfile(config_path(c))})


def study_args(study, quick, fig="fig6"):
    """The config and --set arguments of one run: the figure's timing and network, and its two case
    axes as this run narrows them (rocher2021_configs renders each case as in the config files)."""
    config, _, patterns, cs = study
    sets = list(PREVIEW_SETS) if quick else []
    if fig == "fig7":
        sets += FIG7_SETS
    hot4 = FIG7_HOT4 if fig == "fig7" else None
    scale = PREVIEW_SCALE if quick else 1.0
    pattern_axis = [rocher2021_configs.inline_case(t, rocher2021_configs.pattern_case_keys(t, hot4, scale))
                    for t in patterns]
    curve_axis = []
    for scheme, technique, reading in cs:
        keys = rocher2021_configs.curve_case_keys(scheme, technique, reading or "r2")
        if quick and technique.startswith("arn"):
            keys.update(PREVIEW_ARN_KEYS)
        curve_axis.append(rocher2021_configs.inline_case(curve_name(scheme, technique, reading), keys))
    sets += ["sweep.pattern=[" + ", ".join(pattern_axis) + "]", "sweep.curve=[" + ", ".join(curve_axis) + "]"]
    return [config_path(config)] + [a for x in sets for a in ("--set", x)]


def validate(saturn, quick, fig="fig6"):
    """`saturn validate` on every run the figure would make; returns the error lines (none: all valid)."""
    errors = []
    for st in studies(quick, fig):
        p = subprocess.run([saturn, "validate"] + study_args(st, quick, fig), capture_output=True, text=True)
        if p.returncode != 0:
            errors.append(f"{st[1]}: {p.stderr.strip()}")
    return errors


# "--force": a figure run twice replaces its runs; "--resume" (saturn reproduce --resume) keeps the
# trials a stopped run finished and reads a complete run as it is. rocher2021_fig8.py's runs too.
REPLACE_FLAG = "--force"


def run_saturn(cmd, **kwargs):
    """One saturn run (saturn_child.run: a stop reaches it and is waited out; or this command's slice
    of it), its command line printed (reproduce_shards.run)."""
    reproduce_shards.run(cmd, **kwargs)


def read_study(d):
    """A figure run's series.csv: {(traffic, scheme, technique, reading): [(time_ms, efficiency)]},
    the efficiency (throughput_per_node) averaged over each curve's trials per time."""
    acc = collections.defaultdict(lambda: collections.defaultdict(list))
    with open(os.path.join(d, "series.csv"), newline="") as f:
        for row in csv.DictReader(f):
            if row["metric"] != "throughput_per_node":
                continue
            scheme, technique, *rest = row["curve"].split("/")
            reading = rest[0] if rest else ("r2" if technique.startswith("arn") else "")
            acc[(row["pattern"], scheme, technique, reading)][float(row["time_ns"])].append(float(row["value"]))
    return {k: sorted((t / 1e6, sum(v) / len(v)) for t, v in per_time.items()) for k, per_time in acc.items()}


def run_study(saturn, out, study, quick, fig="fig6"):
    d = os.path.join(out, study[1])
    run_saturn([saturn, "run"] + study_args(study, quick, fig) + ["--out", d, "--quiet", REPLACE_FLAG])
    return read_study(d)


def plot(data, scale, out, title, fig_name="fig6"):
    plt = headless_pyplot.pyplot()
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
    # Each run is one study: its batches share the machine's threads (host/study), so the runs go
    # one after another.
    data = {}
    for st in studies(quick, fig):
        data.update(run_study(saturn, out, st, quick, fig))
    todo = curves(quick, fig)
    missing = [label(c) for c in todo if c not in data]
    if missing:
        raise SystemExit(f"saturn reproduce: no series for {len(missing)} curves, first {missing[0]}")
    data = {c: data[c] for c in todo}
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
