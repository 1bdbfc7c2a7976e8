#!/usr/bin/env python3
"""How a hot spot's congestion tree grows between state dumps (stats.state_dump_ns; docs/user-guide.md,
State dumps).

    scripts/hotspot_growth.py OUT/state/p0_t4_200000ns OUT/state/p0_t4_260000ns ... --dst 131 --dst 397

For each dump (in the order given) and the hot destinations named by --dst:
  - packets buffered in the switches that go to a hot destination, and the others (data only);
  - the hot sources' injection between this dump and the one before, in flits per cycle, in all and
    per source (the hot sources: those with a packet to a hot destination in any of the dumps), next
    to what the hot destinations can drain (one flit per cycle each);
  - at the hot destinations' switches, how full the input VC buffers that hold packets are: per kind
    of input (from a switch port of the same group, "local", or of another, "global"; dragonfly port
    numbering p endpoints, then a - 1 local ports, then h global ports), how many hold more than
    --threshold of their capacity (001's ECN marks packets leaving a buffer above half full).
Cycles are the dump's time in ns over --cycle-ns (default 1: 001's 1 GHz).
"""
import argparse
import collections
import re
import signal
import sys


from state_chain import read_part  # the dump reader (same folder)


def read(prefix, part):
    return read_part(prefix, part, "hotspot_growth.py")


def dump_ns(prefix):
    m = re.search(r"_(\d+)ns$", prefix)
    if not m:
        sys.exit(f"hotspot_growth.py: {prefix}: a dump prefix ends in _<time>ns")
    return int(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dumps", nargs="+")
    ap.add_argument("--dst", type=int, action="append", required=True, help="a hot destination (repeat)")
    ap.add_argument("--p", type=int, default=4, help="endpoints per switch (dragonfly_p; default 4)")
    ap.add_argument("--a", type=int, default=8, help="switches per group (dragonfly_a; default 8)")
    ap.add_argument("--threshold", type=float, default=0.5, help="fraction of an input VC buffer (default 0.5)")
    ap.add_argument("--local-flits", type=int, default=128, help="a local input VC's capacity (default 128)")
    ap.add_argument("--global-flits", type=int, default=2048, help="a global input VC's capacity (default 2048)")
    ap.add_argument("--cycle-ns", type=float, default=1.0)
    args = ap.parse_args()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # (piped into head: stop quietly)
    hot = set(args.dst)
    dumps = [(prefix, read(prefix, "packets")) for prefix in args.dumps]
    to_hot = [r for _, packets in dumps for r in packets if int(r["dst"]) in hot]
    sources = sorted({int(r["src"]) for r in to_hot})
    if not sources:
        sys.exit("hotspot_growth.py: no packet to a --dst destination in the dumps")
    size = max(int(r["flits"]) for r in to_hot)  # the hot stream's packet size
    hot_peers = {f"n{d}" for d in hot}
    print(f"{len(sources)} hot sources; the hot destinations drain {len(hot)} flits per cycle")
    before = None
    for prefix, packets in dumps:
        t = dump_ns(prefix)
        endpoints = {int(r["endpoint"][1:]): int(r["injected_packets"]) for r in read(prefix, "endpoints")}
        hot_buffered = sum(1 for r in packets if int(r["dst"]) in hot)
        others = sum(1 for r in packets if int(r["dst"]) not in hot and (int(r["flags"], 16) & 4) == 0)
        line = f"{t / 1000:8.1f} us: {hot_buffered:7d} packets buffered to the hot spots, {others:7d} others"
        if before is not None:
            span = (t - before[0]) / args.cycle_ns
            rates = sorted((endpoints[s] - before[1][s]) * size / span for s in sources)
            line += (f"; hot sources since the last dump: {sum(rates):.2f} flits/cycle in all, per source "
                     f"min {rates[0]:.3f}, median {rates[len(rates) // 2]:.3f}, max {rates[-1]:.3f}")
        print(line)
        ports = read(prefix, "ports")
        hot_switches = {r["switch"] for r in ports if r["peer"] in hot_peers}
        fill = collections.defaultdict(list)
        for r in ports:
            if r["switch"] not in hot_switches or ":" not in r["peer"] or int(r["in_flits"]) == 0:
                continue
            kind = "local" if int(r["port"]) < args.p + args.a - 1 else "global"
            fill[kind].append(int(r["in_flits"]))
        for kind, cap in (("local", args.local_flits), ("global", args.global_flits)):
            held = fill.get(kind, [])
            above = sum(1 for f in held if f > args.threshold * cap)
            print(f"            {kind:6s} input VCs holding packets at the hot switches: {len(held):3d}, "
                  f"above {args.threshold:.0%} of {cap}: {above:3d}" + (f" (flits: {sorted(held)})" if kind == "global" else ""))
        before = (t, endpoints)

if __name__ == "__main__":
    main()
