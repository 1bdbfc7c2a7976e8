"""`saturn reproduce PAPER FIGURE --shard I --shards N`: a figure's runs in N slices of their trials,
run one slice per command, on as many machines (or days) as there are slices.

Every `saturn run` of the reproduction scripts goes through run() here. Unsharded, it is
saturn_child.run. Sharded (SHARD set by reproduce.py), each run of the figure becomes
`saturn run ... --shard I --shards N --resume` (saturn's own shards, docs/user-guide.md "Past one
machine"): it writes trials.shard-III-of-NNN.csv and its manifest into the run's directory,
beside the other slices' files, and keeps its own finished trials if it was stopped. When every
slice of that run is complete, `saturn merge` writes the files an unsharded run writes, and the
figure goes on to its next run, or to its CSV files, plot and checks. While slices are missing,
run() raises Pending, and reproduce.py says which slices the directory still lacks.

A run already merged (a complete unsharded manifest.json) is read as it is, by every slice. So a
figure of several runs goes run by run: the slice that completes a run goes on to its next run.
The slices of one run may run at once, on other machines sharing the directory, or one after the
other; the merged files are byte-identical to an unsharded run's (saturn merge, tested).
"""
import glob
import json
import os
import re
import sys

import saturn_child

SHARD = None  # (i, n) with 0 <= i < n: this command's slice of every run of the figure


class Pending(Exception):
    """A run of the figure still lacks slices: (its directory, the slices complete, n)."""

    def __init__(self, out, complete, n):
        super().__init__(out)
        self.out, self.complete, self.n = out, complete, n


def manifest_complete(path):
    """Whether a manifest (manifest.json or a shard's) says its run ended with every trial done."""
    try:
        with open(path) as f:
            return bool(json.load(f).get("complete", False))
    except (OSError, ValueError):
        return False


def complete_slices(out, n):
    """The slices of N whose manifests in `out` say complete, as a sorted list of indices."""
    done = []
    for path in glob.glob(os.path.join(out, f"manifest.shard-*-of-{n:03d}.json")):
        m = re.search(r"manifest\.shard-(\d+)-of-\d+\.json$", path)
        if m and manifest_complete(path):
            done.append(int(m.group(1)))
    return sorted(done)


def option_value(cmd, flag):
    """The value after `flag` in a command line (None if absent)."""
    return cmd[cmd.index(flag) + 1] if flag in cmd and cmd.index(flag) + 1 < len(cmd) else None


def sharded(cmd, i, n):
    """`saturn run` command line `cmd` as slice i of n: --resume instead of --force, so that a slice
    keeps the other slices' files and its own finished trials."""
    kept = [a for a in cmd if a not in ("--force", "--resume")]
    return kept + ["--resume", "--shard", str(i), "--shards", str(n)]


def run(cmd, **kwargs):
    """Runs one `saturn run` command line of a figure, whole or this command's slice of it (above),
    the command line printed first."""
    if SHARD is None or len(cmd) < 2 or cmd[1] != "run":
        print("+ " + " ".join(cmd), file=sys.stderr)
        return saturn_child.run(cmd, **kwargs)
    i, n = SHARD
    out = option_value(cmd, "--out")
    if out is None:
        raise ValueError("a sharded saturn run needs --out: " + " ".join(cmd))
    if manifest_complete(os.path.join(out, "manifest.json")):
        print(f"saturn reproduce: {out}: merged already; read as it is", file=sys.stderr)
        return None
    print("+ " + " ".join(sharded(cmd, i, n)), file=sys.stderr)
    saturn_child.run(sharded(cmd, i, n), **kwargs)
    done = complete_slices(out, n)
    if len(done) < n:
        raise Pending(out, done, n)
    saturn_child.run([cmd[0], "merge", out], stdout=kwargs.get("stdout"))
    return None


def pending_message(paper, fig, e):
    """What reproduce.py prints when the figure waits for other slices (exit 0: nothing failed)."""
    missing = [k for k in range(e.n) if k not in e.complete]
    shown = ", ".join(str(k) for k in missing[:20]) + (", ..." if len(missing) > 20 else "")
    return (f"saturn reproduce: {paper} {fig}: slice {SHARD[0]} of {e.n} of the run in {e.out} is done; "
            f"{len(e.complete)} of {e.n} slices complete there (missing: {shown}). Run the others with "
            f"--shard K --shards {e.n} and the same --out; the one that completes the run merges it and "
            f"goes on with the figure")
