"""Santos, Turner & Janakiraman 2002 in `saturn reproduce` (PAPERS-SPEC items 25-40): each figure's
run through scripts/santos2002.py (its runs, CSV files and plots) and its acceptance checks."""
import os
from collections import defaultdict

import reproduce_runs as runs
from reproduce_checks import at_least, at_most, at_x, in_range, near, truth
from reproduce_runs import figure


def runner(fig):
    """The figure's run: scripts/santos2002.py with this run's binary, replace flag and --set."""
    def run(saturn, out, quick):
        import santos2002
        os.environ["SATURN_BINARY"] = saturn
        santos2002.REPLACE_FLAG = runs.replace_flag()
        return santos2002.run_figure(fig, out, quick, runs.EXTRA_SETS)
    return run


# ---------------------------------------------------------------------------------------------
# Checks, one function per figure: PAPERS-SPEC part 2, the item named in FIGURES.


def check_timeline(fig):
    def check(w):
        share = w["local_share"]
        rl = w["remote_mean"] / w["local_mean"] if w["local_mean"] > 0 else float("nan")
        c = {
            "fig2a": [in_range("victim rate", w["victim"], 0.12, 0.20, "~0.15"),
                      in_range("inter-switch utilization", w["inter"], 0.27, 0.40, "~0.30"),
                      at_least("root utilization", w["root"], 0.95),
                      near("each local flow", w["local_mean"], 1 / 6, 0.03, "1/6"),
                      near("the remote flow", w["remote_mean"], 1 / 6, 0.03, "1/6")],
            "fig2b": [at_least("inter-switch utilization", w["inter"], 0.93), at_least("victim rate", w["victim"], 0.75, "5/6"),
                      at_least("root utilization", w["root"], 0.93),
                      near("the remote flow", w["remote_mean"], 1 / 6, 0.03, "1/6")],
            "fig3a": [at_most("victim rate", w["victim"], 0.40), at_most("inter-switch utilization", w["inter"], 0.85)],
            "fig3b": [at_least("root utilization", w["root"], 0.95), near("each local flow", w["local_mean"], 0.10, 0.01),
                      near("each remote flow", w["remote_mean"], 0.10, 0.01), at_least("victim rate", w["victim"], 0.45),
                      at_least("inter-switch utilization", w["inter"], 0.93)],
            "fig4a": [near("local share of the root", share, 0.90, 0.05, "90%"), at_least("victim rate", w["victim"], 0.40),
                      at_least("root utilization", w["root"], 0.85)],
            "fig4b": [in_range("local share of the root", share, 0.55, 0.85),
                      at_least("inter-switch utilization", w["inter"], 0.85), at_least("victim rate", w["victim"], 0.40)],
            "fig4c": [at_most("root utilization", w["root"], 0.90, "poorly used")],
            "fig4d": [at_least("root utilization", w["root"], 0.90), in_range("remote / local", rl, 0.8, 1.25, "about equal"),
                      at_least("victim rate", w["victim"], 0.40), at_least("inter-switch utilization", w["inter"], 0.85)],
        }
        return c[fig]
    return check


def curves(result, curve_key, quantity, x_key, x_scale):
    """{curve label: [(x, mean)]} from santos2002.sweep's (labels, stats)."""
    labels, stats = result
    out = defaultdict(list)
    for p, lab in labels.items():
        name = " ".join(lab[k] for k in curve_key)
        out[name].append((float(lab[x_key]) / x_scale, stats[p][quantity][0]))
    return {k: sorted(v) for k, v in out.items()}


def check_fig5(result):
    root = curves(result, ["cc.output_threshold"], "root", "switch.buffer_bytes", 2068)
    fair = curves(result, ["cc.output_threshold"], "fairness", "switch.buffer_bytes", 2068)
    c = [at_most("threshold 4: highest root use", max(v for _, v in root["4"]), 0.8999, "< 0.90 at every size")]
    c.append(at_least("threshold 6: lowest root use from 6 packets", min(v for x, v in root["6"] if x >= 6), 0.9001))
    for t in ("0", "6", "8"):
        c.append(truth(f"threshold {t}: root at 2 packets < at 8", at_x(root[t], 2) < at_x(root[t], 8),
                       f"{at_x(root[t], 2):.3f} < {at_x(root[t], 8):.3f}", "smaller buffers under-use the root"))
    for t, pts in sorted(root.items()):
        big = [v for x, v in pts if x >= 12]
        if len(big) > 1:
            c.append(at_most(f"threshold {t}: root spread from 12 packets", max(big) - min(big), 0.04, "flat (±0.02)"))
    c.append(at_least("input only: root from 12 packets", min(v for x, v in root["0"] if x >= 12), 0.97))
    none = fair["0"]
    c.append(at_most("input only: remote/local at 2 packets", at_x(none, 2), 0.9999, "< 1"))
    rising = [v for x, v in none if x <= 11]
    c.append(truth("input only: remote/local rises up to 11 packets", all(b >= a for a, b in zip(rising, rising[1:])),
                   " ".join(f"{v:.2f}" for v in rising), "increasing"))
    for t, pts in sorted(fair.items()):
        big = [v for x, v in pts if x >= 12]
        if len(big) > 1:
            c.append(at_most(f"threshold {t}: remote/local spread from 12 packets", max(big) - min(big), 0.10, "flat (±0.05)"))
    r4, r8, r16 = at_x(fair["4"], 16), at_x(fair["8"], 16), at_x(fair["16"], 16)
    c.append(truth("16 packets: remote/local threshold 8 > threshold 4", r8 > r4, f"{r8:.2f} > {r4:.2f}", "(iii)"))
    c.append(truth("16 packets: threshold 16 nearer 1 than threshold 8", abs(r16 - 1) < abs(r8 - 1),
                   f"{r16:.2f} vs {r8:.2f}", "(iv)"))
    return c


def check_fig6(rows):
    c = []
    for name, target in (("fimd", 2048), ("lipd", 65280), ("aimd", 65280)):
        c.append(near(f"{name.upper()} packet times from R_min to R_max", float(rows[name]["packet_times"]), target, 1))
    c.append(near("FIMD recovery (ms)", float(rows["fimd"]["ms"]), 4.194, 0.042, "4.2 ms"))
    c.append(near("LIPD recovery (ms)", float(rows["lipd"]["ms"]), 133.69, 1.34, "133.7 ms"))
    return c


def check_fig7(result):
    root = curves(result, ["cc.response", "cc.rates"], "root", "switch.buffer_bytes", 2068)
    inter = curves(result, ["cc.response", "cc.rates"], "inter", "switch.buffer_bytes", 2068)
    fair = curves(result, ["cc.response", "cc.rates"], "fairness", "switch.buffer_bytes", 2068)
    c = []
    for q, data in (("root", root), ("inter-switch", inter), ("remote/local", fair)):
        worst = max(abs(a - b) for f in ("lipd", "fimd", "aimd") for (_, a), (_, b)
                    in zip(data[f + " discrete"], data[f + " continuous"]))
        c.append(at_most(f"{q}: largest |discrete - continuous|", worst, 0.03, "nearly identical"))
    c.append(at_least("LIPD discrete: lowest root from 4 packets", min(v for x, v in root["lipd discrete"] if x >= 4), 0.97))
    ok = all(at_x(root["lipd discrete"], x) >= at_x(root["fimd discrete"], x) - 0.01 and
             at_x(root["lipd discrete"], x) >= at_x(root["aimd discrete"], x) for x, _ in root["lipd discrete"])
    c.append(truth("root: LIPD >= FIMD - 0.01 and >= AIMD at every size", ok, "yes" if ok else "no", "LIPD is best"))
    gap = min(at_x(inter["lipd discrete"], x) - at_x(inter["aimd discrete"], x) for x in (2, 3, 4))
    c.append(at_least("2-4 packets: inter-switch LIPD - AIMD", gap, 0.05, "AIMD low at small buffers"))
    return c


def check_fig8a(result):
    static = curves(result, ["cc.persistent"], "static", "traffic.on_off_mean_ns", 1e6)
    dynamic = curves(result, ["cc.persistent"], "dynamic", "traffic.on_off_mean_ns", 1e6)
    lo, hi = static["false"][0][0], static["false"][-1][0]
    c = [at_least("not persistent, shortest ON: dynamic - static", at_x(dynamic["false"], lo) - at_x(static["false"], lo), 0.1),
         in_range("not persistent, longest ON: static / dynamic", at_x(static["false"], hi) / at_x(dynamic["false"], hi),
                  1.6, 2.4, "~2"),
         near("persistent, shortest ON: static", at_x(static["true"], lo), 0.50, 0.07),
         near("persistent, shortest ON: dynamic", at_x(dynamic["true"], lo), 0.50, 0.07)]
    worst = min(s - d for (_, s), (_, d) in zip(static["true"], dynamic["true"]))
    c.append(at_least("persistent: static - dynamic at every ON", worst, -0.05))
    return c


def check_fig8b(result):
    root = curves(result, ["cc.response"], "root", "traffic.on_off_mean_ns", 1e6)
    inter = curves(result, ["cc.response"], "inter", "traffic.on_off_mean_ns", 1e6)
    xs = [x for x, _ in root["lipd"]]
    c = [at_least(f"{f.upper()}: lowest inter-switch", min(v for _, v in inter[f]), 0.90, "high") for f in ("lipd", "fimd")]
    c.append(at_most("AIMD: lowest inter-switch", min(v for _, v in inter["aimd"]), 0.8999, "below 0.90 somewhere"))
    for x in (xs[0], xs[-1]):
        r = [at_x(root[f], x) for f in ("lipd", "fimd", "aimd")]
        c.append(truth(f"ON {x:g} ms: root LIPD >= FIMD >= AIMD", r[0] >= r[1] >= r[2], " / ".join(f"{v:.3f}" for v in r), ""))
    for x in (x for x in xs if 0.2 <= x <= 2):
        f, l_ = at_x(root["fimd"], x), at_x(root["lipd"], x)
        c.append(truth(f"ON {x:g} ms: root FIMD >= LIPD", f >= l_, f"{f:.3f} vs {l_:.3f}", "FIMD best in 0.2-2 ms"))
    for x in xs:
        best = max(at_x(root[f], x) for f in ("lipd", "fimd", "aimd"))
        c.append(in_range(f"ON {x:g} ms: best - AIMD root", best - at_x(root["aimd"], x), 0.05, 0.15, "~10%"))
    return c


def check_item36(rows):
    """Items 34 and 35's checks per L = R (santos2002.item36_checks), as item 36 asks."""
    return [truth(f"L=R={n}: {what}", ok, values, "items 34/35 at this L") for n, what, values, ok in rows]


# This paper's figures (reproduce_runs.figure records), in the order `saturn reproduce --list` prints them.
TIMELINES = (  # figure, item, what
    ("fig2a", 26, "no congestion control, L=5, R=1"), ("fig2b", 27, "window 1"),
    ("fig3a", 28, "window 1, L=R=5"), ("fig3b", 29, "manual optimal rates"),
    ("fig4a", 30, "naive marking"), ("fig4b", 31, "input-triggered marking"),
    ("fig4c", 32, "input-output marking, threshold 4"), ("fig4d", 33, "threshold 8"))
FIGURES = [figure("santos2002", fig, str(item), what, runner(fig), check_timeline(fig), "~3 min", "~6 min")
           for fig, item, what in TIMELINES]
FIGURES += [
    # Full Figs. 5, 7, 8: trials x points x 500 ms at 0.069 core-s per trial-ms (Fig. 8(a) in full on
    # 2 cores, 2026-11-29: 4861 CPU-s, 2701 s wall for 70,000 trial-ms, batches two at a time as
    # padded 16-trial packs): Fig. 5 225,000 trial-ms, Fig. 7 270,000, Fig. 8(b) 75,000.
    figure("santos2002", "fig5", "34, 35", "buffer x output threshold", runner("fig5"), check_fig5, "~15 min", "~2.5 h"),
    figure("santos2002", "fig6", "37", "F_inc recovery curves", runner("fig6"), check_fig6, "8 s", "8 s"),
    figure("santos2002", "fig7", "38", "response functions x buffers", runner("fig7"), check_fig7, "~15 min", "1.7 h"),
    figure("santos2002", "fig8a", "39", "mixed static and dynamic flows", runner("fig8a"), check_fig8a, "~15 min", "45 min"),
    figure("santos2002", "item36", "36", "Fig. 5 at L = R = 5, 15, 20", runner("item36"), check_item36, "~40 min", "5.7 h"),  # measured in parts on 2 cores: L = 5 1 h 50 min, L = 15 1 h 45 min, L = 20 2 h 7 min
    figure("santos2002", "fig8b", "40", "all dynamic flows", runner("fig8b"), check_fig8b, "~15 min", "~50 min"),
]
