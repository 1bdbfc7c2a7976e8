"""The vocabulary of `saturn reproduce`'s acceptance checks, shared by every paper's module
(scripts/reproduce_<paper>.py), so that a check reads as PAPERS-SPEC's sentence:

    at_least("root utilization", w["root"], 0.95)            root utilization >= 0.95
    in_range("victim rate", v, 0.12, 0.20, paper="~0.15")    victim rate in [0.12, 0.20]; paper ~0.15
    near("FIMD recovery (ms)", ms, 4.194, 0.042, "4.2 ms")   4.194 ± 0.042
    below("mean [20, 93] ms", m, 0.5, "no recovery")          < 0.5 (strictly)
    above("AR / NC", r, 1.0, "AR worse")                      > 1.0 (strictly)
    truth("plateaus increase with n", ok, "3634 3108 ...", "increasing")   a statement, measured as text
    absent("item 20: 3x in the sweep", "swept")               what the check needs was not run: fails

Each gives a Check: what was checked, the measured value (a number, or text), the acceptance as
printed in checks.csv ("[lo, hi]; paper ..."), and whether it holds. The curve helpers read a
series of (x, value) points the way the papers' figures are read: at an x, or over a window.
"""


class Check:
    def __init__(self, what, measured, accept, ok):
        self.what, self.measured, self.accept, self.ok = what, measured, accept, ok


def _paper(paper):
    return f"; paper {paper}" if paper else ""


def in_range(what, v, lo, hi, paper=""):
    return Check(what, v, f"[{lo:g}, {hi:g}]" + _paper(paper), lo <= v <= hi)


def at_least(what, v, lo, paper=""):
    return Check(what, v, f">= {lo:g}" + _paper(paper), v >= lo)


def at_most(what, v, hi, paper=""):
    return Check(what, v, f"<= {hi:g}" + _paper(paper), v <= hi)


def below(what, v, bound, paper=""):
    return Check(what, v, f"< {bound:g}" + _paper(paper), v < bound)


def above(what, v, bound, paper=""):
    return Check(what, v, f"> {bound:g}" + _paper(paper), v > bound)


def near(what, v, target, tol, paper=""):
    accept = f"= {target:g}" if tol == 0 else f"{target:g} ± {tol:g}"
    return Check(what, v, accept + _paper(paper), abs(v - target) <= tol)


def truth(what, ok, measured_text, accept):
    return Check(what, measured_text, accept, ok)


def absent(what, accept, missing=""):
    """A check whose points were not run (a sweep without the load it needs), or whose quantity the
    results at hand do not hold (`missing` says which): it fails, saying so."""
    return Check(what, f"absent ({missing})" if missing else "absent", accept, False)


# ---------------------------------------------------------------------------------------------
# Curves: lists of (x, value) points, x ascending.


def at_x(points, x):
    """The curve's value at x (nan where it has no point there)."""
    return dict(points).get(x, float("nan"))


def _window(points, lo, hi):
    """The values of the bins (t - step, t] inside [lo, hi] (rocher2021_efficiency's phase rule)."""
    step = points[1][0] - points[0][0] if len(points) > 1 else 0
    return [v for t, v in points if t - step >= lo - 1e-9 and t <= hi + 1e-9]


def mean_in(points, lo, hi):
    """Mean of the bins inside [lo, hi]; nan where there are none."""
    vs = _window(points, lo, hi)
    return sum(vs) / len(vs) if vs else float("nan")


def min_in(points, lo, hi):
    """Lowest bin inside [lo, hi]; nan where there are none."""
    vs = _window(points, lo, hi)
    return min(vs) if vs else float("nan")
