#!/usr/bin/python3
"""Jiang, Dennison & Dally 2015 (001) reproductions: the figure logic behind
`saturn reproduce jiang2015 FIGURE` (scripts/reproduce_jiang2015.py holds the acceptance checks).

Every series of 001's figures can be run: the **baseline** (every data packet ACKed), **ECN**,
**SRP**, **SMSRP**, **LHRP** (with and without fabric drop) and the **comprehensive** protocol; the
CIOQ output queues of 001's switch are not built (docs/jiang2015.md).
Each figure is one study, configs/papers/jiang2015/<fig>.toml: a `curve` case axis over the
series below (scripts/figure_configs.py writes it from the per-curve configs, which run one curve
by hand), run as one `saturn run` into <out>/study/; fig11 and fig13 run a config per panel. Each
writes <out>/<fig>_<series>.csv and <out>/<fig>.png; fig7 adds minimal routing as an unchecked
reference.

  fig2  uniform random, 48-flit messages: baseline and SRP, latency against accepted throughput
        (item 14's 48-flit half; its 4-flit half is fig7's)
  fig7  uniform random, 4-flit messages: latency against accepted throughput (the baseline, SRP,
        SMSRP and LHRP curves of Figs. 2 and 7; items 14, 18) and the ejection breakdown at 80% load
        (item 19)
  fig5  60:4 hot spot, 4-flit messages: network latency and accepted data throughput per hot spot
        against offered load (the baseline, SRP, SMSRP and LHRP curves of Figs. 5a and 5b; items 15, 16)
  fig6  transient: 992 victims at 40% uniform, a 60:4 hot spot from 20 us: the victims' mean message
        latency over time, 2 us bins, mean over seeds with the lowest and highest seed (item 17)
  fig9  60:1 hot spot, 4-flit messages: LHRP's network latency against over-subscription, last-hop
        drop only and with fabric drop (item 20)
  fig10 uniform random, 192- and 512-flit messages: message latency against accepted throughput,
        baseline, SRP and LHRP (item 21)
  fig12 uniform random, half the data in 4-flit and half in 512-flit messages: the baseline and the
        comprehensive protocol, each size's message latency against its accepted throughput (item 23)
  fig11 LHRP's last-hop threshold swept (250 to 4000 flits and no drop): UR 512-flit message latency
        and saturation, the 60:4 hot spot's latency at 2x and 15x (item 22)
  fig13 LHRP with PAR under WC-Hot 1, 2, 4, 8: network latency against each hot node's load (item 24)

Full mode runs each config as written (001: 100 us warm-up + 400 us window = 500 us per run, the
config's load points, 3 seeds). --quick is a preview on 2 cores: 1 seed, fewer points, a 10-60 us
run (QUICK below); its overrides are written into the CSV header and the plot.
"""
import csv
import os
import sys
import textwrap
import tomllib

from reproduce_runs import case_means

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# 001's series this model lacks, per figure (none left: every figure has all of 001's series)
NOT_BUILT = {}

# Each figure's series: (name, config, label). The first is 001's setup (PAR) and the one the
# acceptance checks read; fig7 adds minimal routing as a reference curve, not checked. In the
# figures of STUDIES, the name is the case of the figure config's `curve` axis and the config is
# that curve alone.
FIGURES = {
    "fig2": [("par", "jiang2015/baseline_uniform_48.toml", "baseline, 48-flit, PAR (001)"),
             ("srp", "jiang2015/srp_uniform_48.toml", "SRP, 48-flit, PAR (001)")],
    "fig7": [("par", "jiang2015/baseline_uniform.toml", "baseline, PAR (001)"),
             ("ecn", "jiang2015/ecn_uniform.toml", "ECN, PAR (001)"),
             ("srp", "jiang2015/srp_uniform.toml", "SRP, PAR (001)"),
             ("lhrp", "jiang2015/lhrp_uniform.toml", "LHRP, PAR (001)"),
             ("smsrp", "jiang2015/smsrp_uniform.toml", "SMSRP, PAR (001)"),
             ("minimal", "jiang2015/uniform_minimal.toml", "baseline, minimal routing (reference)")],
    "fig5": [("par", "jiang2015/baseline_hotspot_60_4.toml", "baseline, PAR (001)"),
             ("ecn", "jiang2015/ecn_hotspot_60_4.toml", "ECN, PAR (001)"),
             ("srp", "jiang2015/srp_hotspot_60_4.toml", "SRP, PAR (001)"),
             ("lhrp", "jiang2015/lhrp_hotspot_60_4.toml", "LHRP, PAR (001)"),
             ("smsrp", "jiang2015/smsrp_hotspot_60_4.toml", "SMSRP, PAR (001)")],
    # the victims' message latency over time
    "fig6": [("base", "jiang2015/transient_baseline.toml", "baseline, PAR (001)"),
             ("ecn", "jiang2015/transient_ecn.toml", "ECN, PAR (001)"),
             ("lhrp", "jiang2015/transient_lhrp.toml", "LHRP, PAR (001)"),
             ("smsrp", "jiang2015/transient_smsrp.toml", "SMSRP, PAR (001)")],
    # LHRP with the last-hop drop only, and with fabric drop
    "fig9": [("lhrp", "jiang2015/lhrp_hotspot_60_1.toml", "LHRP, last-hop drop only (001)"),
             ("fd", "jiang2015/lhrp_fd_hotspot_60_1.toml", "LHRP with fabric drop (001)")],
    "fig10": [("base192", "jiang2015/baseline_uniform_192.toml", "baseline, 192-flit messages"),
              ("srp192", "jiang2015/srp_uniform_192.toml", "SRP, 192-flit messages"),
              ("lhrp192", "jiang2015/lhrp_uniform_192.toml", "LHRP, 192-flit messages"),
              ("base512", "jiang2015/baseline_uniform_512.toml", "baseline, 512-flit messages"),
              ("srp512", "jiang2015/srp_uniform_512.toml", "SRP, 512-flit messages"),
              ("lhrp512", "jiang2015/lhrp_uniform_512.toml", "LHRP, 512-flit messages")],
    # half the data volume in 4-flit, half in 512-flit messages; each size's latency apart
    "fig12": [("base", "jiang2015/baseline_mix.toml", "baseline, PAR (001)"),
              ("comp", "jiang2015/comprehensive_mix.toml", "comprehensive LHRP + SRP, PAR (001)")],
    # two sweep axes each: one curve per value of the second (SWEPT below)
    "fig11": [("ur512", "jiang2015/lhrp_threshold_uniform_512.toml", "LHRP, UR 512-flit"),
              ("hotspot", "jiang2015/lhrp_threshold_hotspot_60_4.toml", "LHRP, 60:4 hot spot")],
    "fig13": [("wchot", "jiang2015/lhrp_wc_hot.toml", "LHRP, PAR, WC-Hot n")],
}

# Quick overrides of single series, after QUICK: fig11's UR at 0.6 and 0.9 (past saturation) for
# 15 us; its hot spot at 2x and 15x as configured, for 40 us (the last-hop queues must fill up to the
# threshold, up to 4000 flits).
QUICK_SERIES = {
    "lhrp_threshold_uniform_512.toml": ["simulation.warmup_ns=5000", "simulation.duration_ns=10000",
                                        "sweep.traffic.load=[0.6, 0.9]"],
    "lhrp_threshold_hotspot_60_4.toml": ["simulation.warmup_ns=20000", "simulation.duration_ns=20000"],
}

# The figures that run as one study, configs/papers/jiang2015/<fig>.toml (the others: a config per panel)
STUDIES = ("fig2", "fig5", "fig6", "fig7", "fig9", "fig10", "fig12")


def study_config(fig):
    return f"jiang2015/{fig}.toml"


def header_of(fig, name, config, label, mode):
    """The first lines of a series' CSV: what ran, and how."""
    where = (f"configs/papers/{study_config(fig)}, curve {name} (one curve: configs/papers/{config})" if fig in STUDIES
             else f"configs/papers/{config}")
    return [f"Jiang, Dennison & Dally 2015 {fig}, {label}: {where}", mode]


# fig11, fig13: the sweep axis besides the load that names each curve
SWEPT = {"fig11": "cc.lhrp_threshold_flits", "fig13": "traffic.wc_hot_nodes"}

QUICK = {
    # all 1056 nodes inject 2-packet messages: 10 us per point, below and past saturation
    "fig2": ["simulation.trials=1", "simulation.warmup_ns=4000", "simulation.duration_ns=6000",
             "sweep.traffic.load=[0.5, 0.8, 0.9]"],
    # 0.8 is item 19's load; 0.9 lies past the 001 baseline's saturation (~0.8). All 1056 nodes
    # inject, so 10 us per point is what 2 cores allow.
    "fig7": ["simulation.trials=1", "simulation.warmup_ns=4000", "simulation.duration_ns=6000",
             "sweep.traffic.load=[0.5, 0.8, 0.9]"],
    # source loads of 0.5x, 1x, 2x and 15x over-subscription of each hot spot (15 x load). Only 60
    # nodes inject, so the preview affords 60 us: the saturation tree needs tens of us to fill the
    # 2048-flit global VC buffers (a 10 us preview gave 2x / 0.5x latency 1.9, docs/jiang2015.md).
    "fig5": ["simulation.trials=1", "simulation.warmup_ns=20000", "simulation.duration_ns=40000",
             "sweep.traffic.load=[0.033333, 0.053333, 0.066667, 0.1, 0.133333, 1.0]"],
    # 20 us before the hot spot and 80 us after it, one seed (001: 10 seeds, the configs: 500 us)
    "fig6": ["simulation.trials=1", "simulation.duration_ns=100000"],
    # 3x (item 20's reference), 6x to 10x (the knee 001 puts past 7x) and 15x; 60 nodes inject.
    "fig9": ["simulation.trials=1", "simulation.warmup_ns=10000", "simulation.duration_ns=30000",
             "sweep.traffic.load=[0.05, 0.1, 0.116667, 0.133333, 0.15, 0.166667, 0.25]"],
    # all 1056 nodes inject messages of 8 or 22 packets: 15 us per point, below and past saturation
    "fig10": ["simulation.trials=1", "simulation.warmup_ns=5000", "simulation.duration_ns=10000",
              "sweep.traffic.load=[0.6, 0.8, 0.9]"],
    # all 1056 nodes inject, half the data in 512-flit messages: 15 us per point, as fig10
    "fig12": ["simulation.trials=1", "simulation.warmup_ns=5000", "simulation.duration_ns=10000",
              "sweep.traffic.load=[0.5, 0.7, 0.8, 0.9]"],
    # every threshold (the series add QUICK_SERIES)
    "fig11": ["simulation.trials=1"],
    # WC-Hot 1, 2, 4, 8 at loads giving each hot node 1.5x to 32x (n = 1) or 0.5x to 4x (n = 8)
    "fig13": ["simulation.trials=1", "simulation.warmup_ns=5000", "simulation.duration_ns=10000",
              "sweep.traffic.load=[0.046875, 0.0625, 0.125, 0.25, 1.0]"],
}


def config_facts(config):
    """What the derived quantities need from the config: endpoints, flit time, the window."""
    with open(os.path.join(ROOT, "configs", "papers", config), "rb") as f:
        c = tomllib.load(f)
    t, link = c["topology"], c["link"]
    return dict(endpoints=t["dragonfly_p"] * t["dragonfly_a"] * t["dragonfly_g"],
                flit_ns=link["flit_bytes"] * 8 / link["bandwidth_gbps"],
                ack_flits=c["cc"]["ack_bytes"] / link["flit_bytes"],
                duration_ns=float(c["simulation"]["duration_ns"]),
                hotspots=c["traffic"].get("hotspot_destinations"), hot_sources=c["traffic"].get("hotspot_sources"))


def override(sets, key, value):
    for s in sets:
        if s.startswith(key + "="):
            return float(s.split("=", 1)[1])
    return value


def rows_of(means, facts, sets):
    """One row per load point, sorted by load, with the quantities the checks and plots use."""
    window_cycles = override(sets, "simulation.duration_ns", facts["duration_ns"]) / facts["flit_ns"]
    n = facts["endpoints"]
    rows = []
    for key, m in means.items():
        load = float(key[0])
        # ejection shares (control packets are 1 flit); LHRP's NACKs are control packets too
        nacks = m.get("nack_packets", 0.0)
        row = dict(load=load, accepted=m["throughput_per_node"], latency_ns=m["net_latency_mean_ns"],
                   latency_p99_ns=m["net_latency_p99_ns"], msg_latency_ns=m["msg_latency_mean_ns"],
                   ack_share=(m["control_packets"] - nacks - m.get("reservation_packets", 0.0)
                              - m.get("grant_packets", 0.0)) * facts["ack_flits"] / (n * window_cycles),
                   nack_share=nacks * facts["ack_flits"] / (n * window_cycles),
                   res_share=m.get("reservation_packets", 0.0) * facts["ack_flits"] / (n * window_cycles),
                   grant_share=m.get("grant_packets", 0.0) * facts["ack_flits"] / (n * window_cycles),
                   dropped=m.get("dropped_packets", 0.0))
        for size in ("small", "large"):  # stats.size_split_bytes (fig12)
            if f"{size}_throughput_per_node" in m:
                row[f"{size}_accepted"] = m[f"{size}_throughput_per_node"]
                row[f"{size}_msg_latency_ns"] = m[f"{size}_msg_latency_mean_ns"]
        if facts["hotspots"]:
            # offered and accepted data per hot spot, as a fraction of its ejection channel
            row["oversub"] = load * facts["hot_sources"] / facts["hotspots"]
            row["accepted_per_hotspot"] = m["throughput_per_node"] * n / facts["hotspots"]
        rows.append(row)
    return sorted(rows, key=lambda r: r["load"])


def write_csv(path, rows, header_lines):
    with open(path, "w", newline="") as f:
        for line in header_lines:
            f.write(f"# {line}\n")
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            w.writerow({k: f"{v:.6g}" for k, v in r.items()})


def pyplot():
    """matplotlib's pyplot, headless. Imported only to plot: --validate runs no study and draws
    nothing, so it needs no matplotlib (a machine without it, such as the lent GPU machine, still
    validates every config); without it, one line naming the interpreter (headless_pyplot.py)."""
    import headless_pyplot  # (same folder: on sys.path as the running script's or reproduce.py's)
    return headless_pyplot.pyplot()


def save_figure(f, path, title):
    """Titles figure f (wrapped to its width: about 16 characters of 8-point text per inch),
    writes it to path and closes it."""
    width = int(f.get_figwidth() * 16)
    f.suptitle("\n".join(textwrap.fill(line, width) for line in title.split("\n")), fontsize=8)
    f.tight_layout()
    f.savefig(path, dpi=120)
    pyplot().close(f)


def plot(fig, series, path, title):
    """series: [(label, rows)]."""
    plt = pyplot()
    if fig in ("fig2", "fig7", "fig10"):
        f, ax = plt.subplots(figsize=(5.5, 4))
        key = "msg_latency_ns" if fig == "fig10" else "latency_ns"
        for label, rows in series:
            ax.plot([r["accepted"] for r in rows], [r[key] for r in rows], "o-", label=label)
        ax.set_xlabel("accepted data throughput (flits/node/cycle)")
        ax.set_ylabel("mean message latency (ns)" if fig == "fig10" else "mean network latency (ns)")
        ax.set_yscale("log")
    elif fig == "fig12":
        f, axes = plt.subplots(1, 2, figsize=(10, 4))
        for size, ax in zip(("small", "large"), axes):
            for label, rows in series:
                ax.plot([r[f"{size}_accepted"] for r in rows], [r[f"{size}_msg_latency_ns"] for r in rows], "o-",
                        label=label)
            ax.set_xlabel(f"accepted data throughput of the {size} messages (flits/node/cycle)")
            ax.set_ylabel(f"mean message latency, {'4' if size == 'small' else '512'}-flit (ns)")
            ax.set_yscale("log")
            ax.legend(fontsize=8)
    elif fig == "fig9":
        f, ax = plt.subplots(figsize=(5.5, 4))
        for label, rows in series:
            ax.plot([r["oversub"] for r in rows], [r["latency_ns"] for r in rows], "o-", label=label)
        ax.set_xlabel("offered load at the hot spot (x ejection bandwidth)")
        ax.set_ylabel("mean network latency (ns)")
        ax.set_yscale("log")
    else:
        f, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
        for label, rows in series:
            ax.plot([r["oversub"] for r in rows], [r["latency_ns"] for r in rows], "o-", label=label)
            ax2.plot([r["oversub"] for r in rows], [r["accepted_per_hotspot"] for r in rows], "o-", label=label)
        ax.set_xlabel("offered load per hot spot (x ejection bandwidth)")
        ax.set_ylabel("mean network latency (ns)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax2.set_xlabel("offered load per hot spot (x ejection bandwidth)")
        ax2.set_ylabel("accepted data throughput per hot spot")
        ax2.set_xscale("log")
        ax2.set_ylim(0, 1.1)
        ax2.legend(fontsize=8)
    ax.legend(fontsize=8)
    save_figure(f, path, title)


def victim_rows(out, curve):
    """fig6: curve's victims' mean message latency per series interval of <out>/series.csv: one row
    per interval end, the mean over seeds and the lowest and highest seed."""
    per_time = {}
    with open(os.path.join(out, "series.csv"), newline="") as f:
        for r in csv.DictReader(f):
            if r["curve"] == curve and r["metric"] == "victim_msg_latency_mean_ns" and r["value"] not in ("", "nan"):
                per_time.setdefault(float(r["time_ns"]), []).append(float(r["value"]))
    return [dict(time_us=t / 1000.0, victim_latency_ns=sum(v) / len(v), lowest_ns=min(v), highest_ns=max(v), seeds=len(v))
            for t, v in sorted(per_time.items())]


def plot_transient(series, path, title):
    plt = pyplot()
    f, ax = plt.subplots(figsize=(6, 4))
    for label, rows in series:
        x = [r["time_us"] for r in rows]
        line, = ax.plot(x, [r["victim_latency_ns"] for r in rows], label=label)
        ax.fill_between(x, [r["lowest_ns"] for r in rows], [r["highest_ns"] for r in rows], alpha=0.2,
                        color=line.get_color())
    ax.axvline(20, color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("time (us; the hot spot starts at 20 us)")
    ax.set_ylabel("victims' mean message latency (ns)")
    ax.legend(fontsize=8)
    save_figure(f, path, title)


def run_transient(saturn, out, quick, run_saturn):
    sets = QUICK["fig6"] if quick else []
    mode = "preview (--quick): " + " ".join(sets) if quick else "full: the configs as written"
    result, drawn = {}, []
    study = os.path.join(out, "study")
    run_saturn(saturn, study_config("fig6"), study, sets, ())
    for name, config, label in FIGURES["fig6"]:
        rows = victim_rows(study, name)
        header = header_of("fig6", name, config, label, mode) + [
            "band: the lowest and the highest seed", NOT_BUILT.get("fig6", "every series of 001's figure")]
        write_csv(os.path.join(out, f"fig6_{name}.csv"), rows, header)
        result[name] = rows
        drawn.append((label, rows))
    plot_transient(drawn, os.path.join(out, "fig6.png"),
                   f"001 fig6, {'PREVIEW (--quick): ' + ' '.join(sets) if quick else 'full'}\n"
                   + NOT_BUILT.get("fig6", "every series of 001's figure"))
    return result


def curves_of(out, axis, facts, sets):
    """fig11, fig13: <out>/summary.csv of a sweep over traffic.load and `axis`, as {axis value:
    rows (rows_of)}."""
    means = {}
    with open(os.path.join(out, "summary.csv"), newline="") as f:
        for r in csv.DictReader(f):
            means.setdefault(float(r[axis]), {}).setdefault((r["traffic.load"],), {})[r["metric"]] = float(r["mean"])
    return {value: rows_of(m, facts, sets) for value, m in sorted(means.items())}


def run_curves(fig, saturn, out, quick, run_saturn):
    plt = pyplot()
    axis = SWEPT[fig]
    result = {}
    f, axes = plt.subplots(1, len(FIGURES[fig]), figsize=(5.5 * len(FIGURES[fig]), 4), squeeze=False)
    for (name, config, label), ax in zip(FIGURES[fig], axes[0]):
        sets = list(QUICK[fig]) + QUICK_SERIES.get(os.path.basename(config), []) if quick else []
        run_saturn(saturn, config, os.path.join(out, name), sets, ())
        curves = curves_of(os.path.join(out, name), axis, config_facts(config), sets)
        result[name] = curves
        rows = [dict(r, **{axis.split(".")[-1]: value}) for value, rs in curves.items() for r in rs]
        mode = "preview (--quick): " + " ".join(sets) if quick else "full: the configs as written"
        write_csv(os.path.join(out, f"{fig}_{name}.csv"), rows, header_of(fig, name, config, label, mode))
        for value, rs in curves.items():
            tag = "inf" if value >= 2 ** 30 else f"{value:g}"
            if fig == "fig13":
                x = [r["load"] * 32 / value for r in rs]  # each hot node's offered load
                ax.plot(x, [r["latency_ns"] for r in rs], "o-", label=f"WC-Hot{tag}")
                ax.set_xlabel("offered load per hot node (x ejection bandwidth)")
                ax.set_xscale("log")
            elif name == "ur512":
                ax.plot([r["accepted"] for r in rs], [r["msg_latency_ns"] for r in rs], "o-", label=f"threshold {tag}")
                ax.set_xlabel("accepted data throughput (flits/node/cycle)")
            else:
                ax.plot([r["oversub"] for r in rs], [r["latency_ns"] for r in rs], "o-", label=f"threshold {tag}")
                ax.set_xlabel("offered load per hot spot (x ejection bandwidth)")
                ax.set_xscale("log")
        ax.set_ylabel("mean message latency (ns)" if name == "ur512" else "mean network latency (ns)")
        ax.set_yscale("log")
        ax.set_title(label, fontsize=9)
        ax.legend(fontsize=7)
    save_figure(f, os.path.join(out, f"{fig}.png"), f"001 {fig}, {'PREVIEW (--quick)' if quick else 'full'}")
    return result


def run_figure(fig, saturn, out, quick, run_saturn):
    """Runs the figure's series; returns {series name: rows (see rows_of, or victim_rows for fig6,
    or {swept value: rows} for fig11 and fig13)}."""
    if fig == "fig6":
        return run_transient(saturn, out, quick, run_saturn)
    if fig in SWEPT:
        return run_curves(fig, saturn, out, quick, run_saturn)
    sets = QUICK[fig] if quick else []
    mode = "preview (--quick): " + " ".join(sets) if quick else "full: the configs as written"
    result, drawn = {}, []
    missing = NOT_BUILT.get(fig, "every series of 001's figure")
    study = os.path.join(out, "study")
    run_saturn(saturn, study_config(fig), study, sets, ())
    means = case_means(study, "curve")  # {curve: {(load,): {metric: mean}}}
    for name, config, label in FIGURES[fig]:
        rows = rows_of(means[name], config_facts(config), sets)
        header = header_of(fig, name, config, label, mode) + [missing]
        write_csv(os.path.join(out, f"{fig}_{name}.csv"), rows, header)
        result[name] = rows
        drawn.append((label, rows))
    plot(fig, drawn, os.path.join(out, f"{fig}.png"),
         f"001 {fig}, {'PREVIEW (--quick): ' + ' '.join(sets) if quick else 'full'}\n{missing}")
    print(f"jiang2015 {fig}: {missing}", file=sys.stderr)
    return result

if __name__ == "__main__":
    # `jiang2015.py runs`: each figure's runs, one a line: FIGURE MODE CONFIG [SET...], tab-separated
    # (tests/integration/test_reproduce.cpp validates every one with saturn validate).
    if sys.argv[1:] != ["runs"]:
        print("usage: jiang2015.py runs (the figures run through saturn reproduce jiang2015)", file=sys.stderr)
        sys.exit(2)
    for fig, series in FIGURES.items():
        for config in [study_config(fig)] if fig in STUDIES else [config for _, config, _ in series]:
            for mode, sets in (("full", []), ("quick", QUICK[fig] + QUICK_SERIES.get(os.path.basename(config), []))):
                print("\t".join([fig, mode, os.path.join("configs", "papers", config)] + sets))
