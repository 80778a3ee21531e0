#!/usr/bin/env python3
"""Failure campaign of the buddy protocol: seeded scenarios of one to three fail-stop failures at
random times (up to 1.1 x the failure-free makespan, often during another's recovery), random
detection and downtime, on small Cholesky, stencil and CG runs (4 nodes, 3 checkpoints, buddy
next). Prints how many recovered (the digest oracle holding, no survivor that had not failed
itself re-executing) and how many ended unrecoverable (a node and all its buddies lost, in-transit
messages forbidding what they hold, or a cascade of Lion 2022 §3.5 reaching a checkpoint no buddy
holds any more, with the log already collected). Any other ending (a stall, a wrong result) is
listed and makes the exit code 1. About 1 s per 10 runs.

usage: bench/buddy_campaign.py [--build build] [--runs 300] [--apps cholesky,stencil,cg]
"""
import argparse
import collections
import json
import pathlib
import random
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
APPS = {
    "cholesky": {"type": "cholesky", "tiles": 8, "tile_size": 128, "order": "column"},
    "stencil": {"type": "stencil", "tiles": [4, 4], "tile_size": [64, 64], "iterations": 10},
    "cg": {"type": "cg", "grid": 64, "blocks": 8, "iterations": 8},
}


def config(app, **extra):
    c = {"name": f"campaign-{app}", "application": APPS[app],
         "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": {"default": 2}},
         "checkpoints": {"count": 3, "buddy": "next"}, "protocol": {"type": "buddy"}}
    c.update(extra)
    return c


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--runs", type=int, default=300, help="scenarios per application")
    parser.add_argument("--apps", default="cholesky,stencil,cg")
    args = parser.parse_args()
    ftsim = str(pathlib.Path(args.build) / "ftsim")
    work = pathlib.Path(tempfile.mkdtemp(prefix="ftsim-buddy-campaign-"))

    def run(c):
        path = work / "config.json"
        path.write_text(json.dumps(c))
        subprocess.run([ftsim, "run", str(path), "-o", str(work / "out")], capture_output=True, text=True)
        return json.loads((work / "out" / "results.json").read_text())

    outcomes = collections.Counter()
    odd = []
    for app in args.apps.split(","):
        makespan = run(config(app))["makespan"]
        for seed in range(args.runs):
            rng = random.Random(1000 + seed)
            events = [{"node": rng.randrange(4), "time": f"{rng.uniform(0, 1.1 * makespan):.9f} s"}
                      for _ in range(rng.choice([1, 2, 2, 3]))]
            r = run(config(app, seed=seed, failures={
                "model": "list", "events": events,
                "detection": f"{rng.uniform(0, 0.05 * makespan):.9f} s",
                "downtime": f"{rng.uniform(0, 0.05 * makespan):.9f} s"}))
            if r["complete"]:
                failed = {f["node"] for f in r["failures"]}
                ok = r["oracle"]["ok"] and all(n["reexecutions"] == 0 for i, n in enumerate(r["nodes"]) if i not in failed)
                kind = "recovered" if ok else "WRONG"
            else:
                reason = r["failure_reason"]
                kind = "unrecoverable" if "unrecoverable" in reason else "OTHER"
            outcomes[app, kind] += 1
            if kind in ("WRONG", "OTHER"):
                odd.append(f"{app} seed {seed} {events}: {r['failure_reason']}")
        print(f"{app:9s} " + "  ".join(f"{k} {outcomes[app, k]}" for k in ("recovered", "unrecoverable")),
              flush=True)
    for line in odd:
        print("UNEXPECTED", line)
    return 1 if odd else 0


if __name__ == "__main__":
    sys.exit(main())
