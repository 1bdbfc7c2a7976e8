"""Rocher-Gonzalez et al. 2021 in `saturn reproduce` (PAPERS-SPEC items 41-51): each figure's run
through scripts/rocher2021.py and scripts/rocher2021_fig8.py (their studies, CSV files and plots),
its acceptance checks, the readers of its CSV files (`--checks-only`) and its committed results."""
import math
import os

import reproduce_runs as runs
from reproduce_checks import at_least, at_most, below, in_range, mean_in, min_in, truth
from reproduce_runs import beside, committed, figure, read_rows, shown


def rocher_module():
    """scripts/rocher2021.py with this run's replace flag (rocher2021_fig8.py runs through it too)."""
    import rocher2021
    rocher2021.REPLACE_FLAG = runs.replace_flag()
    return rocher2021


def run_fig6(saturn, out, quick):
    return rocher_module().run_figure(saturn, out, quick)


def run_fig6h10(saturn, out, quick):
    """Fig. 6's H10 1Q panel (D-mod-K, ARN, ARN + AFI under R2, and R1 reported) at the paper's
    timing and its 5 trials: the part of item 48 the quick mode previews, for real."""
    return rocher_module().run_figure(saturn, out, quick, "fig6h10")


# Item 48(b): "0.9 x its best possible level (~0.81 for H10)", the best possible H10 level being
# ~0.90 (item 48's INFER): the level is 0.81. (Before 2026-11-26 this read 0.9 x 0.81 = 0.729,
# applying the 0.9 twice: a lower bar than the spec's.)
ROCHER_LEVEL = 0.81


def check_fig6(result):
    """PAPERS-SPEC item 48 (a)-(f) on the curves the run made; times scaled by the run's factor
    (quick = the preview, every time / 10). A check whose curves were not run is not printed."""
    import rocher2021 as r
    data, s = result
    on, stop = r.ONSET_MS * s, r.STOP_MS * s
    tag = " [preview: times / 10]" if s != 1 else ""
    c = []
    # The figure's reading (R2) is checked; R1 is reported, not checked (item 48 warning); other
    # readings of ARN + AFI on H10 1Q get their own (b) and (e) checks below.
    runs = {k: v for k, v in data.items() if k[3] in ("", "r2")}
    alt = {k: v for k, v in data.items() if k[3] not in ("", "r1", "r2")}
    panel_mean = lambda k: mean_in(runs[k], on, stop)  # noqa: E731
    # (a) RND: mean over [3, 120] ms
    rnd = {k: mean_in(v, on, r.RUN_MS * s) for k, v in runs.items() if k[0] == "rnd"}
    for k, m in sorted(rnd.items()):
        if (k[1], k[2]) != ("dbbm", "adaptive_th_afi"):
            c.append(at_least(f"(a) RND {k[1]} {k[2]}: mean [3, 120] ms", m, 0.90, "~1"))
    bad = rnd.get(("rnd", "dbbm", "adaptive_th_afi", ""))
    best = [m for k, m in rnd.items() if k[1] == "dbbm" and k[2] != "adaptive_th_afi"]
    if bad is not None and best:
        c.append(at_least("(a) RND dbbm: best - Adaptive-Th+AFI", max(best) - bad, 0.10, "degrades"))
    # (b) H10 1Q
    h = {k[2]: v for k, v in runs.items() if k[:2] == ("h10", "1q")}
    for t, pts in sorted(h.items()):
        c.append(at_most(f"(b) H10 1q {t}: min [3, 10] ms{tag}", min_in(pts, on, 10 * s), 0.25, "~0.1"))
    afi = [(("r2", h["arn_afi"]))] if "arn_afi" in h else []
    afi += [(k[3], v) for k, v in sorted(alt.items()) if k[:3] == ("h10", "1q", "arn_afi")]
    for reading, pts in afi:
        name = r.reading_name(reading)
        recovery = recovery_ms(pts, on)
        c.append(at_most(f"(b) H10 1q arn_afi ({name}): first >= {ROCHER_LEVEL:.3f} after onset (ms){tag}", recovery,
                         11 * s, "< 8 ms" + (" / 10" if s != 1 else "")))
        held = min_in(pts, on + recovery, stop) if math.isfinite(recovery) else float("nan")
        c.append(at_least(f"(b) H10 1q arn_afi ({name}): min from then to 93 ms{tag}", held, ROCHER_LEVEL, "holds"))
    for t, pts in sorted(h.items()):
        if t != "arn_afi":
            m = mean_in(pts, 20 * s, stop)
            c.append(below(f"(b) H10 1q {t}: mean [20, 93] ms{tag}", m, 0.5, "no recovery"))
    # (c) H10: D-mod-K ~ ARN; Oblivious and Adaptive-Th lowest
    for q in r.SCHEMES:
        dm, arn = runs.get(("h10", q, "dmodk", "")), runs.get(("h10", q, "arn", "r2"))
        if dm and arn:
            diffs = [abs(a - b) for (t, a), (_, b) in zip(dm, arn) if on <= t <= stop]
            c.append(at_most(f"(c) H10 {q}: mean |D-mod-K - ARN| [3, 93] ms{tag}", sum(diffs) / len(diffs), 0.05, "alike"))
        means = {k[2]: panel_mean(k) for k in runs if k[:2] == ("h10", q)}
        if {"oblivious", "adaptive_th"} <= set(means) and len(means) > 2:
            rest = min(m for t, m in means.items() if t not in ("oblivious", "adaptive_th"))  # the two lowest
            worst = max(means["oblivious"], means["adaptive_th"])
            c.append(truth(f"(c) H10 {q}: Oblivious and Adaptive-Th lowest", worst < rest,
                           f"the higher of the two {worst:.3f}, the lowest other {rest:.3f}",
                           "both below every other technique; paper always worst"))
    # (d) SQS vFtree / Flow2SL >= 1Q - 0.02, (e) ARN + AFI best, (f) H10-4
    for k in sorted(runs):
        if k[0] != "rnd" and k[1] in ("vftree", "flow2sl") and (k[0], "1q", k[2], k[3]) in runs:
            c.append(at_least(f"(d) {k[0]} {k[2]}: {k[1]} - 1q mean [3, 93] ms", panel_mean(k) -
                              panel_mean((k[0], "1q", k[2], k[3])), -0.02))
    for traffic in r.TRAFFIC[1:]:
        for q in r.SCHEMES:
            means = {k[2]: panel_mean(k) for k in runs if k[:2] == (traffic, q)}
            if "arn_afi" in means and len(means) > 1:
                other = max((m, t) for t, m in means.items() if t != "arn_afi")
                c.append(truth(f"(e) {traffic} {q}: ARN+AFI highest mean [3, 93] ms{tag}", means["arn_afi"] > other[0],
                               f"{means['arn_afi']:.3f} vs {other[1]} {other[0]:.3f}", f"of {len(means)} run"))
    for k, pts in sorted(alt.items()):
        others = {o[2]: panel_mean(o) for o in runs if o[:2] == k[:2] and o[2] != "arn_afi"}
        if k[2] == "arn_afi" and others:
            m, best = mean_in(pts, on, stop), max((v, t) for t, v in others.items())
            c.append(truth(f"(e) {k[0]} {k[1]}: ARN+AFI ({r.reading_name(k[3])}) above the others, mean [3, 93] ms{tag}",
                           m > best[0], f"{m:.3f} vs {best[1]} {best[0]:.3f}", f"of {len(others) + 1} run"))
    f4 = {k[1]: panel_mean(k) for k in runs if k[0] == "h10_4" and k[2] == "arn_afi"}
    if len(f4) == 4:
        lo = max(f4["1q"], f4["dbbm"])
        for q in ("vftree", "flow2sl"):
            c.append(truth(f"(f) H10-4 ARN+AFI: {q} > 1q and dbbm", f4[q] > lo,
                           f"{q} {f4[q]:.3f}, the higher of 1q and dbbm {lo:.3f}", "above both; paper loses less than 1Q and DBBM"))
    return c


def recovery_ms(pts, on):
    """Item 48(b)'s recovery: time from the onset to the first bin at ROCHER_LEVEL after the efficiency
    fell below it (the first bins after the onset still carry the pre-onset level while the tree
    builds up); inf if it never gets back."""
    after = [(t, v) for t, v in pts if t > on]
    fell = next((i for i, (_, v) in enumerate(after) if v < ROCHER_LEVEL), len(after))
    return next((t for t, v in after[fell:] if v >= ROCHER_LEVEL), math.inf) - on


def efficiency_of(directory, name):
    """A Fig. 6 or 7 run's efficiency over time, <name>_efficiency.csv (as committed) or the run's own
    efficiency.csv: (data, time scale)."""
    import rocher2021
    path = os.path.join(directory, f"{name}_efficiency.csv")
    data, timing = rocher2021.read_efficiency(path if os.path.isfile(path) else os.path.join(directory, "efficiency.csv"))
    return data, 1.0 if timing == "paper" else rocher2021.PREVIEW_SCALE


def load_fig6(directory, name, quick):
    return efficiency_of(directory, name)


def load_fig7(directory, name, quick):
    """Fig. 7's curves and, for check 49(b), config #1's ARN + AFI H10 1Q curve at the same timing:
    from a Fig. 6 result beside it (committed: fig6_full, fig6h10 or fig6_preview)."""
    import rocher2021
    data, scale = efficiency_of(directory, name)
    timing = "paper" if scale == 1.0 else "preview_times_div_10"
    for stem in ("fig6_full", "fig6h10", "fig6_preview"):
        path = beside(directory, "fig6", f"{stem}_efficiency.csv", "rocher2021")
        if path:
            fig6, fig6_timing = rocher2021.read_efficiency(path)
            if fig6_timing == timing and ("h10", "1q", "arn_afi", "r2") in fig6:
                return data, scale, (path, fig6[("h10", "1q", "arn_afi", "r2")])
    return data, scale, None


def load_fig8(directory, name, quick):
    rows = read_rows(os.path.join(directory, f"{name}.csv"))
    for r in rows:
        for k in ("time_noincast_ms", "time_incast_ms", "overhead_ms", "tree_ms"):
            r[k] = float(r[k])
    return rows, quick


def run_fig7(saturn, out, quick):
    """Fig. 7 on config #2, with config #1's ARN + AFI H10 1Q curve for check 49(b): from a Fig. 6 run
    beside this one (OUT/../fig6/efficiency.csv) at the same timing, else, for --quick, from the
    committed Fig. 6 preview (docs/rocher2021/fig6_preview_efficiency.csv)."""
    rocher2021 = rocher_module()
    data, scale = rocher2021.run_figure(saturn, out, quick, "fig7")
    timing = "preview_times_div_10" if quick else "paper"
    reference = None
    candidates = [os.path.join(os.path.dirname(os.path.abspath(out)), "fig6", "efficiency.csv")]
    if quick:
        candidates.append(os.path.join(runs.ROOT, "docs", "rocher2021", "fig6_preview_efficiency.csv"))
    for path in candidates:
        if os.path.isfile(path):
            fig6, fig6_timing = rocher2021.read_efficiency(path)
            if fig6_timing == timing and ("h10", "1q", "arn_afi", "r2") in fig6:
                reference = (path, fig6[("h10", "1q", "arn_afi", "r2")])
                break
    return data, scale, reference


# Item 49(a): 0.7 x the best possible level after the onset (PAPERS-SPEC item 48 INFER: 0.90 for
# H10, 0.75 for H25, when hot sources send only to the hot spot).
ROCHER_BEST = {"h10": 0.90, "h25": 0.75}


def check_fig7(result):
    """PAPERS-SPEC item 49 (a)-(d) on the curves the run made (times scaled as in Fig. 6)."""
    import rocher2021 as r
    data, s, reference = result
    on, stop = r.ONSET_MS * s, r.STOP_MS * s
    tag = " [preview: times / 10]" if s != 1 else ""
    runs = {k: v for k, v in data.items() if k[3] != "r1"}
    c = []
    # (a) H10 and H25 1Q: ARN + AFI alone averages >= 0.7 x the best level over [50, 93] ms
    for traffic, best in ROCHER_BEST.items():
        means = {k[2]: mean_in(v, 50 * s, stop) for k, v in runs.items() if k[:2] == (traffic, "1q")}
        if "arn_afi" not in means:
            continue
        level = 0.7 * best
        c.append(at_least(f"(a) {traffic.upper()} 1q arn_afi: mean [50, 93] ms{tag}", means["arn_afi"], level,
                          "the only one to react"))
        for t, m in sorted(means.items()):
            if t != "arn_afi":
                c.append(below(f"(a) {traffic.upper()} 1q {t}: mean [50, 93] ms{tag}", m, level))
    recovery = {k: recovery_ms(v, on) for k, v in runs.items() if k[2] == "arn_afi"}
    h10 = recovery.get(("h10", "1q", "arn_afi", "r2"))
    # (b) longer to isolate than on config #1
    if h10 is not None:
        if reference is None:
            c.append(truth(f"(b) H10 1q arn_afi recovery (ms): 3456 > 432 nodes{tag}", False, "no Fig. 6 run",
                           "run fig6 first (same timing)"))
        else:
            r432 = recovery_ms(reference[1], on)
            c.append(truth(f"(b) H10 1q arn_afi recovery (ms): 3456 > 432 nodes{tag}", h10 > r432,
                           f"{h10:.3g} vs {r432:.3g}", f"greater; 432 from {shown(reference[0])}"))
    # (c) four hot spots drain faster than one
    h10_4 = recovery.get(("h10_4", "1q", "arn_afi", "r2"))
    if h10 is not None and h10_4 is not None:
        c.append(truth(f"(c) 1q arn_afi recovery (ms): H10-4 < H10{tag}", h10_4 < h10, f"{h10_4:.3g} vs {h10:.3g}",
                       "less (4 hot spots drain the trees)"))
    # (d) DBBM cleans its clogged VC later than vFtree and Flow2SL, on every hot-spot pattern run
    for traffic in r.TRAFFIC[1:]:
        rec = {q: recovery.get((traffic, q, "arn_afi", "r2")) for q in ("dbbm", "vftree", "flow2sl")}
        if None in rec.values():
            continue
        for q in ("vftree", "flow2sl"):
            c.append(truth(f"(d) {traffic} arn_afi recovery (ms): dbbm > {q}{tag}", rec["dbbm"] > rec[q],
                           f"{rec['dbbm']:.3g} vs {rec[q]:.3g}", "greater"))
    return c


def run_fig8(saturn, out, quick):
    rocher_module()
    import rocher2021_fig8
    return rocher2021_fig8.run_figure(saturn, out, quick)


def check_fig8(result):
    """Items 50 (PTRANS) and 51 (CNN) on the substitute traces, per queuing scheme run. Absolute
    times of the paper (10 ms) scale with the tree's length in a preview (tree / 100 ms)."""
    from rocher2021 import TECHNIQUES
    from rocher2021_fig8 import SCHEMES
    rows, quick = result
    c = []
    for scheme in [s for s in SCHEMES if any(r["queue_scheme"] == s for r in rows)]:
        def of(trace):
            return {r["technique"]: r for r in rows if r["trace"] == trace and r["queue_scheme"] == scheme}
        p, n = of("ptrans"), of("cnn")
        # item 50: without the tree Oblivious is the slowest; the others within +-10% of each other
        base = {t: r["time_noincast_ms"] for t, r in p.items()}
        others = [v for t, v in base.items() if t != "oblivious"]
        c.append(truth(f"50 {scheme}: no tree, Oblivious slowest", base["oblivious"] > max(others),
                       f"{base['oblivious']:.3f} vs {max(others):.3f} ms", "slowest; paper worst"))
        c.append(at_most(f"50 {scheme}: no tree, others max / min", max(others) / min(others), 1.10, "within 10%"))
        tree = p["arn_afi"]["tree_ms"]
        arn = p["arn_afi"]["overhead_ms"]
        limit = max(0.05 * p["arn_afi"]["time_noincast_ms"], 10.0 * tree / 100.0)
        c.append(at_most(f"50 {scheme}: ARN+AFI overhead (ms)", arn, limit, "~0 (<= 5% or 10 ms x tree / 100 ms)"))
        worst = min(r["overhead_ms"] for t, r in p.items() if t != "arn_afi")
        c.append(truth(f"50 {scheme}: other overheads >= 3x ARN+AFI's", worst >= 3 * max(arn, 0.0),
                       f"min {worst:.3f} vs 3 x {arn:.3f} ms", ">= 3x; paper every other rises"))
        # item 51: without the tree Oblivious, Adaptive-Th (+AFI) beat D-mod-K; with it the overhead
        # is about the tree's length for every technique but ARN + AFI (~0)
        dm = n["dmodk"]["time_noincast_ms"]
        for t in ("oblivious", "adaptive_th", "adaptive_th_afi"):
            c.append(truth(f"51 {scheme}: no tree, {t} faster than D-mod-K", n[t]["time_noincast_ms"] < dm,
                           f"{n[t]['time_noincast_ms']:.3f} vs {dm:.3f} ms", "faster; paper beats D-mod-K"))
        tree = n["arn_afi"]["tree_ms"]
        for t in TECHNIQUES:
            if t == "arn_afi":
                continue
            c.append(in_range(f"51 {scheme}: {t} overhead / tree", n[t]["overhead_ms"] / tree, 0.6, 1.1, "~1"))
        c.append(at_most(f"51 {scheme}: ARN+AFI overhead / tree", n["arn_afi"]["overhead_ms"] / tree, 0.05, "~0"))
    return c



# Where the RND ARN curves' (a) misses are traced to the incast reading (R1 against R2 at the paper's timing),
# and the (e) misses (ARN + AFI under R3 + text on every panel it missed).
RND_READING = "#item-48a-on-rnd-the-incast-reading-at-the-papers-timing-2026-12-07"
E_READING = "#item-48e-under-r3--text-on-every-panel-it-missed-2026-12-07"
# vFtree's (d) misses, each passing with the VC buffer shared (the static split is the cause).
SHARED_BUFFER = "#fig-6-with-a-shared-vc-buffer-item-48d-f-2026-12-04"
VFTREE_SPLIT = ("h10 adaptive_th", "h10_4 arn", "h10_4 arn_afi", "h10_4 oblivious", "h25 adaptive_th", "h25_4 arn")
# The misses of the full Fig. 6 whose cause no experiment has isolated (reproduce_runs.committed's open_misses).
R3_PLATEAU = ("(b) H10 1q arn_afi (R3", "the background's own packets to the hot node filling the AFC are shown (dumps; "
              "hotspot_background = victims lifts [50, 69] ms from 0.658 to 0.728), but the 0.70-0.75 plateau left "
              "rests on dumps only: a run sending adapted packets down the hot node's own plane would settle it")
FIG6_OPEN = [
    ("(a) RND dbbm: best - Adaptive-Th+AFI", "no cause written: DBBM's Adaptive-Th + AFI keeps 0.972, and no run "
     "varies DBBM's VC mapping or the routing to find the paper's 'unlucky interaction'"),
    R3_PLATEAU,
    ("(c) H10 1q: Oblivious", "Adaptive-Th's gain is the background's (the hot node is at most 0.0023 of the "
     "efficiency) and not the threshold's value (95% gives 0.194, 75% 0.192); why re-routing on full ports lifts the "
     "background here, where 003 has Adaptive-Th among the worst, is not isolated"),
    ("(c) H10 dbbm: Oblivious", "as for 1Q: why Adaptive-Th's re-routing lifts the background, not isolated"),
    ("(c) H10 flow2sl: Oblivious", "as for 1Q: why Adaptive-Th's re-routing lifts the background, not isolated"),
] + [
    ("(f) H10-4 ARN+AFI:", "not the static VC split (the shared buffer gives 0 of 2 too), only in part Flow2SL's "
     "mapping (0.122 to 0.219 with the source's group), and not the reading (under R3 + text 1Q 0.751 leads Flow2SL "
     "0.609, DBBM 0.554, vFtree 0.344); no cause found")]

# This paper's figures (reproduce_runs.figure records), in the order `saturn reproduce --list` prints them.
FIGURES = [
    figure("rocher2021", "fig6", "48", "efficiency over time, 432-node RLFT (quick: H10 1Q preview)", run_fig6,
           check_fig6, "~1 min", "~7 h", load_fig6,  # quick: 18 s on an idle machine (6-14 min on a loaded one); full: measured 2026-12-03/04, 122 curves, 13 h of one core (the manifests' wall times), two at a time
           [committed("fig6_full", "full", [(f"(a) RND {q} arn", RND_READING) for q in ("1q", "dbbm", "flow2sl", "vftree")] +
                      [("(e) ", E_READING)] + [(f"(d) {k}: vftree", SHARED_BUFFER) for k in VFTREE_SPLIT] +
                      [("", "#fig-6-at-the-papers-timing-complete-item-48-2026-12-04")],
                      open_misses=FIG6_OPEN),
            committed("fig6_preview", "preview", "#fig-6-preview-h10-1q-item-48b-c-e"),
            committed("fig6_preview_1q_six", "preview", "#preview-hand-runs-h10-and-h10-4-with-1q-all-six-techniques",
                      "H10 and H10-4 1Q, six techniques")]),
    figure("rocher2021", "fig6h10", "48", "Fig. 6's H10 1Q panel at the paper's timing, 5 trials (quick: = fig6 --quick)",
           run_fig6h10, check_fig6, "~20 s", "~12 min", load_fig6,  # full: 4 curves x 5 trials x 56-70 s a trial on one core
           [committed("fig6h10", "full", "#fig-6-h10-1q-at-the-papers-timing-5-trials-item-48b-c-e",
                      open_misses=[R3_PLATEAU])]),
    figure("rocher2021", "fig7", "49", "efficiency over time, 3456-node RLFT (quick: H10 1Q and H10-4 ARN+AFI preview)",
           run_fig7, check_fig7, "~8 min", "~200 h (estimate)", load_fig7,  # quick: 7.4 min measured (CI beside it); full: 120 curves x 5 trials x 10x a preview curve's 89-155 s
           [committed("fig7_preview", "preview", "#fig-7-preview-item-49")]),
    figure("rocher2021", "fig8", "50, 51", "trace execution time with and without an HS10 tree (quick: reduced traces)",
           run_fig8, check_fig8, "~2 min", "~10 h (estimate)", load_fig8,
           [committed("fig8_preview", "preview", "#fig-8-preview-items-50-and-51")]),
]
