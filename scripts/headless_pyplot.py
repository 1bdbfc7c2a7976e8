"""matplotlib's pyplot for the scripts that draw, headless (Agg), or one line saying why not.

`saturn plot` and `saturn reproduce` run their scripts under /usr/bin/python3, where
scripts/setup.sh installs Debian's python3-matplotlib. A script run by hand runs under the first
python3 on PATH, which may be another interpreter (pyenv, a virtual environment) without it: there
it should say so in one line, naming the interpreter, and exit 2, not end in a traceback at its
first plot, possibly hours into a run. Scripts that plot call require() before they run anything,
and pyplot() where they draw.
"""
import importlib.util
import os
import sys

DEBIAN_PYTHON = "/usr/bin/python3"


def _script():
    """The script as the user ran it, scripts/NAME.py (the module may be imported by another)."""
    return "scripts/" + os.path.basename(sys.argv[0] or "saturn_plot.py")


def _door():
    """The saturn command that runs this script under Debian's python3."""
    return "saturn plot" if os.path.basename(sys.argv[0]) == "saturn_plot.py" else "saturn reproduce"


def missing():
    """Prints the one line and exits 2."""
    where = sys.executable or "this python3"
    if os.path.realpath(where) == os.path.realpath(DEBIAN_PYTHON):
        advice = "bash scripts/setup.sh installs python3-matplotlib"
    else:
        advice = f"run it with {DEBIAN_PYTHON} or `{_door()}`"
    print(f"{_script()}: matplotlib is not installed for {where}; {advice}", file=sys.stderr)
    sys.exit(2)


def require():
    """Exits with the one line unless matplotlib can be imported (checked without importing it,
    which takes a second)."""
    if importlib.util.find_spec("matplotlib") is None:
        missing()


def pyplot():
    """matplotlib.pyplot with the Agg backend (no display needed)."""
    try:
        import matplotlib
    except ImportError:
        missing()
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt
