"""Reading back hand runs of Rocher-Gonzalez et al. 2021 Fig. 6's configs: a run directory's
efficiency curve and the (traffic, queue scheme, technique) its config name stands for. Shared by
scripts/rocher2021_shared_buffer.py and scripts/rocher2021_readings.py."""
import collections
import csv

TRAFFIC = ("h10_4", "h25_4", "h10", "h25", "rnd")  # longest first: h10_4 before h10


def curve_dir(d):
    """(time in ms, efficiency averaged over trials) of a `saturn run` directory's series.csv."""
    acc = collections.defaultdict(list)
    for row in csv.DictReader(open(f"{d}/series.csv")):
        if row["metric"] == "throughput_per_node" and row["point"] == "0":
            acc[float(row["time_ns"])].append(float(row["value"]))
    return sorted((t / 1e6, sum(v) / len(v)) for t, v in acc.items())


def split_name(name):
    """'h10_4_flow2sl_arn_afi' (a config's name less 'fig6_') -> ('h10_4', 'flow2sl', 'arn_afi')."""
    for tr in TRAFFIC:
        if name.startswith(tr + "_"):
            q, tech = name[len(tr) + 1:].split("_", 1)
            return tr, q, tech
    raise ValueError(f"{name}: not a Fig. 6 curve")
