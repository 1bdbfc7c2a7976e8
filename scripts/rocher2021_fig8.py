#!/usr/bin/python3
"""Rocher-Gonzalez et al. 2021 Fig. 8: the figure logic behind `saturn reproduce rocher2021 fig8`
(scripts/reproduce_rocher2021.py holds the acceptance checks of PAPERS-SPEC items 50 and 51).

Execution time of two application traces on the 432-node RLFT, for every routing technique and
queuing scheme, without and with an HS10 congestion tree injected on top (the figure's error bars
are the extra time the tree costs). The VEF traces of 003 are not available: the substitutes of
scripts/gen_traces.py stand in (PTRANS-like pairwise exchanges; Inception-v3-like ring
all-reduce), generated into <out>/traces/ with a fixed seed. Each point of the study is a trace
with or without its tree (the `run` case) and a curve (the `curve` case, as Fig. 6's): the
technique, the queuing scheme, switch.vcs (the scheme's VCs, plus the AFC with AFI), and for the
ARN techniques the CRT, the ARN time-to-live and incast reading R2 (the reading that recovers from
H10 in Fig. 6); round-robin input and VC arbitration as Fig. 6.
traffic.message_bytes = [4096] only tells the isolation setup that every packet is a full MTU:
the isolation model counts MTU packets, so every trace message is a whole number of 4 KB packets
(PTRANS sizes are powers of two from 64 KiB; the CNN all-reduce messages are rounded up to 4 KB
multiples by gen_traces.py --round-bytes 4096, and the quick trace's 3,932,160 parameters make
them exact: 40 KB).

Both modes run the four queuing schemes x six techniques, without and with the tree (96 points of
one study: configs/papers/rocher2021/fig8.toml, its `run` and `curve` case axes set by --set).
Full: the paper-size traces (PTRANS ~0.2 s; the CNN trace's defaults, 512 ranks, 3 iterations;
the tree from 3 ms for 100 ms / 400 ms), CRT 5 ms. Quick: the reduced traces of docs/traces.md
(PTRANS 20 phases, tree 0.05-1.55 ms; CNN 96 ranks, tree 0.1-2.1 ms) with the CRT and TTL of the
Fig. 6 preview (0.5 ms, 0.1 ms).
"""
import csv
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import headless_pyplot  # noqa: E402
import rocher2021  # noqa: E402
import rocher2021_configs  # noqa: E402
from rocher2021 import NAMES, TECHNIQUES  # noqa: E402

TRACES = ["ptrans", "cnn"]
SCHEMES = ["1q", "dbbm", "vftree", "flow2sl"]
# gen_traces.py arguments and the tree's start and length (ms) per trace, full and quick.
GEN = {
    ("ptrans", False): (["ptrans", "--nodes", "432", "--incast", "hs10"], 3.0, 100.0),
    ("cnn", False): (["cnn", "--nodes", "432", "--incast", "hs10", "--round-bytes", "4096"], 3.0, 400.0),
    ("ptrans", True): (["ptrans", "--nodes", "432", "--phases", "20", "--incast", "hs10", "--incast-start-ms", "0.05",
                        "--incast-ms", "1.5"], 0.05, 1.5),
    ("cnn", True): (["cnn", "--nodes", "432", "--ranks", "96", "--rank-stride", "4", "--iterations", "1",
                     "--layer-groups", "4", "--params", "3932160", "--forward-ms", "1", "--backward-ms", "4",
                     "--incast", "hs10", "--incast-start-ms", "0.1", "--incast-ms", "2", "--round-bytes", "4096"], 0.1, 2.0),
}


def tree_ms(trace, quick):
    return GEN[(trace, quick)][2]


def runs(quick):
    """(trace, scheme, technique, incast) of every run the figure makes."""
    return [(t, s, q, inc) for t in TRACES for s in SCHEMES for q in TECHNIQUES for inc in (False, True)]


def incast_name(incast):
    return "incast" if incast else "noincast"


def label(r):
    trace, scheme, technique, incast = r
    return f"{trace}_{scheme}_{technique}_{incast_name(incast)}"


def study_args(quick, traces=None):
    """configs/papers/rocher2021/fig8.toml and its two case axes as this figure runs them: `run`
    with the figure's traces (traces: {trace: path}; None keeps the config's shipped preview traces)
    and `curve` with the ARN preview timing where quick."""
    config = os.path.join(ROOT, "configs", "papers", "rocher2021", "fig8.toml")
    run_axis = [rocher2021_configs.inline_case(f"{t}/{incast_name(inc)}",
                                               rocher2021_configs.fig8_run_keys(t, inc, (traces or {}).get(t)))
                for t in TRACES for inc in (False, True)]
    curve_axis = []
    for scheme in SCHEMES:
        for technique in TECHNIQUES:
            keys = rocher2021_configs.curve_case_keys(scheme, technique)
            if quick and technique.startswith("arn"):
                keys.update(rocher2021.PREVIEW_ARN_KEYS)
            curve_axis.append(rocher2021_configs.inline_case(f"{scheme}/{technique}", keys))
    sets = ["sweep.run=[" + ", ".join(run_axis) + "]", "sweep.curve=[" + ", ".join(curve_axis) + "]"]
    return [config] + [a for x in sets for a in ("--set", x)]


def validate(saturn, quick):
    """`saturn validate` on the figure's study, with the shipped preview traces (the figure's own
    traces are generated when it runs); returns the error lines."""
    p = subprocess.run([saturn, "validate"] + study_args(quick), capture_output=True, text=True)
    return [f"fig8: {p.stderr.strip()}"] if p.returncode != 0 else []


def make_traces(out, quick):
    paths = {}
    os.makedirs(os.path.join(out, "traces"), exist_ok=True)
    for trace in TRACES:
        path = os.path.join(os.path.abspath(out), "traces", f"{trace}{'-quick' if quick else ''}-hs10.trace")
        cmd = [sys.executable, os.path.join(HERE, "gen_traces.py")] + GEN[(trace, quick)][0] + ["--out", path]
        print("+ " + " ".join(cmd), file=sys.stderr)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        paths[trace] = path
    return paths


def read_times(d):
    """{(trace, scheme, technique, incast): execution time in ms} from the study's summary.csv."""
    times, unfinished = {}, []
    with open(os.path.join(d, "summary.csv"), newline="") as f:
        for row in csv.DictReader(f):
            trace, incast = row["run"].split("/")
            scheme, technique = row["curve"].split("/")
            key = (trace, scheme, technique, incast == "incast")
            if row["metric"] == "execution_time_ns":
                times[key] = float(row["mean"]) / 1e6
            elif row["metric"] == "trace_unfinished_nodes" and float(row["mean"]) != 0:
                unfinished.append(label(key))
    if unfinished:
        raise SystemExit(f"saturn reproduce: {unfinished[0]}: the trace did not finish within simulation.time_limit_ns")
    return times


def plot(rows, out, title):
    plt = headless_pyplot.pyplot()
    schemes = [s for s in SCHEMES if any(r["queue_scheme"] == s for r in rows)]
    fig, axes = plt.subplots(1, len(TRACES), figsize=(6 * len(TRACES), 3.8), squeeze=False)
    width = 0.8 / len(TECHNIQUES)
    for ax, trace in zip(axes.flat, TRACES):
        for k, technique in enumerate(TECHNIQUES):
            pts = [next(r for r in rows if r["trace"] == trace and r["queue_scheme"] == s and r["technique"] == technique)
                   for s in schemes]
            xs = [i + (k - (len(TECHNIQUES) - 1) / 2) * width for i in range(len(schemes))]
            ax.bar(xs, [p["time_noincast_ms"] for p in pts], width, label=NAMES[technique],
                   yerr=[[0] * len(pts), [max(0.0, p["overhead_ms"]) for p in pts]], capsize=2)
        ax.set_xticks(range(len(schemes)))
        ax.set_xticklabels([s.upper() if s == "1q" else s for s in schemes])
        ax.set_ylabel("execution time (ms)")
        ax.set_title(f"{'PTRANS-like' if trace == 'ptrans' else 'Inception-v3-like'} trace", fontsize=9)
    axes.flat[0].legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig8.png"), dpi=110)
    plt.close(fig)


def run_figure(saturn, out, quick):
    """Generates the traces, runs every (trace, scheme, technique) without and with the tree as one
    study (its batches side by side over the threads); writes fig8.csv and fig8.png. Returns (rows, quick)."""
    traces = make_traces(out, quick)
    todo = runs(quick)
    d = os.path.join(out, "fig8")
    rocher2021.run_saturn([saturn, "run"] + study_args(quick, traces) + ["--out", d, "--quiet", rocher2021.REPLACE_FLAG],
                          stdout=subprocess.DEVNULL)
    times = read_times(d)
    rows = []
    for trace, scheme, technique, incast in todo:
        if incast:
            continue
        base, tree = times[(trace, scheme, technique, False)], times[(trace, scheme, technique, True)]
        rows.append(dict(trace=trace, queue_scheme=scheme, technique=technique, time_noincast_ms=base,
                         time_incast_ms=tree, overhead_ms=tree - base, tree_ms=tree_ms(trace, quick)))
    with open(os.path.join(out, "fig8.csv"), "w", newline="") as f:
        f.write("# Rocher-Gonzalez et al. 2021 Fig. 8 " + ("PREVIEW (--quick: reduced traces)" if quick else
                                                            "(paper-size substitute traces)") + "\n")
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    title = ("Rocher-Gonzalez et al. 2021 Fig. 8 (bar: without the tree; whisker: with it), " +
             ("PREVIEW (reduced traces: PTRANS 20 phases, tree 1.5 ms; CNN 96 ranks, tree 2 ms)" if quick
              else "substitute traces, HS10 tree of 100 ms (PTRANS) and 400 ms (CNN)"))
    plot(rows, out, title)
    return rows, quick
