#!/usr/bin/env python3
"""Follows a chain of blocked packets through a state dump (stats.state_dump_ns; docs/user-guide.md,
State dumps).

    scripts/state_chain.py OUT/state/p0_t0_449905ns --from n17
    scripts/state_chain.py OUT/state/p0_t0_449905ns --from S2.P3.0:8

Starts at an endpoint's switch input (--from ENDPOINT) or at a switch input (--from SWITCH:PORT) and,
hop by hop, takes the oldest head packet of that input, looks at the output it waits for and says
why it waits:
  - credits: the output's downstream buffer cannot take it, and the output is idle: the chain goes
    on at the input beyond that output (the `peer` of its row);
  - busy: the output is sending another packet (contention, not a blocked chain): the chain ends;
  - ready: nothing stops it at this cycle (it will go when the arbiter picks it): the chain ends.
It ends too at a destination endpoint (the root of the chain), at an input holding nothing, or when it comes back to an input it has
seen (a cycle of credit waits: a deadlock if it persists).
"""
import argparse
import csv
import sys


def read_part(prefix, part, tool="state_chain.py"):
    """One CSV of a dump as rows of named fields; a missing file ends the tool with one line."""
    try:
        with open(f"{prefix}_{part}.csv", newline="") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"{tool}: {prefix}_{part}.csv: {e.strerror} (expected a dump prefix, e.g. OUT/state/p0_t0_1000ns)")


def load(prefix):
    ports = {(r["switch"], int(r["port"]), int(r["vc"])): r for r in read_part(prefix, "ports")}
    heads = {}
    for r in read_part(prefix, "packets"):
        if r["where"] == "voq" and r["position"] == "0":
            heads.setdefault((r["switch"], int(r["input"])), []).append(r)
    return ports, heads


def start_input(ports, start):
    if ":" in start:
        switch, port = start.rsplit(":", 1)
        if not port.isdigit() or not any(k[0] == switch and k[1] == int(port) for k in ports):
            sys.exit(f"state_chain.py: --from {start}: no such switch port in the dump")
        return switch, int(port)
    for (switch, port, _vc), r in ports.items():
        if r["peer"] == start:
            return switch, port
    sys.exit(f"state_chain.py: --from {start}: no endpoint of that name in the dump (or use SWITCH:PORT)")


def chain(ports, heads, at):
    """The hops from input `at` = (switch, port): a list of (input, head packet, output row, reason)."""
    hops, seen = [], set()
    while True:
        if at in seen:
            hops.append((at, None, None, "cycle: back at an input already on the chain"))
            return hops
        seen.add(at)
        waiting = heads.get(at, [])
        if not waiting:
            hops.append((at, None, None, "empty: this input holds no packet"))
            return hops
        head = min(waiting, key=lambda r: int(r["ready_cycle"]))
        out = ports[(at[0], int(head["output"]), int(head["vc"]))]
        if int(out["out_busy_left"]) > 0:
            reason = f"busy: output {out['port']} is sending from input {out['out_sending_from']}"
        elif int(out["out_credits"]) < int(head["flits"]):
            reason = f"credits: output {out['port']} has {out['out_credits']} flits of credit on VC {out['vc']}"
        else:
            reason = "ready: nothing blocks it now"
        hops.append((at, head, out, reason))
        if not reason.startswith("credits"):
            return hops
        if ":" not in out["peer"]:
            hops.append((out["peer"], None, None, "endpoint: the chain's root is this destination's link"))
            return hops
        switch, port = out["peer"].rsplit(":", 1)
        at = (switch, int(port))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("prefix", help="dump prefix: OUT/state/p<point>_t<trial>_<time>ns")
    ap.add_argument("--from", dest="start", required=True, help="an endpoint name, or SWITCH:PORT (an input)")
    args = ap.parse_args()
    ports, heads = load(args.prefix)
    for at, head, out, reason in chain(ports, heads, start_input(ports, args.start)):
        if isinstance(at, str):
            print(f"{at}: {reason}")
            continue
        switch, port = at
        where = f"{switch} input {port}"
        if head is None:
            print(f"{where}: {reason}")
            continue
        queued = len(heads.get((switch, port), []))
        print(f"{where} ({queued} VOQ heads): oldest head {head['src']}->{head['dst']} on VC {head['vc']}, "
              f"ready since cycle {head['ready_cycle']}, for output {out['port']} ({out['peer'] or '-'}, "
              f"{out['out_waiting']} packets waiting for it): {reason}")


if __name__ == "__main__":
    main()
