"""How `saturn reproduce` runs a figure's configs, shared by every paper's module
(scripts/reproduce_<paper>.py): one `saturn run` per config as a child of this script (stopped
with it, scripts/saturn_child.py), its summary read back as means, its standard plots drawn; the
options every run of a figure takes (--resume, --set); and the record of one figure.
"""
import csv
import os
import shutil
import subprocess
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import reproduce_shards  # noqa: E402

RESUME = False  # --resume: continue runs already in the output directory instead of replacing them
EXTRA_SETS = []  # --set KEY=VALUE overrides: Santos runs, Zdornov Fig. 6 / Table 1 (e.g. switch.bypass_reading)


def replace_flag():
    """How every saturn run of a figure treats its output directory: kept (--resume) or replaced."""
    return "--resume" if RESUME else "--force"


def run_saturn(saturn, config, out, sets=(), plot=()):
    """Runs one config; returns {swept values: {metric: mean}} and plots the metrics in `plot`."""
    # --resume: a run stopped part way (Ctrl-C, a time limit, another machine) goes on from the
    # trials it finished, and a complete one is read as it is; otherwise every run starts over.
    cmd = [saturn, "run", os.path.join(ROOT, "configs", "papers", config), "--out", out, "--quiet", replace_flag()]
    for s in sets:
        cmd += ["--set", s]
    reproduce_shards.run(cmd)  # (a failure: main() prints one line naming the config; a stop is waited out)
    means = summary_means(out)
    metrics = [a for m in plot for a in ("--metric", m)]
    subprocess.run([saturn, "plot", out] + metrics, check=False, stdout=subprocess.DEVNULL)
    return means


def summary_means(out, axis=None):
    """<out>/summary.csv (or `out` itself, a file of that form) as {swept values (a tuple, in column
    order): {metric: mean}}; with `axis` (a figure study's case axis), as {case of axis: {the other
    swept values: {metric: mean}}}."""
    means = defaultdict(lambda: defaultdict(dict))
    with open(out if out.endswith(".csv") else os.path.join(out, "summary.csv"), newline="") as f:
        reader = csv.DictReader(f)
        swept = [k for k in reader.fieldnames
                 if k not in ("point", "metric", "mean", "stddev", "ci95_low", "ci95_high", "n", axis)]
        for r in reader:
            means[r[axis] if axis else None][tuple(r[k] for k in swept)][r["metric"]] = float(r["mean"])
    return means if axis else means[None]


def case_means(out, axis):
    """<out>/summary.csv of a figure study, as {case of `axis`: {other swept values: {metric: mean}}}."""
    return summary_means(out, axis)


def figure(paper, fig, item, what, run, checks, quick_s, full_s, load=None, committed=(), stem=None):
    """One figure of `saturn reproduce`: its PAPERS-SPEC item, what it shows, run(saturn, out,
    quick) -> result, checks(result) -> [Check], and its wall times on 2 cores, quick and full
    (measured on a 2-core machine shared with other builds, where runs were up to 5x slower than
    idle; "~" marks an estimate). load(directory, name, quick) -> result, where the figure has one,
    reads the result back from the CSV files a run wrote, named <name>_... (`--checks-only`).
    committed: its results under docs/<paper>/ (`committed` records), the headline one first.
    stem: the name its run gives its CSV files, where it is not the figure's (fig6_packet.csv)."""
    return dict(paper=paper, fig=fig, item=item, what=what, run=run, checks=checks, quick_s=quick_s, full_s=full_s,
                load=load, committed=list(committed), stem=stem or fig)


def keep_summary(out, name):
    """Copies a run's <out>/summary.csv to <out>/<name>_summary.csv, the file a figure's result is
    committed as (docs/<paper>/<name>_summary.csv) and read back from (--checks-only)."""
    shutil.copyfile(os.path.join(out, "summary.csv"), os.path.join(out, f"{name}_summary.csv"))


def committed(name, length, reasons="", note="", open_misses=()):
    """One committed result of a figure: docs/<paper>/<name>_checks.csv and the CSV files beside it,
    of a run at full length ("full": the paper's setup, trials and run length as the figure runs
    them without --quick) or a "preview" (--quick, or a part of the figure); `reasons`, the section
    of docs/<paper>.md that gives the reasons for its misses ("#anchor"; "" where none is written
    yet), or [(start of a check's name, "#anchor"), ...] tried in order; `note`, what else to
    know in a few words (`saturn reproduce --status` prints it).
    open_misses: [(start of a check's name, what is still open)] for the misses of a full-length
    result whose cause no experiment has isolated and no fix has removed (issue 63 item 4): what the
    reason section only argues, and the experiment that would settle it. Every other miss of a full
    result claims an isolating experiment or a fix in its reason section. `saturn reproduce --status`
    lists the open ones, and fails where an entry matches none of the result's misses (a stale one)."""
    assert length in ("full", "preview"), length
    assert length == "full" or not open_misses, "open_misses are kept for full-length results"
    return dict(name=name, length=length, reasons=reasons, note=note, open_misses=list(open_misses))


def read_rows(path):
    """A CSV file a figure wrote, as a list of {column: text}; lines starting with '#' (what ran) skipped."""
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def numeric_rows(path):
    """read_rows with every value a float (every column of the figure CSVs that hold one row per point)."""
    return [{k: float(v) for k, v in r.items()} for r in read_rows(path)]


def shown(path):
    """A path as a check prints it: from the repository root where it lies inside it."""
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith("..") else rel


def beside(directory, fig, filename, paper):
    """Another figure's file for a check that compares figures (PAPERS-SPEC's cross-item checks):
    beside this one (docs/<paper>/ holds every figure's files side by side), in a run directory next
    to this one (<out>/../<fig>/), or else the committed one under docs/<paper>/; None if none."""
    for path in (os.path.join(directory, filename), os.path.join(directory, "..", fig, filename),
                 os.path.join(ROOT, "docs", paper, filename)):
        if os.path.isfile(path):
            return os.path.normpath(path)
    return None
