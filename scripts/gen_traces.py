#!/usr/bin/env python3
"""Generates synthetic application traces in Saturn's trace format (docs/traces.md).

The VEF traces of Rocher-Gonzalez et al. 2021 (PTRANS, Inception-v3) are not available, so this
writes the substitutes of PAPERS-SPEC items 50 and 51:

  ptrans  N nodes in phases of simultaneous pairwise exchanges: a new random perfect matching per
          phase, one message each way per pair, sizes drawn from 64 KiB .. 1 MiB (powers of two),
          a short local compute between phases. The phase count defaults to what fills
          --target-ms at line rate (item 50: ~0.2 s without congestion under D-mod-K).
  cnn     Inception-v3-like data-parallel training: R ranks mapped round-robin onto N nodes (512
          on 432: nodes 0..79 host two), each iteration a forward compute, then the backward
          pass layer group by layer group (last first); each group's gradients are all-reduced
          with a ring (reduce-scatter + all-gather, 2 (R - 1) steps of size/R bytes to the right
          neighbour) as soon as that group's backward compute is done, overlapping the rest.

--incast hs10 adds the congestion tree 003 injects on top of its traces: 10% of the nodes (a
seeded random subset, the hot spot excluded) stream to hot-spot node 4 at 100% of the link from
3 ms for 100 ms (ptrans) or 400 ms (cnn). --incast none leaves it out.

Examples:
  scripts/gen_traces.py ptrans --out ptrans-432.trace
  scripts/gen_traces.py cnn --incast hs10 --out inception-432-hs10.trace
  scripts/gen_traces.py ptrans --nodes 16 --phases 4 --out small.trace
"""
import argparse
import random
import sys

SIZES = [64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20]
INCEPTION_V3_PARAMS = 23_851_784  # trainable parameters; fp32 gradients


class Node:
    """One node's event block: ids are allocated per node in order."""

    def __init__(self):
        self.lines = []
        self.next_id = 0

    def add(self, text, after=()):
        eid = self.next_id
        self.next_id += 1
        deps = ",".join(str(d) for d in after if d is not None)
        self.lines.append(f"{eid} {text}" + (f" after {deps}" if deps else ""))
        return eid


def ptrans(args, rng, nodes):
    n = args.nodes
    mean_bytes = sum(SIZES) / len(SIZES)
    phase_ns = mean_bytes * 8 / args.link_gbps + args.compute_ns
    phases = args.phases if args.phases else max(1, round(args.target_ms * 1e6 / phase_ns))
    last = [[] for _ in range(n)]  # the events the next phase waits on, per node
    for _ in range(phases):
        order = list(range(n))
        rng.shuffle(order)
        for i in range(0, n - 1, 2):
            a, b = order[i], order[i + 1]
            size = rng.choice(SIZES)
            for x, y in ((a, b), (b, a)):
                c = nodes[x].add(f"compute {args.compute_ns}", last[x])
                s = nodes[x].add(f"send {y} {size}", [c])
                r = nodes[x].add(f"recv {y} {size}", [c])
                last[x] = [s, r]
    return f"ptrans-like: {n} nodes, {phases} phases of pairwise exchanges, sizes {SIZES[0]}..{SIZES[-1]} B"


def cnn(args, rng, nodes):
    n, p = args.nodes, args.ranks
    if p < 2:
        sys.exit("gen_traces.py: --ranks must be at least 2")
    stride = args.rank_stride
    if stride < 1:
        sys.exit("gen_traces.py: --rank-stride must be at least 1")
    node_of = [(r * stride) % n for r in range(p)]
    if p <= n and len(set(node_of)) != p:
        sys.exit(f"gen_traces.py: --rank-stride {stride} puts two of the {p} ranks on one of the {n} nodes; pick another")
    if node_of[p - 1] == node_of[0]:
        sys.exit(f"gen_traces.py: {p} ranks on {n} nodes put ring neighbours {p - 1} and 0 on one node; pick another --ranks")
    groups = args.layer_groups
    group_bytes = [args.params * 4 // groups] * groups
    chunk = [max(1, b // p) for b in group_bytes]
    # --round-bytes: whole packets of that size (the isolation model of 003 counts MTU packets)
    chunk = [-(-c // args.round_bytes) * args.round_bytes for c in chunk]
    bwd_ns = round(args.backward_ms * 1_000_000) // groups
    for r in range(p):  # ranks in order, so every node pair's sends and recvs match in order
        node = nodes[node_of[r]]
        right, left = node_of[(r + 1) % p], node_of[(r - 1) % p]
        done = []  # the previous iteration's last events
        for _ in range(args.iterations):
            fwd = node.add(f"compute {round(args.forward_ms * 1_000_000)}", done)
            prev, done = fwd, []
            for g in reversed(range(groups)):  # backward: last layers first
                prev = node.add(f"compute {bwd_ns}", [prev])
                got = None
                for _step in range(2 * (p - 1)):  # ring: reduce-scatter then all-gather
                    node.add(f"send {right} {chunk[g]}", [got if got is not None else prev])
                    got = node.add(f"recv {left} {chunk[g]}", [got if got is not None else prev])
                done.append(got)
            done.append(prev)
    total = args.iterations * (args.forward_ms + args.backward_ms)
    return (f"cnn-like (Inception-v3 data parallel): {p} ranks on {n} nodes, {args.iterations} iterations, "
            f"{groups} layer groups of {group_bytes[0]} B ring-allreduced, compute {total:g} ms per rank")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kind", choices=["ptrans", "cnn"])
    ap.add_argument("--out", required=True, help="output trace file ('-' = stdout)")
    ap.add_argument("--nodes", type=int, default=432)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--link-gbps", type=float, default=100.0)
    ap.add_argument("--phases", type=int, default=0, help="ptrans: phases (0 = fill --target-ms at line rate)")
    ap.add_argument("--target-ms", type=float, default=200.0, help="ptrans: runtime the phase count aims at")
    ap.add_argument("--compute-ns", type=int, default=2000, help="ptrans: local compute per phase")
    ap.add_argument("--ranks", type=int, default=512, help="cnn: MPI ranks (round-robin onto the nodes)")
    ap.add_argument("--iterations", type=int, default=3, help="cnn: training iterations")
    ap.add_argument("--layer-groups", type=int, default=2, help="cnn: gradient all-reduces per iteration")
    ap.add_argument("--params", type=int, default=INCEPTION_V3_PARAMS, help="cnn: model parameters (fp32)")
    ap.add_argument("--round-bytes", type=int, default=1,
                    help="cnn: round every all-reduce message up to a multiple of this (4096: whole 4 KB packets)")
    ap.add_argument("--rank-stride", type=int, default=1,
                    help="cnn: rank r runs on node (r * stride) mod N (1 = round-robin; spreads fewer ranks over the fabric)")
    ap.add_argument("--forward-ms", type=float, default=60, help="cnn: forward compute per iteration")
    ap.add_argument("--backward-ms", type=float, default=120, help="cnn: backward compute per iteration")
    ap.add_argument("--incast", choices=["none", "hs10", "hs25"], default="none")
    ap.add_argument("--hot-spot", type=int, default=4)
    ap.add_argument("--incast-start-ms", type=float, default=3.0)
    ap.add_argument("--incast-ms", type=float, default=0.0, help="duration (0 = 100 for ptrans, 400 for cnn)")
    args = ap.parse_args()
    if args.nodes < 2:
        sys.exit("gen_traces.py: --nodes must be at least 2")
    if args.round_bytes < 1:
        sys.exit("gen_traces.py: --round-bytes must be at least 1")
    if args.layer_groups < 1 or args.iterations < 1:
        sys.exit("gen_traces.py: --layer-groups and --iterations must be at least 1")

    rng = random.Random(args.seed)
    nodes = [Node() for _ in range(args.nodes)]
    what = ptrans(args, rng, nodes) if args.kind == "ptrans" else cnn(args, rng, nodes)

    out = [
        "saturn_trace 1",
        f"# {what}",
        "# generated by: scripts/gen_traces.py " + " ".join(sys.argv[1:]),
        f"nodes {args.nodes}",
    ]
    if args.incast != "none":
        if not 0 <= args.hot_spot < args.nodes:
            sys.exit(f"gen_traces.py: --hot-spot {args.hot_spot} is not a node (0..{args.nodes - 1})")
        share = 0.10 if args.incast == "hs10" else 0.25
        others = [x for x in range(args.nodes) if x != args.hot_spot]
        hot = sorted(rng.sample(others, max(1, round(share * args.nodes))))
        dur = args.incast_ms or (100.0 if args.kind == "ptrans" else 400.0)
        start = int(args.incast_start_ms * 1e6)
        stop = start + int(dur * 1e6)
        out.append(f"# {args.incast}: {len(hot)} sources to node {args.hot_spot}, [{start}, {stop}) ns at 100%")
        out += [f"stream {s} {args.hot_spot} {start} {stop} 100" for s in hot]
    for i, node in enumerate(nodes):
        if node.lines:
            out.append(f"node {i}")
            out += node.lines
    text = "\n".join(out) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
