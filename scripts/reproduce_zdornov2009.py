"""Zdornov & Birk 2009 in `saturn reproduce` (PAPERS-SPEC items 1-11): each figure's runs (the packet
engine's Fig. 1, Table 1 and packet Fig. 6, the flow engine's Figs. 4-6 and Algorithm 1), the CSV
files and plots they write, their acceptance checks, the readers of those files (`--checks-only`)
and the committed results."""
import csv
import os
import shutil
import sys

from reproduce_checks import above, at_least, at_most, in_range, near, truth
from reproduce_runs import (EXTRA_SETS, case_means, committed, figure, keep_summary, numeric_rows, read_rows,
                            run_saturn, summary_means)

FLOW_TIME_NS = 1638400.0  # Zdornov Fig. 1: 1000 packets of 2 KB at 10 Gb/s


FIG1_PLOTS = ("flow_rate", "completion_time_ns")


def run_fig1(saturn, out, quick):
    """NC and every flow at rate 1/4; keeps each run's summary as fig1_nc_summary.csv and
    fig1_optimal_summary.csv beside them (what docs/zdornov2009/ commits)."""
    sets = ["simulation.trials=2"] if quick else []
    result = {}
    for part, config in (("nc", "fig1.toml"), ("optimal", "fig1_optimal.toml")):
        result[part] = run_saturn(saturn, "zdornov2009/" + config, os.path.join(out, part), sets, FIG1_PLOTS)[()]
        shutil.copyfile(os.path.join(out, part, "summary.csv"), os.path.join(out, f"fig1_{part}_summary.csv"))
    return result


def load_fig1(directory, name, quick):
    return {part: summary_means(os.path.join(directory, f"{name}_{part}_summary.csv"))[()] for part in ("nc", "optimal")}


def check_fig1(result):
    nc, opt = result["nc"], result["optimal"]
    c = [near("sw1->sw2 utilization", nc["link_util[sw1->sw2]"], 2 / 3, 0.02, "2/3")]
    for f, want in (("s1->d1", 1 / 6), ("s2->d1", 1 / 6), ("s3->d2", 1 / 6), ("s4->d2", 1 / 6), ("s5->d2", 1 / 3),
                    ("s6->d2", 1 / 3)):
        c.append(near(f"rate {f}", nc[f"flow_rate[{f}]"], want, 0.01))
    c.append(near("NC completion (flow-times)", nc["completion_time_ns"] / FLOW_TIME_NS, 5.0, 0.1, "5"))
    c.append(near("rate 1/4 completion (flow-times)", opt["completion_time_ns"] / FLOW_TIME_NS, 4.0, 0.05, "4"))
    return c


def run_fig4(saturn, out, quick):
    m = run_saturn(saturn, "zdornov2009/fig4_ports.toml", out, (), ("switch_ports", "switch_ports_added_pct"))
    keep_summary(out, "fig4")
    return m


def load_summary(directory, name, quick):
    """The flow-engine figures' result: their run's summary, kept as <name>_summary.csv."""
    return summary_means(os.path.join(directory, f"{name}_summary.csv"))


def check_fig4(m):
    return [near("switch ports added at width 2", m[("2",)]["switch_ports"] - m[("0",)]["switch_ports"], 1980, 0),
            in_range("% added at width 2", m[("2",)]["switch_ports_added_pct"], 8, 12, "a mere 10%")]


def run_fig5(saturn, out, quick):
    m = run_saturn(saturn, "zdornov2009/fig5_contention.toml", out, ["simulation.trials=100"] if quick else [],
                   ("contention_max", "contention_mean"))
    keep_summary(out, "fig5")
    return m


def check_fig5(m):
    static_max = m[("dmodk", "0")]["contention_max"]
    static_avg = m[("dmodk", "0")]["contention_mean"]
    c = [near("static D-mod-K mean max contention", static_max, 5.9, 0.4),
         in_range("adaptive width 0 max / static max", m[("adaptive", "0")]["contention_max"] / static_max, 0.85, 1.15,
                  "no impact")]
    for w in ("2", "3", "4"):
        c.append(in_range(f"width {w}: max / static", m[("adaptive", w)]["contention_max"] / static_max, 0.40, 0.60, "~0.5"))
        c.append(at_most(f"width {w}: avg / static", m[("adaptive", w)]["contention_mean"] / static_avg, 0.80, "< 0.8"))
    seq = [m[("adaptive", w)]["contention_max"] for w in ("0", "1", "2", "3", "4")]
    c.append(truth("adaptive max non-increasing in width", all(b <= a for a, b in zip(seq, seq[1:])),
                   " ".join(f"{v:.2f}" for v in seq), "non-increasing"))
    return c


# PAPERS-SPEC item 9, Ref (A): fluid lower bounds W, 8 seeds each (their own uncertainty ±0.3).
ZDORNOV_FIG6_ORACLE = {1: (5.9, 3.0), 2: (8.5, 4.5), 3: (10.4, 6.0), 4: (12.4, 7.1), 5: (14.3, 8.6), 6: (16.3, 9.8),
                       7: (18.0, 11.0), 8: (19.6, 12.3)}


def run_fig6(saturn, out, quick):
    m = run_saturn(saturn, "zdornov2009/fig6_fluid.toml", out, ["simulation.trials=10"] if quick else [],
                   ("saa_completion", "maxmin_completion"))
    keep_summary(out, "fig6")
    return m


def check_fig6(m):
    """Item 9's Ref (A) at the spec's ±0.3 (until 2026-12-06 checked at ±0.6, the oracle's
    uncertainty and ours added: a band the spec does not give)."""
    c = []
    for p, (static, adaptive) in ZDORNOV_FIG6_ORACLE.items():
        for routing, oracle in (("dmodk", static), ("adaptive", adaptive)):
            r = m[(routing, str(p))]
            c.append(near(f"P={p} {routing}: SAA W", r["saa_completion"], oracle, 0.3, f"Ref (A) {oracle}"))
            c.append(near(f"P={p} {routing}: max-min completion - W", r["maxmin_completion"] - r["saa_completion"], 0, 1e-9,
                          "equal sizes"))
    return c


def run_alg1(saturn, out, quick):
    m = run_saturn(saturn, "zdornov2009/saa_protocol.toml", out, (),
                   ("saa_protocol_converged_steps", "saa_protocol_probes_to_final"))
    keep_summary(out, "alg1")
    return m


def check_alg1(m):
    c = []
    for label, r in sorted(m.items()):
        name = " ".join(label)
        c.append(near(f"{name}: W_f after one probe != central", r["saa_protocol_mismatches"], 0, 0, "exact"))
        c.append(near(f"{name}: later rate changes", r["saa_protocol_late_changes"], 0, 0, "none"))
        c.append(near(f"{name}: W_l left after every AnnounceEnd", r["saa_protocol_residual"], 0, 0, "0"))
    return c


# PAPERS-SPEC item 11 (000 Table 1): ratio of the minimum measured to the minimum SAA rate, n x b.
ZDORNOV_TABLE1_PAPER = {1: (0.38, 1.00, 1.00, 1.00), 2: (0.19, 0.64, 1.00, 1.00), 3: (0.18, 0.31, 1.00, 1.00),
                        4: (0.18, 0.25, 1.00, 1.00), 5: (0.20, 0.39, 1.00, 1.00)}


def run_table1(saturn, out, quick):
    """PS and the fixed window on the same flows; writes table1.csv (scheduler, n, b, mean, ci95, paper).
    The paper's setup (4096 nodes, AR), or with --quick the 64-node modified 4-ary 3-tree, 10 runs.
    One study, configs/papers/zdornov2009/table1.toml (the per-scheduler configs: one by hand)."""
    sets = (["topology.k=4", "simulation.trials=10"] if quick else []) + EXTRA_SETS
    cells = {}
    d = os.path.join(out, "study")
    run_saturn(saturn, "zdornov2009/table1.toml", d, sets, ())
    with open(os.path.join(d, "summary.csv"), newline="") as f:
        for r in csv.DictReader(f):
            if r["metric"] != "rate_ratio_min":
                continue
            b = int(float(r["switch.buffer_bytes"])) // 2048
            n = int(float(r["traffic.permutations"]))
            cells[(r["scheduler"], n, b)] = (float(r["mean"]), float(r["ci95_low"]), float(r["ci95_high"]))
    with open(os.path.join(out, "table1.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scheduler", "n", "b", "ratio_min_mean", "ci95_low", "ci95_high", "paper_ps"])
        for (sched, n, b), (m, lo, hi) in sorted(cells.items()):
            w.writerow([sched, n, b, f"{m:.4f}", f"{lo:.4f}", f"{hi:.4f}", ZDORNOV_TABLE1_PAPER[n][(2, 4, 8, 16).index(b)]])
    for sched in ("ps", "window"):
        print(f"{sched}: n \\ b   2      4      8      16", file=sys.stderr)
        for n in range(1, 6):
            print(f"  {n}        " + "  ".join(f"{cells[(sched, n, b)][0]:.3f}" for b in (2, 4, 8, 16)), file=sys.stderr)
    return {k: v[0] for k, v in cells.items()}


def load_table1(directory, name, quick):
    """table1.csv: {(scheduler, n, b): mean ratio of the minima}."""
    return {(r["scheduler"], int(r["n"]), int(r["b"])): float(r["ratio_min_mean"])
            for r in read_rows(os.path.join(directory, f"{name}.csv"))}


def check_table1(cells):
    """Item 11, with its per-cell tolerance of ±0.15 on the b <= 4 cells ("fair": a check, the
    narrower reading) besides its bands."""
    ps = {k[1:]: v for k, v in cells.items() if k[0] == "ps"}
    win = {k[1:]: v for k, v in cells.items() if k[0] == "window"}
    c = []
    for n in range(1, 6):
        for b in (8, 16):
            c.append(at_least(f"PS n={n} b={b}", ps[(n, b)], 0.95, f"{ZDORNOV_TABLE1_PAPER[n][(2, 4, 8, 16).index(b)]:.2f}"))
        c.append(in_range(f"PS n={n} b=2", ps[(n, 2)], 0.10, 0.50, f"{ZDORNOV_TABLE1_PAPER[n][0]:.2f}"))
    c.append(at_least("PS n=1 b=4", ps[(1, 4)], 0.90, "1.00"))
    for n in range(2, 6):
        c.append(in_range(f"PS n={n} b=4", ps[(n, 4)], 0.15, 0.80, f"{ZDORNOV_TABLE1_PAPER[n][1]:.2f}"))
    c.append(truth("PS b=4: n=2 > n=4", ps[(2, 4)] > ps[(4, 4)], f"{ps[(2, 4)]:.3f} vs {ps[(4, 4)]:.3f}", "0.64 > 0.25"))
    for n in range(1, 6):
        for i, b in enumerate((2, 4)):
            paper = ZDORNOV_TABLE1_PAPER[n][i]
            c.append(near(f"PS n={n} b={b}: within 0.15 of the paper's cell", ps[(n, b)], paper, 0.15, f"{paper:.2f}"))
    worst = min(win[(n, b)] for n in range(1, 6) for b in (8, 16))
    c.append(truth("window 2: some cell with b >= 8 below 0.95", worst < 0.95, f"lowest {worst:.3f}",
                   "windows do not realise the rates"))
    return c


FIG6_SCHEMES = (("nc", "static", "round_robin"), ("saa", "static", "ps"), ("ar", "adaptive", "round_robin"),
                ("saa_ar", "adaptive", "ps"))


def run_fig6packet(saturn, out, quick):
    """Fig. 6 as packet simulations: NC and SAA (PS) on the regular tree with D-mod-K routes, AR and
    SAA+AR on the modified tree (width 2) with flow-level adaptive routes; every run has the same
    seeds, so every scheme sees the same flows. The paper's size (4096 nodes, 50 runs, P = 1..8),
    or with --quick the 64-node 4-ary 3-tree, 4 runs, P = 1..4. Writes fig6_packet.csv in
    flow-times and fig6_packet.png. One study, configs/papers/zdornov2009/fig6_packet.toml: its
    `scheme` axis holds FIG6_SCHEMES (the per-tree configs: one scheme by hand)."""
    sets = ["topology.k=4", "simulation.trials=4", "sweep.traffic.permutations=[1,2,3,4]"] if quick else []
    run_saturn(saturn, "zdornov2009/fig6_packet.toml", os.path.join(out, "study"), sets + EXTRA_SETS,
               ("completion_time_ns",))
    runs = case_means(os.path.join(out, "study"), "scheme")
    flow_time_ns = 200 * FLOW_TIME_NS / 1000  # 200 packets of 1638.4 ns
    rows = []
    for key in sorted(runs["nc"], key=lambda k: int(k[0])):
        r = {"P": int(key[0]), "w_static": runs["nc"][key]["saa_completion_bound_ns"] / flow_time_ns,
             "w_adaptive": runs["ar"][key]["saa_completion_bound_ns"] / flow_time_ns}
        for label, _, _ in FIG6_SCHEMES:
            r[label] = runs[label][key]["completion_time_ns"] / flow_time_ns
        rows.append(r)
    cols = ["P", "w_static", "w_adaptive", "nc", "saa", "ar", "saa_ar"]
    with open(os.path.join(out, "fig6_packet.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols + ["saa_over_nc", "ar_over_nc", "saa_ar_over_nc", "saa_over_w", "saa_ar_over_w"])
        for r in rows:
            w.writerow([r["P"]] + [f"{r[c]:.4f}" for c in cols[1:]] +
                       [f"{r['saa'] / r['nc']:.4f}", f"{r['ar'] / r['nc']:.4f}", f"{r['saa_ar'] / r['nc']:.4f}",
                        f"{r['saa'] / r['w_static']:.4f}", f"{r['saa_ar'] / r['w_adaptive']:.4f}"])
    plot_fig6_packet(rows, os.path.join(out, "fig6_packet.png"), quick)
    return dict(rows=rows, paper_size=not quick and not any(x.startswith("topology.k=") for x in EXTRA_SETS))


def load_fig6packet(directory, name, quick):
    """fig6_packet.csv; its runs at the paper's size unless --quick says they were not."""
    rows = numeric_rows(os.path.join(directory, f"{name}.csv"))
    for r in rows:
        r["P"] = int(r["P"])
    return dict(rows=rows, paper_size=not quick)


def check_fig6packet(result):
    """Item 9 (a)-(f), and Ref (A)'s fluid W at the paper's size (±0.3). (d) "AR / NC > 1.0": strictly."""
    rows, paper_size = result["rows"], result["paper_size"]
    c = []
    by_p = {r["P"]: r for r in rows}
    if 1 in by_p:
        c.append(in_range("(a) P=1: SAA+AR / NC", by_p[1]["saa_ar"] / by_p[1]["nc"], 0.45, 0.60, "halves"))
    c.append(in_range("(b) best SAA+AR / NC", min(r["saa_ar"] / r["nc"] for r in rows), 0.45, 0.60, "up to 50%"))
    for r in rows:
        p = r["P"]
        c.append(in_range(f"(c) P={p}: SAA / NC", r["saa"] / r["nc"], 0.82, 1.00, "up to 13% better"))
        if p >= 3:
            c.append(above(f"(d) P={p}: AR / NC", r["ar"] / r["nc"], 1.0, "AR worse"))
        c.append(near(f"(e) P={p}: SAA / W static", r["saa"] / r["w_static"], 1.0, 0.05, "within 5%"))
        c.append(near(f"(e) P={p}: SAA+AR / W adaptive", r["saa_ar"] / r["w_adaptive"], 1.0, 0.05, "within 5%"))
        c.append(truth(f"(f) P={p}: SAA+AR < SAA <= NC", r["saa_ar"] < r["saa"] <= r["nc"],
                       f"{r['saa_ar']:.2f} < {r['saa']:.2f} <= {r['nc']:.2f}", "ordering"))
        if paper_size and p in ZDORNOV_FIG6_ORACLE:  # reference (A) is the 16-ary 3-tree's
            ws, wa = ZDORNOV_FIG6_ORACLE[p]
            c.append(near(f"(A) P={p}: W static", r["w_static"], ws, 0.3, f"Ref (A) {ws}"))
            c.append(near(f"(A) P={p}: W adaptive", r["w_adaptive"], wa, 0.3, f"Ref (A) {wa}"))
    c.append(in_range("(c) largest SAA improvement over NC", max(1 - r["saa"] / r["nc"] for r in rows), 0.08, 0.18,
                      "13% +- 5 points"))
    return c


FIG6_PROBE_RUNS = (("saa", "static", "saa"), ("saa_probes", "static", "saa_probes"), ("saa_ar", "adaptive", "saa"),
                   ("saa_ar_probes", "adaptive", "saa_probes"))
# fig6probes runs fig6_packet.toml with its `scheme` axis replaced by these cases: PS at the given
# rates and at the rates of SAA's control packets, on each tree (the AR keys as fig6_packet.toml's).
FIG6_ADAPTIVE = 'topology.horizontal_width = 2, routing.algorithm = "adaptive", routing.route_cache_entries = 0'
FIG6_PROBE_SCHEMES = ('sweep.scheme=[{name = "saa"}, {name = "saa_probes", injection.rates = "saa_probes"}, '
                      f'{{name = "saa_ar", {FIG6_ADAPTIVE}}}, '
                      f'{{name = "saa_ar_probes", {FIG6_ADAPTIVE}, injection.rates = "saa_probes"}}]')


# Fig. 6's fabric with small control packets on their own class: 64-byte flits, so SAA's 20-byte
# control packets (cc.ack_bytes) take one flit where a data packet takes 32; 31 flit times of link
# latency plus the engine's one cycle, so a hop still costs one 2 KB packet time as under U4 (the
# convention of Table 1's 256-byte flits); and a second VC, which the control packets take with
# strict priority (cc.ack_vc: the highest; 000 §2: control packets may have total priority over
# data through VLs), the buffer doubled so the data keep their 8 packets. Fig. 6's own model (U4,
# one 2 KB flit per packet, one VC) makes a control packet cost a data packet's time on links SAA
# loads at 100% and queue behind data (measured in docs/zdornov2009.md; --set gives it back).
FIG6_PROBE_FABRIC = ["link.flit_bytes=64", "link.latency_ns=1587.2", "switch.vcs=2", "switch.buffer_bytes=32768"]


def run_fig6probes(saturn, out, quick):
    """Fig. 6's SAA and SAA+AR (Periodic Selection) with the rates given at t = 0 (U15) against the
    rates found by SAA's own control packets (injection.rates = saa_probes: AnnounceStart,
    ProbeLinks back to back, AnnounceEnd; M29's Algorithm 1 in the packet engine), same seeds,
    flows and fabric (FIG6_PROBE_FABRIC). The paper's size, or with --quick the 64-node tree, 4 runs,
    P = 1..4. Writes fig6_probes.csv in flow-times and fig6_probes.png. One study: fig6_packet.toml
    with the cases FIG6_PROBE_SCHEMES."""
    sets = FIG6_PROBE_FABRIC + (["topology.k=4", "simulation.trials=4", "sweep.traffic.permutations=[1,2,3,4]"]
                               if quick else [])
    metrics = ("completion_time_ns", "saa_flows_never_central", "saa_link_weight_left", "saa_rate_changes",
               "saa_settled_ns", "acks_dropped", "saa_flows_above_central")
    # (--set injection.saa_*: read by the probe curves only, the given-rates ones leave them unread.)
    run_saturn(saturn, "zdornov2009/fig6_packet.toml", os.path.join(out, "study"),
               sets + EXTRA_SETS + [FIG6_PROBE_SCHEMES], ("completion_time_ns",))
    runs = case_means(os.path.join(out, "study"), "scheme")
    flow_time_ns = 200 * FLOW_TIME_NS / 1000  # 200 packets of 1638.4 ns
    rows = []
    for key in sorted(runs["saa"], key=lambda k: int(k[0])):
        r = {"P": int(key[0])}
        for label, _, _ in FIG6_PROBE_RUNS:
            r[label] = runs[label][key]["completion_time_ns"] / flow_time_ns
        for label in ("saa_probes", "saa_ar_probes"):
            for m in metrics[1:]:
                r[f"{label}.{m}"] = runs[label][key][m]
        rows.append(r)
    with open(os.path.join(out, "fig6_probes.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["P", "saa", "saa_probes", "saa_ar", "saa_ar_probes", "saa_probes_over_given",
                    "saa_ar_probes_over_given", "never_central_static", "never_central_adaptive",
                    "rate_changes_static", "rate_changes_adaptive", "settled_flow_times_static",
                    "settled_flow_times_adaptive", "above_central_static", "above_central_adaptive"])
        for r in rows:
            w.writerow([r["P"]] + [f"{r[k]:.4f}" for k in ("saa", "saa_probes", "saa_ar", "saa_ar_probes")] +
                       [f"{r['saa_probes'] / r['saa']:.4f}", f"{r['saa_ar_probes'] / r['saa_ar']:.4f}",
                        f"{r['saa_probes.saa_flows_never_central']:.2f}", f"{r['saa_ar_probes.saa_flows_never_central']:.2f}",
                        f"{r['saa_probes.saa_rate_changes']:.1f}", f"{r['saa_ar_probes.saa_rate_changes']:.1f}",
                        f"{r['saa_probes.saa_settled_ns'] / flow_time_ns:.3f}",
                        f"{r['saa_ar_probes.saa_settled_ns'] / flow_time_ns:.3f}",
                        f"{r['saa_probes.saa_flows_above_central']:.2f}",
                        f"{r['saa_ar_probes.saa_flows_above_central']:.2f}"])
    import jiang2015
    plt = jiang2015.pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    ps = [r["P"] for r in rows]
    for key, label, style in (("saa", "SAA (rates given)", "s-"), ("saa_probes", "SAA (probes)", "s--"),
                              ("saa_ar", "SAA+AR (rates given)", "d-"), ("saa_ar_probes", "SAA+AR (probes)", "d--")):
        ax.plot(ps, [r[key] for r in rows], style, label=label)
    ax.set_xticks(ps)
    ax.set_xlabel("superposed permutations P")
    ax.set_ylabel("completion time (flow-times)")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fabric = "fabric as --set" if any(x.split("=")[0] in {f.split("=")[0] for f in FIG6_PROBE_FABRIC}
                                      for x in EXTRA_SETS) else "64 B flits, control VC"
    jiang2015.save_figure(fig, os.path.join(out, "fig6_probes.png"), f"SAA by control packets against given rates "
                          f"({fabric})" + (" (quick: 64 nodes)" if quick else ""))
    c = []
    for r in rows:
        p = r["P"]
        for label, name in (("saa_probes", "SAA"), ("saa_ar_probes", "SAA+AR")):
            c.append(truth(f"M29 P={p}: {name} probes: every flow sends at its central rate at some time",
                           r[f"{label}.saa_flows_never_central"] == 0,
                           f"{r[label + '.saa_flows_never_central']:.2f} flows never did", "one probe after the announces"))
            c.append(truth(f"M29 P={p}: {name} probes: every register back to 0, no control packet lost",
                           r[f"{label}.saa_link_weight_left"] == 0 and r[f"{label}.acks_dropped"] == 0,
                           f"W_l {r[label + '.saa_link_weight_left']:.0f}, lost {r[label + '.acks_dropped']:.0f}",
                           "AnnounceEnd undoes AnnounceStart"))
        c.append(at_most(f"M29 P={p}: SAA probes / given rates", r["saa_probes"] / r["saa"], 1.05,
                         "overhead small for flows over 100 kbit (these: 3.3 Mbit)"))
        c.append(at_most(f"M29 P={p}: SAA+AR probes / given rates", r["saa_ar_probes"] / r["saa_ar"], 1.05,
                         "overhead small for flows over 100 kbit (these: 3.3 Mbit)"))
    return c


def plot_fig6_packet(rows, path, quick):
    """Completion (flow-times) against P for the four schemes, the fluid W bounds dashed."""
    import jiang2015
    plt = jiang2015.pyplot()
    f, ax = plt.subplots(figsize=(5.5, 3.8))
    ps = [r["P"] for r in rows]
    for key, label, style in (("nc", "NC", "o-"), ("saa", "SAA", "s-"), ("ar", "AR", "^-"), ("saa_ar", "SAA+AR", "d-")):
        ax.plot(ps, [r[key] for r in rows], style, label=label)
    ax.plot(ps, [r["w_static"] for r in rows], "k--", lw=0.8, label="W static")
    ax.plot(ps, [r["w_adaptive"] for r in rows], "k:", lw=0.8, label="W adaptive")
    ax.set_xticks(ps)
    ax.set_xlabel("superposed permutations P")
    ax.set_ylabel("completion time (flow-times)")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    jiang2015.save_figure(f, path, "Zdornov & Birk Fig. 6, packet level" + (" (quick: 64 nodes)" if quick else ""))


# This paper's figures (reproduce_runs.figure records), in the order `saturn reproduce --list` prints them.
FLOW = "#flow-engine-figs-4-5-6-and-theorem-1-items-4-5-6-9"
FIGURES = [
    figure("zdornov2009", "fig1", "1", "congestion damage, two switches", run_fig1, check_fig1, "1 s", "~3 s",
           load_fig1, [committed("fig1", "full", "#packet-engine-fig-1-item-1")]),
    figure("zdornov2009", "fig4", "4", "+10% switch ports", run_fig4, check_fig4, "2 s", "2 s", load_summary,
           [committed("fig4", "full", FLOW)]),
    figure("zdornov2009", "fig5", "5", "contention against horizontal width", run_fig5, check_fig5, "7 s", "44 s",
           load_summary, [committed("fig5", "full", FLOW)]),
    figure("zdornov2009", "fig6", "9", "fluid completion bounds against P", run_fig6, check_fig6, "21 s", "80 s",
           load_summary, [committed("fig6", "full", FLOW)]),
    figure("zdornov2009", "alg1", "7", "distributed SAA convergence", run_alg1, check_alg1, "5 s", "5 s", load_summary,
           [committed("alg1", "full", "#distributed-saa-algorithm-1-item-7")]),
    figure("zdornov2009", "fig6packet", "9", "packet NC, SAA, AR, SAA+AR", run_fig6packet, check_fig6packet,
           "~5 s", "~2 h", load_fig6packet,
           # (d) at P = 3: isolated on 2026-12-07 (AR / NC 1.06 with M17's setup packets in flight).
           [committed("fig6_packet", "full", [("(d) P=3", "#why-ar-beats-nc-at-p--3-the-instant-setup-2026-12-07"),
                                              ("", "#fig-6-packet-study-nc-saa-ar-saaar-item-9")])], stem="fig6_packet"),
    # fig6probes' checks read metrics its CSV does not keep (registers left, control packets lost):
    # no --checks-only; its committed checks are its run's.
    figure("zdornov2009", "fig6probes", "9 (M29)", "SAA, SAA+AR: rates given against SAA's control packets",
           run_fig6probes, lambda c: c, "~40 s", "~50 h (estimate)", None,
           [committed("fig6_probes_k8_preview", "preview", "#fig-6-with-saas-control-packets-item-9-m29",
                      "512 nodes, 4 runs")], stem="fig6_probes"),
    figure("zdornov2009", "table1", "11", "PS vs window: min measured / SAA rate, n x b (4096 nodes, AR)", run_table1,
           check_table1, "~70 s", "~10 h (estimate)", load_table1,
           [committed("table1_paper_preview", "preview", "#table-1-item-11", "4096 nodes, 2 of 50 runs"),
            committed("table1", "preview", "#table-1-item-11", "64 nodes, static routes, 50 runs")]),
]
