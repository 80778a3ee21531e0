#!/usr/bin/python3
"""CCK against global on the same failures, in SimGrid: the failure campaign's base configs (4 nodes
of 2 cores; Cholesky 10x10 tiles, stencil 4x4 tiles x 12 sweeps, CG 256 grid in 8 blocks x 8
iterations; tests/campaign/campaign_test.cpp) and its kind of scenario (one to three failures at
random times, some simultaneous, random downtime and detection), each run with `global` (stable
storage), `cck` and `cck` with §3.7.1 at the same random checkpoint period. Prints, per application,
the re-executed tasks (all nodes) and those of the nodes that never failed, summed over the seeds.
Every run gets a fresh output, a wall timeout and its exit code checked (bench/run_harness.py);
each must complete with the oracle holding. Prints its seed base (--seed-base to replay).
Usage: bench/cck_vs_global.py [--seeds 100] [--nodes 4] [--seed-base N] [--timeout 60]"""
import argparse
import random
import sys
import tempfile
from pathlib import Path

from run_harness import OK, add_campaign_options, run_ftsim, seed_base

parser = argparse.ArgumentParser()
parser.add_argument("--seeds", type=int, default=100)
parser.add_argument("--nodes", type=int, default=4)
add_campaign_options(parser)
args = parser.parse_args()
base_seed = seed_base(args)

APPS = {
    "cholesky": {"type": "cholesky", "tiles": 10, "tile_size": 128, "precision": "double"},
    "stencil": {"type": "stencil", "tiles": [4, 4], "tile_size": 256, "iterations": 12},
    "cg": {"type": "cg", "grid": 256, "blocks": 8, "iterations": 8},
}


def base(app):
    return {"name": f"cck-vs-global-{app}", "application": APPS[app],
            "platform": {"nodes": args.nodes, "cores_per_node": 2, "core_gflops": {"default": 2.0},
                         "network": {"topology": "star", "bandwidth": "10Gbps", "latency": "5us"},
                         "storage": {"hosts": 1, "bandwidth": "1GB/s"}}}


def reexecutions(results, failed):
    total = sum(n["reexecutions"] for n in results["nodes"])
    survivors = sum(n["reexecutions"] for i, n in enumerate(results["nodes"]) if i not in failed)
    return total, survivors


failed_runs = 0
with tempfile.TemporaryDirectory(prefix="cck-vs-global-") as work:
    work = Path(work)
    print(f"{'application':<10} {'protocol':<22} {'re-executed':>12} {'by survivors':>13} {'failures':>9}")
    for app in APPS:
        reference = run_ftsim(dict(base(app), protocol={"type": "none"}), work, f"{app}-reference", args.timeout)
        if reference.kind != OK:
            sys.exit(f"{app}: the failure-free run: {reference.describe()}")
        makespan = reference.results["makespan"]
        totals = {name: [0, 0] for name in ("global", "cck", "cck, keep_in_memory")}
        failures = 0
        for seed in range(base_seed, base_seed + args.seeds):
            rng = random.Random(f"{app}-{seed}")
            events = []
            for i in range(rng.randint(1, 3)):
                simultaneous = i > 0 and rng.random() < 1 / 3
                events.append({"time": events[0]["time"] if simultaneous else rng.uniform(0, 1.2 * makespan),
                               "node": rng.randrange(args.nodes)})
            failure_block = {"model": "list", "events": events, "downtime": rng.uniform(0, 0.2 * makespan),
                             "detection": rng.uniform(0, 0.05 * makespan)}
            period = rng.uniform(0.1, 0.3) * makespan
            protocols = {"global": {"type": "global", "period": period, "storage": "stable"},
                         "cck": {"type": "cck", "period": period},
                         "cck, keep_in_memory": {"type": "cck", "period": period, "reexecution": {"keep_in_memory": True}}}
            for name, protocol in protocols.items():
                outcome = run_ftsim(dict(base(app), seed=seed, protocol=protocol, failures=failure_block), work,
                                    f"{app}-{seed}-{protocol['type']}", args.timeout)
                if outcome.kind != OK:
                    failed_runs += 1
                    print(f"  {app} seed {seed} {name}: {outcome.describe()}", file=sys.stderr)
                    continue
                failed = {f["node"] for f in outcome.results["failures"]}
                total, survivors = reexecutions(outcome.results, failed)
                totals[name][0] += total
                totals[name][1] += survivors
                if name == "cck":
                    failures += len(outcome.results["failures"])
        for name, (total, survivors) in totals.items():
            print(f"{app:<10} {name:<22} {total:>12} {survivors:>13} {failures:>9}")
if failed_runs:
    sys.exit(f"{failed_runs} runs did not complete with the oracle holding")
