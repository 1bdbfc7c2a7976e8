#!/usr/bin/python3
"""Santos, Turner & Janakiraman 2002 reproductions: the figure logic behind
`saturn reproduce santos2002 FIGURE` (scripts/reproduce_santos2002.py holds the acceptance checks). Runs
build/saturn on configs/papers/santos2002/<fig>.toml and writes CSV files and a PNG to
results/santos2002/<fig>/. It still runs on its own:

  /usr/bin/python3 scripts/santos2002.py fig2a          # Figs. 2(a)(b), 3(a)(b), 4(a)-(d): timelines
  /usr/bin/python3 scripts/santos2002.py fig5           # Fig. 5(a)(b): threshold x buffer sweep
  /usr/bin/python3 scripts/santos2002.py fig6           # Fig. 6: recovery curves (saturn response)
  /usr/bin/python3 scripts/santos2002.py fig7           # Fig. 7: response functions x buffers
  /usr/bin/python3 scripts/santos2002.py fig8a|fig8b    # Fig. 8: dynamic flows against ON time
  /usr/bin/python3 scripts/santos2002.py item36         # Fig. 5 at L = R = 5, 15, 20, with item 36's checks
  ... --quick   fewer trials, points and ms (docs/santos2002.md says which figures are quick runs)
  ... --set KEY=VALUE (repeatable) passes overrides to saturn run
  SATURN_BINARY=path/to/saturn selects another build (default build/saturn)

Timelines run 0-100 ms with series.csv every 0.1 ms and plot 2 ms centred averages; <fig>_window.csv
has the acceptance window [45, 58] ms per metric (mean and 95% CI over trials). Sweeps write
<fig>_points.csv: one row per point with the mean and 95% CI over trials of each plotted quantity.
Fairness = aggregate remote / aggregate local rate.
"""
import argparse
import csv
import math
import os
import statistics
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import headless_pyplot  # noqa: E402
import santos_configs  # noqa: E402
import reproduce_shards  # noqa: E402

plt = headless_pyplot.pyplot()  # every figure plots: without matplotlib, one line before any run

PACKET = 2068
TIMELINES = ["fig2a", "fig2b", "fig3a", "fig3b", "fig4a", "fig4b", "fig4c", "fig4d"]
QUICK = {  # reduced runs (overrides): always printed into the CSV header and the plot title
    "timeline": ["simulation.trials=4"],
    "fig5": ["simulation.trials=2", "simulation.warmup_ns=20e6", "simulation.duration_ns=80e6",
             "sweep.switch.buffer_bytes=[%s]" % ", ".join(str(b * PACKET) for b in (2, 3, 4, 6, 8, 12, 16, 20))],
    "fig7": ["simulation.trials=2", "simulation.warmup_ns=20e6", "simulation.duration_ns=80e6",
             "sweep.switch.buffer_bytes=[%s]" % ", ".join(str(b * PACKET) for b in (2, 3, 4, 6, 8, 12, 16))],
    "fig8a": ["simulation.trials=2", "simulation.warmup_ns=20e6", "simulation.duration_ns=180e6",  # every ON time at 180 ms
              "sweep.on_ms=[%s]" % ", ".join(santos_configs.fig8a_on_cases(long_runs=False))],
    "fig8b": ["simulation.trials=2", "simulation.warmup_ns=20e6", "simulation.duration_ns=180e6"],
}


def ci95(values):
    values = [v for v in values if not math.isnan(v)]
    if not values:
        return float("nan"), float("nan")
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, 0.0
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def saturn_binary():
    return os.environ.get("SATURN_BINARY", os.path.join(ROOT, "build", "saturn"))


PLOT_ONLY = False
# How a run treats the results already in its directory: "--force" starts over (a figure run twice
# replaces its runs), "--resume" keeps the trials a stopped run finished (saturn reproduce --resume).
REPLACE_FLAG = "--force"


def run_saturn(config, out, sets):
    if PLOT_ONLY:  # re-plot the results already in `out`
        return
    cmd = [saturn_binary(), "run", config, "--out", out, "--quiet", REPLACE_FLAG]
    for s in sets:
        cmd += ["--set", s]
    reproduce_shards.run(cmd)  # a stop reaches the run and is waited out (saturn_child.py); or this command's slice


def read_trials(path):
    """(point, trial) -> {metric: value}, and point -> {swept key: value}."""
    trials, labels = defaultdict(dict), {}
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        swept = [k for k in reader.fieldnames if k not in ("point", "trial", "seed", "metric", "value")]
        for r in reader:
            key = (int(r["point"]), int(r["trial"]))
            trials[key][r["metric"]] = float(r["value"])
            labels[int(r["point"])] = {k: r[k] for k in swept}
    for label in labels.values():  # Fig. 8(a)'s ON cases (santos_configs.fig8a_on_cases) as the ON time they set
        if "on_ms" in label:
            label["traffic.on_off_mean_ns"] = f"{float(label.pop('on_ms')) * 1e6:g}"
    return trials, labels


def groups(m):
    """A trial's link utilizations, victim rate, and aggregate local and remote rates."""
    local = sum(v for k, v in m.items() if k.startswith("flow_rate[L"))
    remote = sum(v for k, v in m.items() if k.startswith("flow_rate[R"))
    return {"root": m["link_util[B->B_C]"], "inter": m["link_util[A->B]"], "victim": m["flow_rate[A_V->B_V]"],
            "local": local, "remote": remote, "fairness": remote / local if local > 0 else float("nan"),
            "marked": m.get("marked_fraction", float("nan"))}


def write_points(path, labels, per_point, quantities, note):
    with open(path, "w", newline="") as f:
        f.write("# " + note + "\n")
        w = csv.writer(f)
        keys = list(next(iter(labels.values())).keys())
        w.writerow(["point"] + keys + [f"{q}_{s}" for q in quantities for s in ("mean", "ci95")] + ["trials"])
        for p in sorted(per_point):
            row = [p] + [labels[p][k] for k in keys]
            for q in quantities:
                row += ["%.6g" % x for x in ci95([t[q] for t in per_point[p]])]
            w.writerow(row + [len(per_point[p])])


def timeline(fig, out, sets, note):
    config = os.path.join(ROOT, "configs", "papers", "santos2002", fig + ".toml")
    run_saturn(config, out, ["simulation.warmup_ns=0", "simulation.duration_ns=100e6"] + sets)
    series = defaultdict(lambda: defaultdict(dict))  # trial -> time -> metric -> value
    with open(os.path.join(out, "series.csv"), newline="") as f:
        for r in csv.DictReader(f):
            series[int(r["trial"])][float(r["time_ns"])][r["metric"]] = float(r["value"])
    quantities = ["root", "inter", "local_mean", "remote_mean", "victim"]
    per_trial = {}
    for trial, by_time in series.items():
        rows = []
        for t in sorted(by_time):
            g = groups(by_time[t])
            nl = sum(1 for k in by_time[t] if k.startswith("flow_rate[L"))
            nr = sum(1 for k in by_time[t] if k.startswith("flow_rate[R"))
            rows.append((t, {"root": g["root"], "inter": g["inter"], "local_mean": g["local"] / nl,
                             "remote_mean": g["remote"] / nr, "victim": g["victim"]}))
        per_trial[trial] = rows
    times = [t for t, _ in per_trial[min(per_trial)]]
    step = times[1] - times[0] if len(times) > 1 else 0
    if len(times) < 2 or times[0] > 45e6 or times[-1] + step < 58e6:  # e.g. a shorter simulation.duration_ns
        end_ms = (times[-1] + step) / 1e6 if times else 0
        print(f"saturn reproduce: santos2002 {fig}: the series ends at {end_ms:g} ms, before the end of the acceptance "
              "window [45, 58] ms; simulation.duration_ns must be at least 58000000", file=sys.stderr)
        sys.exit(2)
    half = int(round(1e6 / step))  # 2 ms centred window = +-1 ms
    smooth = {q: [] for q in quantities}
    for i in range(len(times)):
        lo, hi = max(0, i - half), min(len(times), i + half)
        for q in quantities:
            smooth[q].append(statistics.fmean(per_trial[tr][j][1][q] for tr in per_trial for j in range(lo, hi)))
    with open(os.path.join(out, fig + "_timeline.csv"), "w", newline="") as f:
        f.write("# " + note + "; 2 ms centred average, mean over trials\n")
        w = csv.writer(f)
        w.writerow(["time_ms"] + quantities)
        for i, t in enumerate(times):
            w.writerow(["%.2f" % ((t + step / 2) / 1e6)] + ["%.5f" % smooth[q][i] for q in quantities])
    window = {}
    per_flow = {trial: window_flows(by_time, 45e6, 58e6, step) for trial, by_time in series.items()}
    with open(os.path.join(out, fig + "_window.csv"), "w", newline="") as f:
        f.write("# " + note + "; window [45, 58] ms\n")
        w = csv.writer(f)
        w.writerow(["quantity", "mean", "ci95", "trials"])
        for q in quantities + ["local_share"] + list(next(iter(per_flow.values()))):
            vals = []
            for trial, rows in per_trial.items():
                win = [r for t, r in rows if 45e6 <= t and t + step <= 58e6]
                if q == "local_share":
                    loc = statistics.fmean(r["local_mean"] for r in win)
                    rem = statistics.fmean(r["remote_mean"] for r in win)
                    nl = sum(1 for k in series[min(series)][times[0]] if k.startswith("flow_rate[L"))
                    nr = sum(1 for k in series[min(series)][times[0]] if k.startswith("flow_rate[R"))
                    vals.append(loc * nl / (loc * nl + rem * nr))
                elif q in per_flow[trial]:
                    vals.append(per_flow[trial][q])
                else:
                    vals.append(statistics.fmean(r[q] for r in win))
            mean, ci = ci95(vals)
            window[q] = mean
            w.writerow([q, "%.4f" % mean, "%.4f" % ci, len(vals)])
    plt.figure(figsize=(7, 4))
    labels = {"root": "root link B->B_C", "inter": "inter-switch link A->B", "local_mean": "each local flow",
              "remote_mean": "each remote flow", "victim": "victim flow"}
    for q in quantities:
        plt.plot([(t + step / 2) / 1e6 for t in times], smooth[q], label=labels[q])
    plt.axvspan(45, 58, color="0.9", zorder=0)
    plt.xlabel("time (ms)")
    plt.ylabel("rate (fraction of link bandwidth)")
    plt.ylim(0, 1.05)
    plt.title(f"Santos et al. {fig}" + (" (quick)" if "quick" in note else ""), fontsize=10)
    plt.legend(fontsize=8, loc="upper left")
    plt.tight_layout()
    plt.savefig(os.path.join(out, fig + ".png"), dpi=110)
    plt.close()
    return window


def window_flows(by_time, lo, hi, step):
    """One trial's per-flow quantities over the window [lo, hi] ns, the flows' spread the checks of
    items 26, 29, 30 read (each flow's window mean, then over the flows of a class: the lowest,
    the highest, and the largest |flow / class mean - 1|, "spread"), and the fraction of the
    window in which B's input buffer fed by A (the inter-switch link) was full (items 27, 28)."""
    win = [t for t in sorted(by_time) if lo <= t and t + step <= hi]
    out = {}
    for cls, prefix in (("local", "flow_rate[L"), ("remote", "flow_rate[R")):
        rates = [statistics.fmean(by_time[t][k] for t in win) for k in sorted(by_time[win[0]]) if k.startswith(prefix)]
        mean = statistics.fmean(rates)
        out[cls + "_min"], out[cls + "_max"] = min(rates), max(rates)
        out[cls + "_spread"] = max(abs(r / mean - 1) for r in rates) if mean > 0 else float("nan")
    if "buffer_full[A->B]" in by_time[win[0]]:
        out["buffer_full_inter"] = statistics.fmean(by_time[t]["buffer_full[A->B]"] for t in win)
    return out


def sweep(fig, out, sets, note, static_flows=frozenset()):
    """Runs a sweep figure; `static_flows` (metric names) split the root flows into static and dynamic."""
    config = os.path.join(ROOT, "configs", "papers", "santos2002", fig + ".toml")
    run_saturn(config, out, sets)
    trials, labels = read_trials(os.path.join(out, "trials.csv"))
    per_point = defaultdict(list)
    for (p, _), m in trials.items():
        g = groups(m)
        static = sum(v for k, v in m.items() if k in static_flows)
        g["static"] = static
        g["dynamic"] = g["local"] + g["remote"] - static
        per_point[p].append(g)
    quantities = ["root", "inter", "victim", "local", "remote", "fairness", "static", "dynamic", "marked"]
    write_points(os.path.join(out, fig + "_points.csv"), labels, per_point, quantities, note)
    return labels, {p: {q: ci95([t[q] for t in v]) for q in quantities} for p, v in per_point.items()}



def item36_quick(n):
    """Item 36 quick run at L = R = n: 2 trials, [10, 20] ms, buffers 2-8 and two past R + 2."""
    sizes = sorted({2, 4, 6, 8, n + 2, n + 6})
    return ["simulation.trials=2", "simulation.warmup_ns=10e6", "simulation.duration_ns=10e6",
            "sweep.switch.buffer_bytes=[%s]" % ", ".join(str(b * PACKET) for b in sizes)]


def item36_checks(n, labels, stats):
    """Items 34 and 35's qualitative checks at L = R = n, the flat onset at R + 2: [(check, detail, ok)]."""
    root, fair, marked = defaultdict(dict), defaultdict(dict), defaultdict(dict)
    for p, lab in labels.items():
        thr, b = int(lab["cc.output_threshold"]), round(int(lab["switch.buffer_bytes"]) / PACKET)
        root[thr][b], fair[thr][b] = stats[p]["root"][0], stats[p]["fairness"][0]
        marked[thr][b] = stats[p].get("marked", (float("nan"),))[0]  # (points written before 2026-12-06 lack it)
    sizes = sorted(root[0])
    large = [b for b in sizes if b >= n + 2]
    small = [b for b in sizes if b <= n + 1]
    fmt = lambda d, bs: " ".join("%d:%.3f" % (b, d[b]) for b in bs)  # noqa: E731
    out = [("threshold 4: root < 0.90 at every buffer", fmt(root[4], sizes), all(v < 0.90 for v in root[4].values())),
           ("threshold 6: root > 0.90 for buffer >= 6", fmt(root[6], [b for b in sizes if b >= 6]),
            all(root[6][b] > 0.90 for b in sizes if b >= 6))]
    for thr in (0, 6, 8):
        out.append((f"threshold {thr}: root at 2 < root at 8", fmt(root[thr], [2, 8]), root[thr][2] < root[thr][8]))
    for thr in sorted(root):
        r, f = [root[thr][b] for b in large], [fair[thr][b] for b in large]
        out.append((f"threshold {thr}: flat for buffer >= R + 2 = {n + 2} (root +-0.02, fairness +-0.05)",
                    "root " + fmt(root[thr], large) + "; fairness " + fmt(fair[thr], large),
                    max(r) - min(r) <= 0.04 and max(f) - min(f) <= 0.10))
    none = [marked[0][b] for b in large]
    out.append(("input only: no marks at all for buffer >= R + 2",
                "absent: the points hold no marked fraction" if any(math.isnan(v) for v in none) else fmt(marked[0], large),
                all(v == 0 for v in none)))
    out.append(("input only: root >= 0.97 for buffer >= R + 2", fmt(root[0], large), all(root[0][b] >= 0.97 for b in large)))
    out.append(("input only: remote/local < 1 at buffer 2", fmt(fair[0], [2]), fair[0][2] < 1))
    steps = [fair[0][b2] - fair[0][b1] for b1, b2 in zip(small, small[1:])]
    out.append((f"input only: remote/local increases up to buffer R + 1 = {n + 1}", fmt(fair[0], small),
                all(d > 0 for d in steps)))
    b = large[0]
    out.append((f"buffer {b}: remote/local(8) > remote/local(4)", "4:%.3f 8:%.3f" % (fair[4][b], fair[8][b]),
                fair[8][b] > fair[4][b]))
    out.append((f"buffer {b}: |remote/local(16) - 1| < |remote/local(8) - 1|", "8:%.3f 16:%.3f" % (fair[8][b], fair[16][b]),
                abs(fair[16][b] - 1) < abs(fair[8][b] - 1)))
    return out


def item36(out, quick, extra, note):
    """L = R in {5, 15, 20}: fig5_l<n>.toml each, one sweep per L, then the checks and one plot."""
    fig, axes = plt.subplots(3, 2, figsize=(10.4, 10))
    rows = []
    for row, n in enumerate((5, 15, 20)):
        name = f"fig5_l{n}"
        sets = (item36_quick(n) if quick else []) + extra
        sub = os.path.join(out, f"l{n}")
        os.makedirs(sub, exist_ok=True)
        sub_note = "saturn run configs/papers/santos2002/%s.toml%s%s" % (
            name, "".join(" --set " + x for x in sets), " (quick)" if quick else "")
        labels, stats = sweep(name, sub, sets, sub_note)
        os.replace(os.path.join(sub, name + "_points.csv"), os.path.join(out, name + "_points.csv"))
        rows += [(n,) + c for c in item36_checks(n, labels, stats)]
        curves = defaultdict(list)
        for p, lab in labels.items():
            curves[int(lab["cc.output_threshold"])].append((int(lab["switch.buffer_bytes"]) / PACKET, p))
        for ax, (q, ylabel) in zip(axes[row], [("root", "root link utilization"), ("fairness", "remote / local")]):
            for thr, pts in sorted(curves.items()):
                pts.sort()
                ax.errorbar([x for x, _ in pts], [stats[p][q][0] for _, p in pts], yerr=[stats[p][q][1] for _, p in pts],
                            marker="o", ms=3, capsize=2, label=f"threshold {thr}" if thr else "input only")
            ax.axvline(n + 2, color="0.7", ls=":")
            ax.set_title(f"L = R = {n}", fontsize=9)
            ax.set_xlabel("buffer size (packets)")
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Santos et al. item 36: Fig. 5 at L = R = 5, 15, 20 (dotted: R + 2)" + (" (quick)" if quick else ""),
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "item36.png"), dpi=110)
    with open(os.path.join(out, "item36_checks.csv"), "w", newline="") as f:
        f.write("# " + note + "\n")
        w = csv.writer(f)
        w.writerow(["L=R", "check", "values (buffer:value)", "pass"])
        for r in rows:
            w.writerow([r[0], r[1], r[2], "yes" if r[3] else "no"])
    for r in rows:
        print("L=R=%-2d %-4s %s  [%s]" % (r[0], "ok" if r[3] else "FAIL", r[1], r[2]))
    return rows


def plot_curves(path, labels, stats, x_key, x_fn, series_keys, panels, xlabel, title, logx=False):
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4))
    axes = axes if len(panels) > 1 else [axes]
    curves = defaultdict(list)
    for p, lab in labels.items():
        curves[tuple(lab[k] for k in series_keys)].append((x_fn(lab[x_key]), p))
    def numeric_first(item):
        return tuple((0, float(x), "") if x.replace(".", "", 1).isdigit() else (1, 0.0, x) for x in item[0])

    for ax, (q, ylabel) in zip(axes, panels):
        for name, pts in sorted(curves.items(), key=numeric_first):
            pts.sort()
            ax.errorbar([x for x, _ in pts], [stats[p][q][0] for _, p in pts], yerr=[stats[p][q][1] for _, p in pts],
                        marker="o", ms=3, capsize=2, label=" ".join(name))
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if logx:
            ax.set_xscale("log")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def run_figure(fig, out, quick=False, extra_sets=(), plot_only=False):
    """Runs one figure into `out` (CSV files and a PNG). Returns what the checks read: the window
    means {quantity: mean} of a timeline, (labels, stats) of a sweep, or Fig. 6's recovery rows."""
    global PLOT_ONLY
    PLOT_ONLY = plot_only
    os.makedirs(out, exist_ok=True)
    sets = (QUICK["timeline" if fig in TIMELINES else fig] if quick and fig not in ("fig6", "item36") else []) + list(extra_sets)
    note = "saturn run configs/papers/santos2002/%s.toml%s" % (fig, "".join(" --set " + s for s in sets))
    if quick:
        note += " (quick)"
    bytes_to_packets = lambda b: int(b) / PACKET  # noqa: E731
    if fig in TIMELINES:
        return timeline(fig, out, sets, note)
    if fig == "item36":
        return item36(out, quick, list(extra_sets), "saturn run configs/papers/santos2002/fig5_l{5,15,20}.toml" +
                      "".join(" --set " + s for s in extra_sets) +
                      (" with item36_quick()'s overrides (quick: 2 trials, [10, 20] ms)" if quick else ""))
    if fig == "fig6":
        if not PLOT_ONLY:
            subprocess.run([saturn_binary(), "response", "--out", out], check=True, stdout=subprocess.DEVNULL)
        data = defaultdict(lambda: defaultdict(list))
        with open(os.path.join(out, "recovery_curves.csv"), newline="") as f:
            for r in csv.DictReader(f):
                data[r["function"]][r["kind"]].append((float(r["ms"]), float(r["rate"])))
        plt.figure(figsize=(6, 4))
        for name in ("fimd", "aimd", "lipd"):
            xs, ys = zip(*data[name]["continuous"])
            plt.plot(xs, ys, label=name.upper() + " F_inc(t)")
            xs, ys = zip(*data[name]["ack"][:: max(1, len(data[name]["ack"]) // 60)])
            plt.plot(xs, ys, ".", ms=3, color=plt.gca().lines[-1].get_color())
        plt.xscale("log")
        plt.xlabel("time since R_min (ms, 2048-byte packets at 1 GB/s)")
        plt.ylabel("rate / R_max")
        plt.title("Santos et al. Fig. 6: recovery (lines: F_inc(t); dots: per-ACK steps)", fontsize=9)
        plt.legend(fontsize=8)
        plt.tight_layout()
        plt.savefig(os.path.join(out, "fig6.png"), dpi=110)
        plt.close()
        with open(os.path.join(out, "recovery.csv"), newline="") as f:
            return {r["function"]: r for r in csv.DictReader(f)}
    q = " (quick)" if quick else ""
    if fig == "fig5":
        labels, stats = sweep(fig, out, sets, note)
        plot_curves(os.path.join(out, "fig5.png"), labels, stats, "switch.buffer_bytes", bytes_to_packets,
                    ["cc.output_threshold"], [("root", "root link utilization"), ("fairness", "remote / local")],
                    "buffer size (packets)", "Santos et al. Fig. 5 (curves: output threshold, 0 = input only)" + q)
    elif fig == "fig7":
        labels, stats = sweep(fig, out, sets, note)
        plot_curves(os.path.join(out, "fig7.png"), labels, stats, "switch.buffer_bytes", bytes_to_packets,
                    ["cc.response", "cc.rates"], [("root", "root link utilization"),
                                                  ("inter", "inter-switch utilization"), ("fairness", "remote / local")],
                    "buffer size (packets)", "Santos et al. Fig. 7" + q)
    else:
        # Static flows of Fig. 8(a): the first 5 locals and first 5 remotes (the config marks the rest
        # dynamic); in Fig. 8(b) every root flow is dynamic.
        static = {f"flow_rate[{c}{i}->B_C]" for c in "LR" for i in range(1, 6)} if fig == "fig8a" else frozenset()
        labels, stats = sweep(fig, out, sets, note, static)
        if fig == "fig8a":
            plot_curves(os.path.join(out, "fig8a.png"), labels, stats, "traffic.on_off_mean_ns", lambda x: float(x) / 1e6,
                        ["cc.persistent"], [("static", "static flows, aggregate"), ("dynamic", "dynamic flows, aggregate")],
                        "mean ON time (ms)", "Santos et al. Fig. 8(a) (curves: persistent state)" + q, logx=True)
        else:
            plot_curves(os.path.join(out, "fig8b.png"), labels, stats, "traffic.on_off_mean_ns", lambda x: float(x) / 1e6,
                        ["cc.response"], [("root", "root link utilization"), ("inter", "inter-switch utilization")],
                        "mean ON time (ms)", "Santos et al. Fig. 8(b)" + q, logx=True)
    plt.close("all")
    return labels, stats


FIGURES = TIMELINES + ["fig5", "fig6", "fig7", "fig8a", "fig8b", "item36"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("figure", choices=FIGURES)
    ap.add_argument("--quick", action="store_true", help="reduced run (see QUICK in this script)")
    ap.add_argument("--set", action="append", default=[], help="extra saturn --set override")
    ap.add_argument("--out", default=None, help="output directory (default results/santos2002/<figure>)")
    ap.add_argument("--plot-only", action="store_true", help="re-plot the results already in the output directory")
    args = ap.parse_args()
    out = args.out or os.path.join(ROOT, "results", "santos2002", args.figure)
    run_figure(args.figure, out, args.quick, args.set, args.plot_only)
    print(out)


if __name__ == "__main__":
    main()
