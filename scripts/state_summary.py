#!/usr/bin/env python3
"""Where the packets of a state dump are (stats.state_dump_ns; docs/user-guide.md, State dumps).

    scripts/state_summary.py OUT/state/p0_t0_68999905ns [--dst 4] [--top 10]

Three tables:
  - packets: every buffered packet counted by where it is (switch stage; the input's side: from an
    endpoint, from below, from above, or leaving on a link / in an output queue), the VC of the queue
    it waits in, the VC it arrived on, its kind (control, or data: flag 0x20 reads "adapted" under
    isolation, "speculative" under the speculative protocols; --flag20 says which where the dump
    cannot: a dump has an _arn.csv only under the ARN techniques), and, with --dst, whether it goes
    to one of those destinations;
  - outputs: the --top outputs with the most packets waiting for them, per VC the packets waiting,
    the downstream credits and why they wait: "blocked" (credits below the smallest head packet
    waiting for it: the chain goes on downstream, scripts/state_chain.py follows it), "link" (the
    output has credits and packets: it is the bottleneck, a congestion root or plain contention),
    "sending";
  - endpoints: the NICs' credits per VC (mean, how many have none) and source queue lengths.
Stage and side come from the ports file's `stage` and `up` columns (fat trees); where a topology
has no stages (a dragonfly, a single switch) the stage reads "-" and every input from a switch
"switch".
"""
import argparse
import collections
import os
import signal
import sys

from state_chain import read_part  # the dump reader (same folder)

TOOL = "state_summary.py"


def side(port_row, staged):
    """Where an input's packets come from."""
    if ":" not in port_row["peer"]:
        return "from endpoint"
    if not staged:
        return "switch"
    return "from above" if port_row["up"] == "1" else "from below"


def packet_table(ports, packets, hot, flag20):
    # A fat tree numbers its stages from the leaves up; elsewhere (a dragonfly, one switch) every
    # switch reads stage 0 or 1 and no port is "up".
    staged = max(int(r["stage"] or 0) for r in ports.values()) > 1
    count = collections.Counter()
    for r in packets:
        stage = ports[(r["switch"], 0)]["stage"] if staged else "-"
        where = side(ports[(r["switch"], int(r["input"]))], staged) if r["where"] == "voq" else r["where"]
        flags = int(r["flags"], 16)
        kind = "control" if flags & 0x4 else (flag20 if flags & 0x20 else "data")
        key = (stage, where, r["vc"], r["packet_vc"], kind)
        if hot:
            key += ("to --dst" if int(r["dst"]) in hot else "other",)
        count[key] += 1
    head = ["stage", "where", "queue VC", "arrived VC", "kind"] + (["destination"] if hot else []) + ["packets"]
    return head, [list(k) + [v] for k, v in sorted(count.items())], sum(count.values())


def output_table(port_rows, packets, top):
    smallest_head = {}  # (switch, output, VC) -> the smallest head packet waiting for it, in flits
    for r in packets:
        if r["where"] == "voq" and r["position"] == "0":
            k = (r["switch"], int(r["output"]), r["vc"])
            smallest_head[k] = min(smallest_head.get(k, 1 << 30), int(r["flits"]))
    by_port = collections.defaultdict(list)
    for r in port_rows:
        by_port[(r["switch"], int(r["port"]))].append(r)
    ranked = sorted(by_port.items(), key=lambda kv: (-sum(int(r["out_waiting"]) for r in kv[1]), kv[0]))
    out = []
    for (switch, port), vcs in ranked[:top]:
        if sum(int(r["out_waiting"]) for r in vcs) == 0:
            break
        for r in sorted(vcs, key=lambda r: int(r["vc"])):
            waiting, credits = int(r["out_waiting"]), int(r["out_credits"])
            if waiting == 0:
                state = "-"
            elif int(r["out_busy_left"]) > 0:
                state = "sending"
            elif ":" in r["peer"] and credits < smallest_head.get((switch, port, r["vc"]), 1):
                state = "blocked"
            else:
                state = "link"
            out.append([f"{switch}:{port}", r["peer"], r["vc"], waiting, credits, state])
    return ["output", "peer", "VC", "waiting", "credits", "state"], out


def endpoint_lines(endpoints):
    if not endpoints:
        return []
    vcs = sorted(k for k in endpoints[0] if k.startswith("credits_vc"))
    lines = []
    for k in vcs:
        vals = [int(r[k]) for r in endpoints]
        lines.append(f"{k}: mean {sum(vals) / len(vals):.1f}, {sum(v == 0 for v in vals)} of {len(vals)} endpoints at 0")
    q = [int(r["source_queue"]) for r in endpoints]
    lines.append(f"source_queue: mean {sum(q) / len(q):.1f} messages, max {max(q)}")
    return lines


def show(title, head, body):
    print(title)
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body)] if body else [len(h) for h in head]
    for line in [head] + body:
        print("  " + "  ".join(str(x).rjust(w) for x, w in zip(line, widths)))


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under `| head`
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("prefix", help="dump prefix: OUT/state/p<point>_t<trial>_<time>ns")
    ap.add_argument("--dst", type=int, action="append", default=[], help="split the packets by these destinations")
    ap.add_argument("--top", type=int, default=10, help="outputs to list (most packets waiting first)")
    ap.add_argument("--flag20", choices=["adapted", "speculative"],
                    help="what flag 0x20 means (default: adapted if the dump has an _arn.csv, else speculative)")
    args = ap.parse_args()
    port_rows = read_part(args.prefix, "ports", TOOL)
    ports = {(r["switch"], int(r["port"])): r for r in port_rows}
    packets = read_part(args.prefix, "packets", TOOL)
    flag20 = args.flag20 or ("adapted" if os.path.exists(f"{args.prefix}_arn.csv") else "speculative")
    head, body, total = packet_table(ports, packets, set(args.dst), flag20)
    show(f"packets: {total} buffered", head, body)
    show(f"outputs: the {args.top} with the most packets waiting", *output_table(port_rows, packets, args.top))
    print("endpoints")
    for line in endpoint_lines(read_part(args.prefix, "endpoints", TOOL)):
        print("  " + line)


if __name__ == "__main__":
    main()
