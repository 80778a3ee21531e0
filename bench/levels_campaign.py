#!/usr/bin/env python3
"""A campaign against the checkpoint levels of global or buddy under every failure class (docs/multilevel.md).

Each run draws an application (stencil, Cholesky, CG on 8 nodes in racks of 2), a nested subset of the
levels local, buddy, xor (sets of 2 or 4) and stable with random everies, exponential failures split
at random between the node, group, job and process classes, sometimes bursts and a restart cost. A run
must end complete with the oracle's digests right, or as unrecoverable when no level it has survives
what struck (a run without a stable level: a job failure, two members of an XOR set, a node and its
buddy). Wrong results, unrecoverable runs with a stable level, other failures, hangs and crashes are
reported apart; the exit code is 1 if there is any.

With --protocol buddy, each run draws buddy's levels instead: the buddies' memory, and maybe a local
level and a stable level with random everies (written as the data are produced, not awaited), and
sometimes cow or a copy cost.

  bench/levels_campaign.py [--protocol global|buddy] [--runs 300] [--seed-base N] [--timeout 120] [--out DIR]
(300 runs: about 2 minutes on 2 cores.)
"""
from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_harness import campaign_folder, BAD_INPUT, CRASH, HANG, OK, RUN_FAILED, add_campaign_options, run_ftsim, seed_base  # noqa: E402

APPLICATIONS = [
    {"type": "stencil", "tiles": [8, 8], "tile_size": 64, "iterations": 30},
    {"type": "cholesky", "tiles": 8, "tile_size": 64},
    {"type": "cg", "grid": 256, "blocks": 8, "iterations": 12},
]
CLASSES = ["node", "group", "job", "process"]


def draw_buddy_protocol(rnd: random.Random) -> dict:
    levels = [{"storage": "buddy"}]
    if rnd.random() < 0.5:
        levels.insert(0, {"storage": "local", "every": rnd.choice([1, 1, 2])})
    if rnd.random() < 0.7 or len(levels) == 1:
        levels.append({"storage": "stable", "every": rnd.choice([1, 2, 3, 4])})
    protocol = {"type": "buddy", "levels": levels}
    if rnd.random() < 0.3:
        protocol["cow"] = True
    if rnd.random() < 0.2:
        protocol["copy_cost"] = "20us"
    return protocol


def draw_config(seed: int, protocol_name: str = "global") -> dict:
    rnd = random.Random(seed)
    levels, every = [], 1
    for storage in ("local", "buddy", "xor", "stable"):
        if rnd.random() < 0.6 or (storage == "stable" and not levels):
            level = {"storage": storage}
            if levels:
                every *= rnd.choice([1, 1, 2, 3])
                level["every"] = every
            if storage == "xor":
                level["group"] = rnd.choice([2, 4])
            levels.append(level)
    weights = [rnd.random() for _ in CLASSES]
    shares = {c: round(w / sum(weights), 6) for c, w in zip(CLASSES, weights)}
    shares["node"] = round(1 - sum(v for c, v in shares.items() if c != "node"), 6)
    failures = {"model": "exponential", "mtbf": rnd.choice(["50ms", "100ms", "300ms"]), "downtime": "100us",
                "detection": rnd.choice(["0s", "50us", "1ms"]), "classes": shares, "max_failures": rnd.choice([3, 10, 30])}
    if rnd.random() < 0.3:
        failures["burst"] = {"factor": 100, "window": "2ms"}
    protocol = {"type": "global", "at": "cuts", "levels": levels}
    if rnd.random() < 0.3:
        protocol["restart_cost"] = "200us"
    if protocol_name == "buddy":
        protocol = draw_buddy_protocol(rnd)
    return {
        "name": f"levels-campaign-{seed}",
        "seed": seed,
        "application": rnd.choice(APPLICATIONS),
        "platform": {"nodes": 8, "cores_per_node": 2, "core_gflops": 5, "group_size": 2, "storage": {"hosts": 2},
                     "local_storage": {"bandwidth": "2GB/s", "latency": "10us"}},
        "checkpoints": {"count": rnd.choice([2, 3, 6]), "buddy": "next"},
        "protocol": protocol,
        "failures": failures,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--protocol", choices=["global", "buddy"], default="global")
    parser.add_argument("--out", type=Path, default=None)
    add_campaign_options(parser, timeout=120)
    args = parser.parse_args()
    base = seed_base(args)
    work = campaign_folder(args.out, "levels-campaign-")
    counts, problems = Counter(), []
    for i in range(args.runs):
        config = draw_config(base + i, args.protocol)
        outcome = run_ftsim(config, work, f"run-{base + i}", args.timeout)
        has_stable = any(level["storage"] == "stable" for level in config["protocol"]["levels"])
        if outcome.kind == OK:
            kind = "complete" if outcome.results["oracle"]["ok"] else "wrong result"
        elif outcome.kind == RUN_FAILED:
            unrecoverable = outcome.failure_reason.startswith("unrecoverable")
            kind = ("unrecoverable" if not has_stable else "unrecoverable with a stable level") if unrecoverable else "run failed"
            if kind == "unrecoverable with a stable level" and args.protocol == "buddy" and "cannot roll back" in outcome.failure_reason:
                # buddy's levels are written in the background, each node on its own: a node that
                # restores an older level checkpoint may need another to roll back to a cut it
                # never wrote to a level (it restored past it), the cascade of Lion 2022 §3.5.
                kind = "unrecoverable: cascade past the levels"
        else:
            kind = {HANG: "hang", CRASH: "crash", BAD_INPUT: "bad input"}[outcome.kind]
        counts[kind] += 1
        if kind not in ("complete", "unrecoverable", "unrecoverable: cascade past the levels"):
            problems.append(f"seed {base + i}: {kind}: {outcome.describe()} ({outcome.output})")
        if (i + 1) % 50 == 0:
            print(f"{i + 1} runs: {dict(counts)}", flush=True)
    print(f"\n{args.runs} runs: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    print("\n".join(problems) if problems else "no wrong result, unexpected failure, hang or crash")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
