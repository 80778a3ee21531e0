#!/usr/bin/env python3
"""Failure campaign of the buddy protocol, on small Cholesky, stencil and CG runs (3 checkpoints).

Two kinds of scenario:
- default: 4 nodes, `buddy: next`, one to three fail-stop failures at random times (up to 1.1 x the
  failure-free makespan, often during another's recovery), random detection and downtime;
- --overlap: 16 nodes (--nodes), two buddies per node in a ring (--buddies: node i's buddies i+1,
  i+2), three failures within about one recovery window, 30% of the later ones hitting a buddy of
  the previous one (the campaign of issue 19, where three overlapping restarts never ended).

Every run is classified (bench/run_harness.py: a fresh output per run, a wall timeout, the exit code
checked):
- recovered: complete, the digest oracle holding, and no survivor re-executing unless a cascade of
  Lion 2022 §3.5 rolled it back (the failure records count the processes rolled back);
- unrecoverable: exit 1 for a cause that holds in the scenario (every buddy of the named node failed
  too; or the named node failed, with messages in transit forbidding its checkpoints; or the cascade
  limit, named by a failed node for another node's versions);
- hang (no end within --timeout), crash (a signal, an unexpected exit code, no results), wrong (a
  wrong result, a stall, no progress, a time limit, an unrecoverable ending whose cause does not
  hold), bad input.
Prints the counts per application and each run that is not recovered or unrecoverable with its seed
and its config (kept in the run's directory); exits 1 if there was any hang, crash, wrong result or
bad input. About 1 s per 10 runs.

usage: bench/buddy_campaign.py [--runs 300] [--apps cholesky,stencil,cg] [--overlap [--nodes 16]
       [--buddies 2]] [--seed-base N] [--timeout S] [--build build]
"""
import argparse
import collections
import random
import re
import sys
import tempfile
from pathlib import Path

from run_harness import BAD_INPUT, CRASH, HANG, OK, ROOT, add_campaign_options, run_ftsim, seed_base

APPS = {
    "cholesky": {"type": "cholesky", "tiles": 8, "tile_size": 128, "order": "column"},
    "stencil": {"type": "stencil", "tiles": [4, 4], "tile_size": [64, 64], "iterations": 10},
    "cg": {"type": "cg", "grid": 64, "blocks": 8, "iterations": 8},
}
KINDS = ("recovered", "unrecoverable", "hang", "crash", "wrong", "bad input")


def ring(nodes, buddies):
    return [[(i + b) % nodes for b in range(1, buddies + 1)] for i in range(nodes)]


def config(app, nodes, buddies, **extra):
    c = {"name": f"campaign-{app}", "application": APPS[app],
         "platform": {"nodes": nodes, "cores_per_node": 2, "core_gflops": {"default": 2}},
         "checkpoints": {"count": 3, "buddy": "next" if buddies == 1 else ring(nodes, buddies)},
         "protocol": {"type": "buddy"}}
    c.update(extra)
    return c


def scenario(rng, makespan, nodes, buddies, overlap):
    """The failures of one seed: (events, detection, downtime)."""
    if not overlap:
        events = [{"node": rng.randrange(nodes), "time": rng.uniform(0, 1.1 * makespan)}
                  for _ in range(rng.choice([1, 2, 2, 3]))]
        return events, rng.uniform(0, 0.05 * makespan), rng.uniform(0, 0.05 * makespan)
    detection, downtime = rng.uniform(0, 0.002 * makespan), rng.uniform(0, 0.004 * makespan)
    window = detection + downtime + 0.002 * makespan  # about one recovery
    first, node, events = rng.uniform(0, makespan), rng.randrange(nodes), []
    for i in range(3):
        if i > 0:
            node = (node + 1 + rng.randrange(buddies)) % nodes if rng.random() < 0.3 else rng.randrange(nodes)
        events.append({"node": node, "time": first if i == 0 or rng.random() < 0.2 else first + rng.uniform(0, window)})
    return events, detection, downtime


def unrecoverable_cause_holds(reason, failed, buddies_of):
    """Whether the unrecoverable `reason` names a cause that holds for the failed nodes."""
    named = re.match(r"unrecoverable: node (\d+)", reason)
    if not named:
        return False
    node = int(named.group(1))
    # A cascade of cascades: the needing node rolls back, alive, for another node's failure.
    on_behalf = re.search(r"rolling back for the failure of node (\d+)", reason)
    if on_behalf:
        node = int(on_behalf.group(1))
    if node not in failed:
        return False
    if "every one of its buddies had lost" in reason:
        return all(b in failed for b in buddies_of[node])
    if "messages still in transit forbid" in reason:
        return True
    writer = re.search(r"needs versions that node (\d+)", reason)
    return "(the cascade of Lion 2022 §3.5)" in reason and writer is not None and int(writer.group(1)) != node


def classify(outcome, events, buddies_of):
    if outcome.kind in (HANG, CRASH, BAD_INPUT):
        return outcome.kind, outcome.describe()
    r = outcome.results
    failed = {e["node"] for e in events}
    if r["complete"]:
        rolled_back = sum(f["processes_rolled_back"] for f in r["failures"])
        survivors_redid = any(n["reexecutions"] > 0 for i, n in enumerate(r["nodes"]) if i not in failed)
        if outcome.kind == OK and r["oracle"]["ok"] and (not survivors_redid or rolled_back > len(r["failures"])):
            return "recovered", ""
        return "wrong", f"oracle {r['oracle']}, survivors re-executed: {survivors_redid}"
    if unrecoverable_cause_holds(r["failure_reason"], failed, buddies_of):
        return "unrecoverable", r["failure_reason"]
    return "wrong", r["failure_reason"] + (f"; stall: {r['stall_report'][:3]}" if r.get("stall_report") else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--runs", type=int, default=300, help="scenarios per application")
    parser.add_argument("--apps", default="cholesky,stencil,cg")
    parser.add_argument("--overlap", action="store_true", help="three failures within one recovery window")
    parser.add_argument("--nodes", type=int, default=None, help="nodes (default 4, or 16 with --overlap)")
    parser.add_argument("--buddies", type=int, default=None, help="buddies per node (default 1, or 2 with --overlap)")
    add_campaign_options(parser, timeout=60)
    args = parser.parse_args()
    nodes = args.nodes or (16 if args.overlap else 4)
    buddies = args.buddies or (2 if args.overlap else 1)
    binary = Path(args.build) / "ftsim"
    base = seed_base(args)
    work = Path(tempfile.mkdtemp(prefix="ftsim-buddy-campaign-"))
    print(f"runs in {work}: {nodes} nodes, {buddies} buddies per node, "
          f"{'three failures in one recovery window' if args.overlap else 'one to three failures'}", flush=True)
    buddies_of = ring(nodes, buddies)
    counts = collections.Counter()
    odd = []
    for app in args.apps.split(","):
        free = run_ftsim(config(app, nodes, buddies), work, f"{app}-free", args.timeout, binary=binary)
        if free.kind != OK:
            print(f"{app}: the failure-free run did not succeed: {free.describe()}")
            return 1
        makespan = free.results["makespan"]
        for i in range(args.runs):
            seed = base + i
            rng = random.Random(seed)
            events, detection, downtime = scenario(rng, makespan, nodes, buddies, args.overlap)
            c = config(app, nodes, buddies, seed=seed, failures={
                "model": "list", "events": [{"node": e["node"], "time": f"{e['time']:.9f} s"} for e in events],
                "detection": f"{detection:.9f} s", "downtime": f"{downtime:.9f} s"})
            outcome = run_ftsim(c, work, f"{app}-{seed}", args.timeout, binary=binary)
            kind, why = classify(outcome, events, buddies_of)
            counts[app, kind] += 1
            if kind not in ("recovered", "unrecoverable"):
                odd.append(f"{kind.upper()} {app} seed {seed} ({outcome.output.parent / 'config.json'}): {why}")
        print(f"{app:9s} " + "  ".join(f"{k} {counts[app, k]}" for k in KINDS), flush=True)
    for line in odd:
        print(line)
    print(f"seed base {base}: " + ", ".join(f"{k} {sum(v for (a, kk), v in counts.items() if kk == k)}" for k in KINDS))
    return 1 if odd else 0


if __name__ == "__main__":
    sys.exit(main())
