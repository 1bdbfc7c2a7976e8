#!/usr/bin/python3
"""`saturn reproduce PAPER FIGURE [--quick]`: runs one paper figure's configs, writes its CSV files
and plot to results/<paper>/<figure>/, and prints each PAPERS-SPEC acceptance check, measured
against the paper, with pass or fail (exit code 0: all pass, 1: one fails, 2: bad arguments).
`saturn reproduce --list` prints every figure with its expected wall time. `saturn reproduce PAPER
FIGURE --checks-only DIR [--name NAME]` computes a figure's checks from the CSV files a run wrote,
running nothing; `saturn reproduce --status [--check]` tabulates every figure's committed checks
(docs/<paper>/*_checks.csv) into docs/reproductions.md (scripts/reproduce_status.py). `--shard I
--shards N` runs slice I of N of each of the figure's runs, for a figure run over several machines
or days (scripts/reproduce_shards.py).

This file is the command; each paper's figures and acceptance checks are a module of their own,
scripts/reproduce_santos2002.py, reproduce_zdornov2009.py, reproduce_jiang2015.py and
reproduce_rocher2021.py, written in one vocabulary of checks (scripts/reproduce_checks.py) and run
through scripts/reproduce_runs.py. Their figure logic (runs, CSVs, plots) is scripts/santos2002.py,
jiang2015.py, rocher2021.py and rocher2021_fig8.py (`saturn reproduce rocher2021 fig6|fig7|fig8
[--quick] --validate` checks its runs' configs, runs nothing).
"""
import argparse
import csv
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import headless_pyplot  # noqa: E402
import reproduce_jiang2015  # noqa: E402
import reproduce_rocher2021  # noqa: E402
import reproduce_runs as runs  # noqa: E402
import reproduce_santos2002  # noqa: E402
import reproduce_shards  # noqa: E402
import reproduce_zdornov2009  # noqa: E402
import saturn_child  # noqa: E402

# Every figure, (paper, figure) -> its record (reproduce_runs.figure), in the order --list prints them.
FIGURES = {(f["paper"], f["fig"]): f
           for paper in (reproduce_santos2002, reproduce_rocher2021, reproduce_zdornov2009, reproduce_jiang2015)
           for f in paper.FIGURES}


def usage_error(message):
    print(f"saturn reproduce: {message}", file=sys.stderr)
    sys.exit(2)


def print_list():
    print(f"{'paper':<12} {'figure':<7} {'item':<7} {'quick':>8} {'full':>8}  what")
    for (paper, fig), f in FIGURES.items():
        print(f"{paper:<12} {fig:<7} {f['item']:<7} {f['quick_s']:>8} {f['full_s']:>8}  {f['what']}")
    print("wall times on a busy 2-core machine (an idle one is up to 5x faster); '~' marks an estimate.")
    print("PAPERS-SPEC items not listed are not built yet (README.md, Paper reproductions).")


def fmt(v):
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def main():
    ap = argparse.ArgumentParser(prog="saturn reproduce", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paper", nargs="?")
    ap.add_argument("figure", nargs="?")
    ap.add_argument("--list", action="store_true", help="every figure with its expected wall time")
    ap.add_argument("--quick", action="store_true", help="a reduced run (fewer trials, points, milliseconds)")
    ap.add_argument("--validate", action="store_true",
                    help="rocher2021 only: check every config and override of the figure's runs, run nothing")
    ap.add_argument("--out", default=None, help="output directory (default results/<paper>/<figure>)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="santos2002, zdornov2009 fig6packet, fig6probes and table1 only: a config override for every run "
                         "(e.g. switch.bypass_reading=wait, simulation.trials=2)")
    ap.add_argument("--resume", action="store_true",
                    help="go on from the runs already in the output directory (finished trials are kept, complete "
                         "runs read as they are) instead of starting over")
    ap.add_argument("--shard", type=int, default=None, metavar="I",
                    help="run only slice I (0-based) of the trials of each of the figure's runs, into the same --out "
                         "as the other slices (implies --resume); the slice that completes a run merges it and goes "
                         "on (scripts/reproduce_shards.py)")
    ap.add_argument("--shards", type=int, default=None, metavar="N", help="with --shard: the number of slices")
    ap.add_argument("--checks-only", metavar="DIR", default=None,
                    help="run nothing: compute the figure's checks from the CSV files a run wrote in DIR (named "
                         "NAME_..., --name; with --quick, those of a --quick run) and write DIR/NAME_checks.csv")
    ap.add_argument("--name", default=None,
                    help="with --checks-only: the CSV files' name before '_' (default: the figure's, as its run writes "
                         "them; e.g. fig5_full for docs/jiang2015/fig5_full_*.csv)")
    ap.add_argument("--status", action="store_true",
                    help="print the status of every figure's committed result (docs/<paper>/*_checks.csv) and write "
                         "it to docs/reproductions.md; runs nothing")
    ap.add_argument("--check", action="store_true",
                    help="with --status: write nothing; exit 1 if docs/reproductions.md differs from what it would be")
    ap.add_argument("--saturn", default=os.environ.get("SATURN_BINARY", os.path.join(runs.ROOT, "build", "saturn")),
                    help=argparse.SUPPRESS)  # (SATURN_BINARY: another build, as the other scripts take it)
    args = ap.parse_args()
    saturn_child.install_stop_signals()  # SIGINT, SIGTERM, SIGHUP stop the runs as saturn run is stopped
    if args.list:
        print_list()
        return 0
    if args.status:
        import reproduce_status
        return reproduce_status.main(FIGURES, args.check)
    if args.check:
        usage_error("--check goes with --status")
    papers = sorted({p for p, _ in FIGURES})
    if args.paper is None:
        usage_error(f"which paper and figure? (saturn reproduce PAPER FIGURE; papers: {', '.join(papers)}; "
                    "see --list)")
    if args.paper not in papers:
        usage_error(f"unknown paper '{str(args.paper)[:60]}' (expected one of {', '.join(papers)}; see --list)")
    figs = [f for p, f in FIGURES if p == args.paper]
    if args.figure is None:
        usage_error(f"which figure of {args.paper}? (expected one of {', '.join(figs)})")
    if args.figure not in figs:
        usage_error(f"unknown figure '{str(args.figure)[:60]}' of {args.paper} (expected one of {', '.join(figs)})")
    if args.set and args.paper != "santos2002" and (args.paper, args.figure) not in (("zdornov2009", "fig6packet"),
                                                                                     ("zdornov2009", "fig6probes"),
                                                                                     ("zdornov2009", "table1")):
        usage_error("--set is for santos2002 figures and zdornov2009 fig6packet, fig6probes and table1 only")
    if (args.shard is None) != (args.shards is None):
        usage_error("--shard I and --shards N go together")
    if args.shards is not None:
        if not 1 <= args.shards <= 999:
            usage_error(f"--shards {args.shards}: expected 1 to 999")
        if not 0 <= args.shard < args.shards:
            usage_error(f"--shard {args.shard}: expected 0 to {args.shards - 1} (below --shards)")
        if args.checks_only is not None or args.validate:
            usage_error("--shard runs a figure; it does not go with --checks-only or --validate")
        reproduce_shards.SHARD = (args.shard, args.shards)
    if args.checks_only is not None:
        f = FIGURES[(args.paper, args.figure)]
        return checks_only(f, args.checks_only, args.name or f["stem"], args.quick)
    if args.name is not None:
        usage_error("--name goes with --checks-only")
    if args.validate:
        if args.paper != "rocher2021":
            usage_error("--validate is for rocher2021 figures only")
        import rocher2021
        import rocher2021_fig8
        if args.figure == "fig8":
            errors, n = rocher2021_fig8.validate(args.saturn, args.quick), len(rocher2021_fig8.runs(args.quick))
        else:
            errors = rocher2021.validate(args.saturn, args.quick, args.figure)
            n = len(rocher2021.curves(args.quick, args.figure))
        for e in errors:
            print(e)
        print(f"{args.paper} {args.figure}{' --quick' if args.quick else ''}: {n - len(errors)} of {n} runs valid")
        return 1 if errors else 0
    headless_pyplot.require()  # every figure plots: without matplotlib, one line now, not after its runs
    runs.EXTRA_SETS.extend(args.set)
    runs.RESUME = args.resume
    f = FIGURES[(args.paper, args.figure)]
    out = args.out or os.path.join("results", args.paper, args.figure)
    os.makedirs(out, exist_ok=True)
    start = time.monotonic()

    def stopped():
        print(f"saturn reproduce: {args.paper} {args.figure}: stopped; the trials each run finished are kept in "
              f"{out} (--resume goes on from them)", file=sys.stderr)
        return 130

    try:
        checks = f["checks"](f["run"](args.saturn, out, args.quick))
    except reproduce_shards.Pending as e:  # this slice is done; others are not: nothing to check yet
        print(reproduce_shards.pending_message(args.paper, args.figure, e), file=sys.stderr)
        return 0
    except subprocess.CalledProcessError as e:  # a saturn run (every figure runner uses check=True)
        # saturn stopped by SIGINT, SIGTERM or SIGHUP (exit 128 + the signal; a batch scheduler's or
        # a `kill`'s stop reaches saturn and not this script): its files are kept, a stop and not a failure
        if e.returncode in (128 + signal.SIGINT, 128 + signal.SIGTERM, 128 + signal.SIGHUP):
            return stopped()
        cmd = [str(x) for x in e.cmd]
        what = os.path.relpath(cmd[2], runs.ROOT) if len(cmd) > 2 and cmd[1] == "run" else " ".join(cmd[1:2])
        print(f"saturn reproduce: {args.paper} {args.figure}: the run of {what} failed (exit {e.returncode}; "
              "saturn's error line is above)", file=sys.stderr)
        return 2 if e.returncode == 2 else 1
    except KeyboardInterrupt:
        return stopped()
    wall = time.monotonic() - start
    title = f"{args.paper} {args.figure} (item {f['item']}): {f['what']}" + (" [quick]" if args.quick else "") + \
        "".join(" --set " + x for x in args.set)
    passed = report(title, checks, os.path.join(out, "checks.csv"))
    print(f"{args.paper} {args.figure}: {passed} of {len(checks)} checks pass in {wall:.1f} s; results in {out}")
    return 0 if passed == len(checks) else 1


def report(title, checks, path):
    """Prints the checks as a table under `title` and writes them to `path`; returns how many pass."""
    width = max(len(c.what) for c in checks)
    print(title)
    print(f"  {'check':<{width}}  {'measured':>10}  {'acceptance':<28}  result")
    for c in checks:
        print(f"  {c.what:<{width}}  {fmt(c.measured):>10}  {c.accept:<28}  {'pass' if c.ok else 'FAIL'}")
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["check", "measured", "acceptance", "result"])
        for c in checks:
            w.writerow([c.what, fmt(c.measured), c.accept, "pass" if c.ok else "fail"])
    return sum(c.ok for c in checks)


def checks_only(f, directory, name, quick):
    """--checks-only: the figure's checks from the CSV files a run wrote (DIR/NAME_...), nothing run;
    written to DIR/NAME_checks.csv (how each docs/<paper>/*_checks.csv is re-derived after a check
    changes)."""
    if f["load"] is None:
        usage_error(f"{f['paper']} {f['fig']}: its checks are computed only from its runs (no --checks-only)")
    if not os.path.isdir(directory):
        usage_error(f"--checks-only: no directory {str(directory)[:200]}")
    try:
        result = f["load"](directory, name, quick)
    except (OSError, KeyError, ValueError) as e:
        print(f"saturn reproduce: {f['paper']} {f['fig']}: cannot read its CSV files {name}_* in {directory}: "
              f"{type(e).__name__}: {e}", file=sys.stderr)
        return 2
    checks = f["checks"](result)
    title = f"{f['paper']} {f['fig']} (item {f['item']}): {f['what']}, from {os.path.join(directory, name)}_*"
    passed = report(title, checks, os.path.join(directory, f"{name}_checks.csv"))
    print(f"{f['paper']} {f['fig']}: {passed} of {len(checks)} checks pass; checks in "
          f"{os.path.join(directory, name)}_checks.csv")
    return 0 if passed == len(checks) else 1


if __name__ == "__main__":
    sys.exit(main())
