#!/usr/bin/env python3
"""Failures that strike together against in-memory checkpointing: the share of `buddy` runs that become
unrecoverable as the share of group failures rises (issue 44's correlated-failure check).

A 16-node stencil with a buddy at (n + 1) mod 16 and racks of 4 nodes (/platform/group_size): a group
failure takes a rack down, and with it a node and its buddy for 3 of the 4 nodes of each rack. Exponential
failures (/failures/mtbf per node) split between the classes "node" and "group" (/failures/classes); for
each share of group failures, --runs seeds, under `buddy`, `global` with buddy storage, `global` with
an XOR level added (sets of 4 nodes, one per rack: it rebuilds what one rack failure takes, not what
two at once take), `global` with buddies and every 4th checkpoint on stable storage (4 servers),
which must recover from any of them, and `buddy` with a stable level every 4th or every checkpoint
(written in the background: what a failure finds there depends on how far the writes got). With --burst FACTOR, a failure raises the rate of its rack's other
machines FACTOR times for --window instead of (or with) group failures.

Every run has a wall timeout; outcomes are counted apart: complete, unrecoverable (exit 1, the
protocol's "unrecoverable"), other run failure (exit 1), bad input, hang, crash, wrong result (the oracle).

  bench/group_failures.py [--runs 20] [--shares 0,0.1,0.25,0.5] [--mtbf 1s] [--seed-base N] [--timeout 120]
"""
from __future__ import annotations

import argparse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from run_harness import campaign_folder, BAD_INPUT, CRASH, HANG, OK, RUN_FAILED, add_campaign_options, run_ftsim, seed_base


def config(protocol: dict, share: float, mtbf: str, seed: int, burst: float, window: str) -> dict:
    failures = {"model": "exponential", "mtbf": mtbf, "downtime": "100us", "detection": "50us",
                "classes": {"node": 1 - share, "group": share} if share > 0 else {"node": 1}}
    if burst > 1:
        failures["burst"] = {"factor": burst, "window": window}
    return {
        "name": "group-failures",
        "seed": seed,
        "application": {"type": "stencil", "tiles": [8, 8], "tile_size": 256, "iterations": 40},
        "platform": {"nodes": 16, "cores_per_node": 2, "core_gflops": 5, "group_size": 4,
                     "storage": {"hosts": 4}},
        "checkpoints": {"count": 8, "buddy": "next"},
        "failures": failures,
        "protocol": protocol,
    }


def classify(outcome) -> str:
    if outcome.kind == OK:
        return "complete"
    if outcome.kind == RUN_FAILED:
        results = outcome.results or {}
        if results.get("oracle", {}).get("wrong"):  # a version with the wrong digest (a failed run's is not checked)
            return "wrong"
        return "unrecoverable" if "unrecoverable" in outcome.failure_reason else "other failure"
    return {BAD_INPUT: "bad input", HANG: "hang", CRASH: "crash"}[outcome.kind]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20, help="seeds per share and protocol")
    parser.add_argument("--shares", default="0,0.1,0.25,0.5", help="shares of group failures, comma-separated")
    parser.add_argument("--mtbf", default="1s", help="per-node MTBF (failure-free, buddy takes 21 ms, global with two levels 37 ms)")
    parser.add_argument("--burst", type=float, default=1, help="/failures/burst factor (1: none)")
    parser.add_argument("--window", default="1ms", help="/failures/burst window")
    parser.add_argument("--variants", default="", help="the variants to run, ';'-separated (default: all)")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="where the runs go (default: a fresh temporary folder)")
    add_campaign_options(parser, timeout=120)
    args = parser.parse_args()
    base = seed_base(args)
    work = campaign_folder(args.out, "group-failures-")
    protocols = {"buddy": {"type": "buddy"},
                 "global, buddy": {"type": "global", "at": "cuts", "storage": "buddy"},
                 "global, buddy + xor": {"type": "global", "at": "cuts",
                                         "levels": [{"storage": "buddy"}, {"storage": "xor", "group": 4, "every": 1}]},
                 "global, buddy + stable/4": {"type": "global", "at": "cuts",
                                              "levels": [{"storage": "buddy"}, {"storage": "stable", "every": 4}]},
                 "buddy + stable/4": {"type": "buddy", "levels": [{"storage": "buddy"}, {"storage": "stable", "every": 4}]},
                 "buddy + stable/1": {"type": "buddy", "levels": [{"storage": "buddy"}, {"storage": "stable", "every": 1}]}}
    if args.variants:
        wanted = [v.strip() for v in args.variants.split(";")]
        unknown = [v for v in wanted if v not in protocols]
        if unknown:
            parser.error(f"--variants: unknown {unknown}; the variants are {list(protocols)}")
        protocols = {name: protocols[name] for name in wanted}
    shares = [float(s) for s in args.shares.split(",")]
    kinds = ["complete", "unrecoverable", "other failure", "wrong", "bad input", "hang", "crash"]
    print(f"{'protocol':24} {'group share':>11} {'runs':>5} {'failures':>9} {'group':>6} " + " ".join(f"{k:>13}" for k in kinds))
    problems = 0
    for variant, (name, protocol) in enumerate(protocols.items()):
        for share in shares:
            jobs = [(seed, config(protocol, share, args.mtbf, seed, args.burst, args.window)) for seed in range(base, base + args.runs)]
            with ThreadPoolExecutor(args.jobs) as pool:
                outcomes = list(pool.map(lambda job: run_ftsim(job[1], work, f"{variant}-{protocol['type']}-{share}-{job[0]}", args.timeout), jobs))
            counts = {k: 0 for k in kinds}
            failures = groups = 0
            for (seed, _), outcome in zip(jobs, outcomes):
                kind = classify(outcome)
                counts[kind] += 1
                if outcome.results:
                    events = outcome.results.get("failure_events", {})
                    failures += sum(events.get(k, 0) for k in ("node", "group", "job"))
                    groups += events.get("group", 0)
                if kind in ("wrong", "bad input", "hang", "crash") or (kind == "other failure"):
                    problems += 1
                    print(f"  seed {seed}: {kind}: {outcome.describe()} ({outcome.output})", flush=True)
            print(f"{name:24} {share:11.2f} {args.runs:5d} {failures / args.runs:9.1f} {groups / args.runs:6.1f} "
                  + " ".join(f"{counts[k]:13d}" for k in kinds), flush=True)
    print("failures and group: mean failure events per run (all classes, and group ones)")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
