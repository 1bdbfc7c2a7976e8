"""Santos, Turner & Janakiraman 2002 in `saturn reproduce` (PAPERS-SPEC items 25-40): each figure's
run through scripts/santos2002.py (its runs, CSV files and plots), its acceptance checks, the
readers of its CSV files (`--checks-only`) and its committed results."""
import os
from collections import defaultdict

import reproduce_runs as runs
from reproduce_checks import above, absent, at_least, at_most, at_x, below, in_range, near, truth
from reproduce_runs import beside, committed, figure, read_rows, shown


def runner(fig):
    """The figure's run: scripts/santos2002.py with this run's binary, replace flag and --set."""
    def run(saturn, out, quick):
        import santos2002
        os.environ["SATURN_BINARY"] = saturn
        santos2002.REPLACE_FLAG = runs.replace_flag()
        result = santos2002.run_figure(fig, out, quick, runs.EXTRA_SETS)
        return dict(result, _dir=out) if fig in TIMELINE_FIGS else result
    return run


# ---------------------------------------------------------------------------------------------
# Reading a figure's CSV files back (`saturn reproduce santos2002 FIG --checks-only DIR`).


def read_window(path):
    """<fig>_window.csv: {quantity: mean over trials}."""
    return {r["quantity"]: float(r["mean"]) for r in read_rows(path)}


def load_window(fig):
    def load(directory, name, quick):
        return dict(read_window(os.path.join(directory, f"{name}_window.csv")), _dir=directory)
    return load


def read_points(path):
    """<fig>_points.csv as santos2002.sweep returns it: ({point: {swept key: text}}, {point:
    {quantity: (mean, ci95)}})."""
    labels, stats = {}, {}
    for r in read_rows(path):
        p = int(r["point"])
        means = [k[:-5] for k in r if k.endswith("_mean")]
        swept = [k for k in r if k != "point" and k != "trials" and not k.endswith(("_mean", "_ci95"))]
        labels[p] = {k: r[k] for k in swept}
        stats[p] = {q: (float(r[q + "_mean"]), float(r[q + "_ci95"])) for q in means}
    return labels, stats


def load_points(directory, name, quick):
    return read_points(os.path.join(directory, f"{name}_points.csv"))


def load_fig6(directory, name, quick):
    return {r["function"]: r for r in read_rows(os.path.join(directory, "recovery.csv"))}


def load_item36(directory, name, quick):
    """Item 36's checks from its three sweeps' points, fig5_l{5,15,20}_points.csv."""
    import santos2002
    rows = []
    for n in (5, 15, 20):
        labels, stats = read_points(os.path.join(directory, f"fig5_l{n}_points.csv"))
        rows += [(n,) + c for c in santos2002.item36_checks(n, labels, stats)]
    return rows


# ---------------------------------------------------------------------------------------------
# Checks, one function per figure: PAPERS-SPEC part 2, the item named in FIGURES.


def other_window(w, fig):
    """Another timeline's window means, for the cross-item checks of items 31 and 32: (means, path)."""
    path = beside(w.get("_dir", ""), fig, f"{fig}_window.csv", "santos2002")
    return (read_window(path), shown(path)) if path else (None, None)


def each_flow(w, cls, what, target, tol, paper=""):
    """Items 26 and 29 ask for each flow: the lowest and the highest of the class (per trial, then
    the mean over trials: a mean over trials per flow would even the flows out by symmetry)."""
    if f"{cls}_min" not in w:
        return [absent(f"{what} (lowest and highest)", f"{target:g} ± {tol:g}",
                       "the window CSV holds no per-flow rates; runs since 2026-12-06 write them")]
    return [near(f"{what}, lowest", w[f"{cls}_min"], target, tol, paper),
            near(f"{what}, highest", w[f"{cls}_max"], target, tol, paper)]


def buffer_full(w, check):
    if "buffer_full_inter" not in w:
        return absent("B's input buffer from A: fraction of the window full", check,
                      "the window CSV holds no buffer_full; runs since 2026-12-06 write it")
    return None


def imbalance(local_share):
    """|remote - local| / (remote + local) of the aggregate rates, from the locals' share of the root."""
    return abs(1 - 2 * local_share)


def check_timeline(fig):
    def check(w):
        share = w["local_share"]
        rl = w["remote_mean"] / w["local_mean"] if w["local_mean"] > 0 else float("nan")
        if fig == "fig2a":  # item 26
            return ([in_range("victim rate", w["victim"], 0.12, 0.20, "~0.15"),
                     in_range("inter-switch utilization", w["inter"], 0.27, 0.40, "~0.30"),
                     at_least("root utilization", w["root"], 0.95)] +
                    each_flow(w, "local", "each local flow", 1 / 6, 0.03, "1/6") +
                    [near("the remote flow", w["remote_mean"], 1 / 6, 0.03, "1/6")])
        if fig == "fig2b":  # item 27
            return [at_least("inter-switch utilization", w["inter"], 0.93),
                    at_least("victim rate", w["victim"], 0.75, "5/6"),
                    at_least("root utilization", w["root"], 0.93),
                    near("the remote flow", w["remote_mean"], 1 / 6, 0.03, "1/6"),
                    buffer_full(w, "= 0 (never full)") or
                    at_most("B's input buffer from A: fraction of the window full", w["buffer_full_inter"], 0.0,
                            "never full")]
        if fig == "fig3a":  # item 28
            return [at_most("victim rate", w["victim"], 0.40), at_most("inter-switch utilization", w["inter"], 0.85),
                    buffer_full(w, ">= 0.3") or
                    at_least("B's input buffer from A: fraction of the window full", w["buffer_full_inter"], 0.30,
                             "full (30% is PAPERS-SPEC's estimate)")]
        if fig == "fig3b":  # item 29
            return ([at_least("root utilization", w["root"], 0.95)] +
                    each_flow(w, "local", "each local flow", 0.10, 0.01) +
                    each_flow(w, "remote", "each remote flow", 0.10, 0.01) +
                    [at_least("victim rate", w["victim"], 0.45), at_least("inter-switch utilization", w["inter"], 0.93)])
        if fig == "fig4a":  # item 30
            c = [near("local share of the root", share, 0.90, 0.05, "90%"), at_least("victim rate", w["victim"], 0.40),
                 at_least("root utilization", w["root"], 0.85)]
            for cls in ("local", "remote"):
                if f"{cls}_spread" in w:
                    c.append(at_most(f"{cls} flows: largest |flow / class mean - 1|", w[f"{cls}_spread"], 0.30,
                                     "same type, about the same rate"))
                else:
                    c.append(absent(f"{cls} flows: largest |flow / class mean - 1|", "<= 0.3",
                                    "the window CSV holds no per-flow rates; runs since 2026-12-06 write them"))
            return c
        if fig == "fig4b":  # item 31
            c = [in_range("local share of the root", share, 0.55, 0.85),
                 at_least("inter-switch utilization", w["inter"], 0.85), at_least("victim rate", w["victim"], 0.40)]
            naive, path = other_window(w, "fig4a")
            c.append(absent("item 30's local share less this one", ">= 0.05", "no fig4a_window.csv") if naive is None else
                     at_least("item 30's local share less this one", naive["local_share"] - share, 0.05,
                              f"fairer than naive; item 30 from {path}"))
            return c
        if fig == "fig4c":  # item 32
            c = [at_most("root utilization", w["root"], 0.90, "poorly used")]
            d, path_d = other_window(w, "fig4d")
            c.append(absent("item 33's root less this one", ">= 0.05", "no fig4d_window.csv") if d is None else
                     at_least("item 33's root less this one", d["root"] - w["root"], 0.05, f"item 33 from {path_d}"))
            b, path_b = other_window(w, "fig4b")
            c.append(absent("|remote - local| / (remote + local) less item 31's", "<= 0", "no fig4b_window.csv")
                     if b is None else
                     at_most("|remote - local| / (remote + local) less item 31's",
                             imbalance(share) - imbalance(b["local_share"]), 0.0,
                             f"closer than item 31's {imbalance(b['local_share']):.3f} ({path_b})"))
            return c
        # fig4d, item 33
        return [at_least("root utilization", w["root"], 0.90), in_range("remote / local", rl, 0.8, 1.25, "about equal"),
                at_least("victim rate", w["victim"], 0.40), at_least("inter-switch utilization", w["inter"], 0.85)]
    return check


def curves(result, curve_key, quantity, x_key, x_scale):
    """{curve label: [(x, mean)]} from santos2002.sweep's (labels, stats); {} where the points do
    not hold `quantity` (points written before it was)."""
    labels, stats = result
    out = defaultdict(list)
    for p, lab in labels.items():
        if quantity not in stats[p]:
            return {}
        name = " ".join(lab[k] for k in curve_key)
        out[name].append((float(lab[x_key]) / x_scale, stats[p][quantity][0]))
    return {k: sorted(v) for k, v in out.items()}


def check_fig5(result):
    """Items 34 and 35. "Flat (±0.02)": every value of the curve within ±0.02 of one level, so a
    spread (highest less lowest) of at most 0.04; "increasing": strictly, step by step."""
    root = curves(result, ["cc.output_threshold"], "root", "switch.buffer_bytes", 2068)
    fair = curves(result, ["cc.output_threshold"], "fairness", "switch.buffer_bytes", 2068)
    marked = curves(result, ["cc.output_threshold"], "marked", "switch.buffer_bytes", 2068)
    c = [below("threshold 4: highest root use", max(v for _, v in root["4"]), 0.90, "< 0.90 at every size")]
    c.append(above("threshold 6: lowest root use from 6 packets", min(v for x, v in root["6"] if x >= 6), 0.90))
    for t in ("0", "6", "8"):
        c.append(truth(f"threshold {t}: root at 2 packets < at 8", at_x(root[t], 2) < at_x(root[t], 8),
                       f"{at_x(root[t], 2):.3f} < {at_x(root[t], 8):.3f}", "smaller buffers under-use the root"))
    for t, pts in sorted(root.items()):
        big = [v for x, v in pts if x >= 12]
        if len(big) > 1:
            c.append(at_most(f"threshold {t}: root spread from 12 packets", max(big) - min(big), 0.04, "flat (±0.02)"))
    if marked:
        c.append(at_most("input only: highest marked fraction from 12 packets", max(v for x, v in marked["0"] if x >= 12),
                         0.0, "no marks at all (input buffers never fill)"))
    else:
        c.append(absent("input only: highest marked fraction from 12 packets", "= 0 (no marks at all)",
                        "the points hold no marked fraction; runs since 2026-12-06 write it"))
    c.append(at_least("input only: root from 12 packets", min(v for x, v in root["0"] if x >= 12), 0.97))
    none = fair["0"]
    c.append(below("input only: remote/local at 2 packets", at_x(none, 2), 1.0))
    rising = [v for x, v in none if x <= 11]
    c.append(truth("input only: remote/local rises up to 11 packets", all(b > a for a, b in zip(rising, rising[1:])),
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
    """Item 37's numbers. Its other two checks (the continuous curves match the formulas to 1e-9,
    LIPD <= AIMD pointwise) are unit tests (tests/unit/test_cc_response.cpp)."""
    c = []
    for name, target in (("fimd", 2048), ("lipd", 65280), ("aimd", 65280)):
        c.append(near(f"{name.upper()} packet times from R_min to R_max", float(rows[name]["packet_times"]), target, 1))
    c.append(near("FIMD recovery (ms)", float(rows["fimd"]["ms"]), 4.194, 0.042, "4.2 ms"))
    c.append(near("LIPD recovery (ms)", float(rows["lipd"]["ms"]), 133.69, 1.34, "133.7 ms"))
    c.append(near("AIMD recovery (ms)", float(rows["aimd"]["ms"]), 133.69, 1.34, "133.7 ms"))
    return c


def check_fig7(result):
    """Item 38, for the discrete and the continuous rates alike (the spec names neither). "Moves
    toward 1 as the buffer grows": |remote/local - 1| does not grow from one buffer size to the
    next, for every function."""
    key = ["cc.response", "cc.rates"]
    root = curves(result, key, "root", "switch.buffer_bytes", 2068)
    inter = curves(result, key, "inter", "switch.buffer_bytes", 2068)
    fair = curves(result, key, "fairness", "switch.buffer_bytes", 2068)
    c = []
    for q, data in (("root", root), ("inter-switch", inter), ("remote/local", fair)):
        worst = max(abs(a - b) for f in ("lipd", "fimd", "aimd") for (_, a), (_, b)
                    in zip(data[f + " discrete"], data[f + " continuous"]))
        c.append(at_most(f"{q}: largest |discrete - continuous|", worst, 0.03, "nearly identical"))
    for mode in ("discrete", "continuous"):
        lipd, fimd, aimd = (f"{f} {mode}" for f in ("lipd", "fimd", "aimd"))
        c.append(at_least(f"LIPD {mode}: lowest root from 4 packets", min(v for x, v in root[lipd] if x >= 4), 0.97,
                          "almost 100%"))
        ok = all(at_x(root[lipd], x) >= at_x(root[fimd], x) - 0.01 and at_x(root[lipd], x) >= at_x(root[aimd], x)
                 for x, _ in root[lipd])
        c.append(truth(f"{mode}: root LIPD >= FIMD - 0.01 and >= AIMD at every size", ok, "yes" if ok else "no",
                       "LIPD is best"))
        small = [x for x, _ in inter[lipd] if 2 <= x <= 4]
        gap = min(at_x(inter[lipd], x) - at_x(inter[aimd], x) for x in small)
        c.append(at_least(f"{mode}, 2-4 packets: inter-switch LIPD - AIMD", gap, 0.05, "AIMD low at small buffers"))
        for f in ("lipd", "fimd", "aimd"):
            dist = [abs(v - 1) for _, v in fair[f"{f} {mode}"]]
            c.append(truth(f"{f.upper()} {mode}: |remote/local - 1| not growing with the buffer",
                           all(b <= a for a, b in zip(dist, dist[1:])), " ".join(f"{v:.2f}" for _, v in fair[f"{f} {mode}"]),
                           "fairness improves with bigger buffers"))
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
    c.append(below("AIMD: lowest inter-switch", min(v for _, v in inter["aimd"]), 0.90, "below 0.90 somewhere"))
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
TIMELINES = (  # figure, item, what, committed result (full: 10 trials, 100 ms)
    ("fig2a", 26, "no congestion control, L=5, R=1", "full"), ("fig2b", 27, "window 1", "full"),
    ("fig3a", 28, "window 1, L=R=5", "full"), ("fig3b", 29, "manual optimal rates", "full"),
    ("fig4a", 30, "naive marking", "full"), ("fig4b", 31, "input-triggered marking", "full"),
    ("fig4c", 32, "input-output marking, threshold 4", "full"), ("fig4d", 33, "threshold 8", "full"))
TIMELINE_FIGS = {t[0] for t in TIMELINES}
WHERE_WE_DIFFER = "#runs-results-and-where-we-differ"
CHECKS_ADDED = "#checks-as-papers-spec-states-them-issue-63"
FIGURES = [figure("santos2002", fig, str(item), what, runner(fig), check_timeline(fig), "~3 min", "~6 min",
                  load_window(fig), [committed(fig, length, [("B's input buffer", CHECKS_ADDED), ("local flows:", CHECKS_ADDED),
                                                             ("remote flows:", CHECKS_ADDED), ("", WHERE_WE_DIFFER)])])
           for fig, item, what, length in TIMELINES]
FIGURES += [
    # Full Figs. 5, 7, 8: trials x points x 500 ms at 0.069 core-s per trial-ms (Fig. 8(a) in full on
    # 2 cores, 2026-11-29: 4861 CPU-s, 2701 s wall for 70,000 trial-ms, batches two at a time as
    # padded 16-trial packs): Fig. 5 225,000 trial-ms, Fig. 7 270,000, Fig. 8(b) 75,000.
    figure("santos2002", "fig5", "34, 35", "buffer x output threshold", runner("fig5"), check_fig5, "~15 min", "~2.5 h",
           load_points, [committed("fig5", "full", CHECKS_ADDED, open_misses=[
               ("input only: highest marked fraction", "absent: the committed run (2026-11) predates the marked "
                "fraction; its re-run at full length is queued (docs/figure_queue.txt)")])]),
    figure("santos2002", "fig6", "37", "F_inc recovery curves", runner("fig6"), check_fig6, "8 s", "8 s", load_fig6,
           [committed("fig6", "full")]),
    figure("santos2002", "fig7", "38", "response functions x buffers", runner("fig7"), check_fig7, "~15 min", "1.7 h",
           load_points, [committed("fig7", "full", [("root:", "#fig-7-item-38"), ("inter-switch:", "#fig-7-item-38"),
                                                    ("remote/local:", "#fig-7-item-38"), ("", CHECKS_ADDED)])]),
    # (the inter-switch miss: isolated on 2026-12-07, a finer IPD grid, cc.ipd_steps, closes it)
    figure("santos2002", "fig8a", "39", "mixed static and dynamic flows", runner("fig8a"), check_fig8a, "~15 min",
           "70 min", load_points, [committed("fig8a", "full", "#fig-8a-item-39")]),
    figure("santos2002", "item36", "36", "Fig. 5 at L = R = 5, 15, 20", runner("item36"), check_item36, "~40 min", "5.7 h",
           load_item36, [committed("item36", "full", [("L=R=5: buffer", "#item-36-l--r-from-5-to-20"),
                                                      ("", CHECKS_ADDED)])]),  # measured in parts on 2 cores: L = 5 1 h 50 min, L = 15 1 h 45 min, L = 20 2 h 7 min
    figure("santos2002", "fig8b", "40", "all dynamic flows", runner("fig8b"), check_fig8b, "~15 min", "~50 min",
           load_points, [committed("fig8b", "full", "#fig-8b-item-40")]),
]
