"""`saturn reproduce --status [--check]`: the status of every figure of `saturn reproduce --list`,
from the committed checks files only (docs/<paper>/<name>_checks.csv, as each figure's record in
scripts/reproduce_<paper>.py names them; nothing runs): whether the committed result is at full
length or a preview, how many of its checks pass, and each miss in one line with a link to its
reason on the paper's page. Printed, and written to docs/reproductions.md; with --check, nothing is
written and the exit code says whether docs/reproductions.md is what it would write (a test)."""
import collections
import csv
import glob
import os
import re
import subprocess
import sys

import reproduce_shards

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "docs", "reproductions.md")
PAPERS = {"santos2002": "Santos, Turner & Janakiraman 2002", "rocher2021": "Rocher-Gonzalez et al. 2021",
          "zdornov2009": "Zdornov & Birk 2009", "jiang2015": "Jiang, Dennison & Dally 2015"}


def read_checks(paper, name):
    """docs/<paper>/<name>_checks.csv as [(check, measured, acceptance, passed)]; None if not committed."""
    path = os.path.join(ROOT, "docs", paper, f"{name}_checks.csv")
    if not os.path.isfile(path):
        return None
    with open(path, newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    return [(r["check"], r["measured"], r["acceptance"], r["result"] == "pass") for r in rows]


def anchor_of(heading):
    """GitHub's anchor of a heading, as tests/integration/test_docs.cpp computes it (ASCII only)."""
    return "".join(c.lower() if c.isalnum() or c in "-_" else "-" if c == " " else ""
                   for c in heading if ord(c) < 0x80)


def anchors(paper):
    out, fenced = set(), False
    with open(os.path.join(ROOT, "docs", f"{paper}.md")) as f:
        for line in f:
            if line.startswith("```"):
                fenced = not fenced
            elif not fenced and line.startswith("#"):
                out.add(anchor_of(line.lstrip("#").strip()))
    return out


def reason_of(record, check):
    """The section of the paper's page that gives the reason for a miss, or "" where none is named."""
    reasons = record["reasons"]
    if isinstance(reasons, str):
        return reasons
    return next((anchor for start, anchor in reasons if check.startswith(start)), "")


def open_of(record, check):
    """What is still open about a miss of a full-length result (committed(..., open_misses)), or ""."""
    return next((text for start, text in record.get("open_misses", []) if check.startswith(start)), "")


def stale_open(figures):
    """open_misses entries that match no miss of their result: the miss passed or was renamed."""
    bad = []
    for f, rec, checks in entries(figures):
        misses = [c for c, _, _, ok in checks or [] if not ok]
        for start, _ in rec.get("open_misses", []):
            if not any(c.startswith(start) for c in misses):
                bad.append(f"{f['paper']} {f['fig']}: open miss '{start}' matches no miss of {rec['name']}_checks.csv")
    return bad


def full_misses(rows):
    """[(figure, record, check, measured, acceptance)] of every miss of every full-length result."""
    return [(f, rec, c, m, a) for f, rec, checks in rows if rec["length"] == "full"
            for c, m, a, ok in checks or [] if not ok]


def entries(figures):
    """[(figure record, committed record, checks or None)], every committed result of every figure."""
    return [(f, rec, read_checks(f["paper"], rec["name"])) for f in figures.values() for rec in f["committed"]]


def missing_anchors(figures):
    """Reasons that name a heading the paper's page does not have."""
    bad, known = [], {}
    for f in figures.values():
        for rec in f["committed"]:
            reasons = [rec["reasons"]] if isinstance(rec["reasons"], str) else [a for _, a in rec["reasons"]]
            for a in reasons:
                page = known.setdefault(f["paper"], anchors(f["paper"]))
                if a and a.lstrip("#") not in page:
                    bad.append(f"{f['paper']} {f['fig']}: no heading {a} in docs/{f['paper']}.md")
    return bad


def slices_in_progress(figures):
    """[(paper, figure, slices complete, N)] for every figure with committed slices of a full run
    (docs/<paper>/slices/<figure>/, scripts/run_slices.sh): each N its manifests name, counted by
    the manifests that say complete."""
    out = []
    for f in figures.values():
        d = os.path.join(ROOT, "docs", f["paper"], "slices", f["fig"])
        done = collections.defaultdict(int)
        for path in sorted(glob.glob(os.path.join(d, "**", "manifest.shard-*-of-*.json"), recursive=True)):
            done[int(re.search(r"-of-(\d+)\.json$", path).group(1))] += reproduce_shards.manifest_complete(path)
        out += [(f["paper"], f["fig"], k, n) for n, k in sorted(done.items())]
    return out


def uncommitted_slices():
    """The files under docs/*/slices that git does not hold as they are (new or changed): the slice
    counts of docs/reproductions.md include them, so they belong in the same commit. [] outside a
    git checkout."""
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", "docs/*/slices/*"],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    return [line[3:] for line in out.splitlines() if line.strip()]


def count(checks):
    return (sum(ok for *_, ok in checks), len(checks)) if checks is not None else (0, 0)


def link(paper, name):
    return f"[{name}_checks.csv]({paper}/{name}_checks.csv)"


def page(figures):
    """docs/reproductions.md."""
    rows = entries(figures)
    head = {}
    for f, rec, checks in rows:
        head.setdefault((f["paper"], f["fig"]), (f, rec, checks))  # the figure's first committed result
    lengths = collections.Counter(rec["length"] if checks is not None else "none" for _, rec, checks in head.values())
    passed = sum(count(c)[0] for *_, c in head.values())
    total = sum(count(c)[1] for *_, c in head.values())
    out = ["# Reproductions: status of the committed results", "",
           "Generated by `saturn reproduce --status` (scripts/reproduce_status.py) from the committed checks files",
           "only, `docs/<paper>/<name>_checks.csv`, as each figure's record in `scripts/reproduce_<paper>.py` names",
           "them; do not edit it by hand. `ctest -R Reproduce.StatusTableMatchesTheCommittedChecks` fails when it",
           "differs from what the command would write. A figure's checks are PAPERS-SPEC's acceptance checks as",
           "`saturn reproduce` prints them; a result is **full** when it is the figure's run as written (the",
           "paper's setup, trials and run length), a **preview** when it is `--quick` or a part of the figure.",
           "Where a check's quantity is not in the committed files, the check fails as `absent` and says what is",
           "missing.", "",
           f"**{len(head)} figures**: {lengths['full']} with a full-length result, {lengths['preview']} with a preview "
           f"only" + (f", {lengths['none']} with none" if lengths["none"] else "") +
           f"; **{passed} of {total} checks pass** (the first result of each figure).", ""]
    misses = full_misses(rows)
    still_open = [m for m in misses if open_of(m[1], m[2])]
    out += [f"**{len(misses)} misses at full length**: {len(misses) - len(still_open)} with their cause isolated by an "
            f"experiment (or a fix) in the linked reason section, **{len(still_open)} open** "
            "([the list](#open-misses-at-full-length)).", "",
           "| paper | figure | items | committed result | length | checks passed | other committed results |",
           "|---|---|---|---|---|---|---|"]
    for (paper, fig), (f, rec, checks) in head.items():
        others = [f"{r['length']}: {link(paper, r['name'])} {count(c)[0]} of {count(c)[1]}"
                  for g, r, c in rows if (g["paper"], g["fig"]) == (paper, fig) and r is not rec]
        p, n = count(checks)
        result = link(paper, rec["name"]) if checks is not None else f"none ({rec['name']}_checks.csv)"
        note = f" ({rec['note']})" if rec["note"] else ""
        out.append(f"| {paper} | {fig} | {f['item']} | {result}{note} | {rec['length']} | {p} of {n} | "
                   f"{'; '.join(others)} |")
    progress = slices_in_progress(figures)
    if progress:
        out += ["", "## Full-length runs in slices", "",
                "Figures whose full-length run goes on in slices (`saturn reproduce --shard`), of which the completed "
                "ones are committed under `docs/<paper>/slices/<figure>/`; `scripts/run_slices.sh PAPER FIGURE N` "
                "runs the rest and writes the figure when the last is done.", ""]
        out += [f"- {paper} {fig}: {k} of {n} slices complete" for paper, fig, k, n in progress]
    out += ["", "## Open misses at full length", "",
            "The misses of full-length results whose reason section argues a cause but no experiment has isolated "
            "it yet, nor a fix removed it (issue 63 item 4), with what would settle each; from the `open_misses` of "
            "each result's record. Every other miss at full length links to the experiment that isolates it.", ""]
    groups = {}  # the misses one open text covers, in the order of the results and their checks
    for f, rec, check, measured, accept in still_open:
        groups.setdefault((f["paper"], f["fig"], rec["name"], open_of(rec, check), reason_of(rec, check)),
                          []).append((check, measured, accept))
    for (paper, fig, name, text, anchor), checks in groups.items():
        what = (f"{checks[0][0]}: {checks[0][1]}, against {checks[0][2]}" if len(checks) == 1 else
                f"{len(checks)} misses: " + "; ".join(c for c, _, _ in checks))
        out.append(f"- **{paper} {fig}** ({name}), {what}. *Open*: {text}. [Reason]({paper}.md{anchor})")
    out += ["", "## Misses", "",
            "Every failing check of every committed result, one a line: measured, against the acceptance, and "
            "where its reason is written.", ""]
    for f, rec, checks in rows:
        misses = [c for c in checks or [] if not c[3]]
        if not misses:
            continue
        items = ("items " if "," in f["item"] else "item ") + f["item"]
        out += [f"### {f['paper']} {f['fig']} ({items}): {rec['name']}, {rec['length']}", ""]
        for check, measured, accept, _ in misses:
            anchor = reason_of(rec, check)
            why = (f"[reason]({f['paper']}.md{anchor})" if anchor else
                   f"[{f['paper']}.md]({f['paper']}.md): reason not yet written")
            still = " (**open**)" if open_of(rec, check) else ""
            out.append(f"- {check}: {measured}, against {accept}; {why}{still}")
        out.append("")
    return "\n".join(out)


def main(figures, check):
    bad = missing_anchors(figures) + stale_open(figures)
    if bad:
        for b in sorted(set(bad)):
            print(f"saturn reproduce --status: {b}", file=sys.stderr)
        return 2
    text = page(figures)
    if check:
        current = open(PAGE).read() if os.path.isfile(PAGE) else ""
        if current != text:
            print("saturn reproduce --status --check: docs/reproductions.md differs from what the committed checks "
                  "files give; run `saturn reproduce --status` and commit it", file=sys.stderr)
            return 1
        print("docs/reproductions.md matches the committed checks files")
        return 0
    print(f"{'paper':<12} {'figure':<11} {'items':<11} {'committed result':<28} {'length':<8} checks")
    for f, rec, checks in entries(figures):
        p, n = count(checks)
        print(f"{f['paper']:<12} {f['fig']:<11} {f['item']:<11} {rec['name']:<28} {rec['length']:<8} "
              + (f"{p} of {n}" if checks is not None else "not committed"))
    with open(PAGE, "w") as fh:
        fh.write(text)
    print(f"written to {os.path.relpath(PAGE, ROOT)}")
    pending = uncommitted_slices()
    if pending:  # a status committed without them fails Reproduce.StatusTableMatchesTheCommittedChecks
        print(f"saturn reproduce --status: {len(pending)} slice files under docs/*/slices are not committed "
              f"(e.g. {pending[0]}); commit them with docs/reproductions.md, whose slice counts include them",
              file=sys.stderr)
    return 0
