#!/usr/bin/env python3
"""Shrink campaign: recovery without spares (/platform/on_no_spare: "shrink", docs/shrink.md).

For each protocol (global, cck, buddy, lineage, uncoordinated, none) and application (Cholesky, stencil, CG), --runs
seeded scenarios (default 50) on 4 nodes of 2 cores with more failures than spares: 0 or 1 spare,
one to three failures more (at most 3, on distinct nodes, so one machine survives), at random times
in the first 80% of the failure-free makespan, random detection and downtime, the protocol's
options drawn at random (period or graph cuts, stable or buddy storage for global; 2 to 4
checkpoints). Every run is classified (bench/run_harness.py: a fresh output per run, a wall
timeout, the exit code checked):
- shrunk: complete, the digest oracle holding, the run ended on fewer machines, and results.json's
  "shrink" object has one redistribution per rank re-hosted (bytes, seconds until recovered);
- complete: complete with the oracle holding, but the failures did not outnumber the spares by the
  end (a failure scheduled after the run ended);
- unrecoverable: exit 1 where the protocol documents it (a node and its buddy lost together: global
  with buddy storage, buddy);
- hang, crash, wrong (a wrong result, a stall, a missing or inconsistent "shrink" report, an
  unexpected ending), bad input.
Prints the counts per case, the redistribution bytes and seconds and the makespan against the
failure-free run, and each run that is not shrunk/complete/unrecoverable with its seed and config;
exits 1 on any hang, crash, wrong result or bad input.

With --ranks-per-machine K (over-decomposition, default 1) the same 4 machines run 4K ranks
(/platform/ranks_per_machine): a failure names one of a machine's ranks and takes all K, a spare
machine takes them together, and a shrink must spread them: at the first shrink the K ranks land
on K different survivors (else "wrong").

usage: bench/shrink_campaign.py [--runs 50] [--protocols global,cck,buddy,lineage,uncoordinated,none]
       [--apps cholesky,stencil,cg] [--ranks-per-machine K] [--seed-base N] [--timeout S] [--build build]
       [--json OUT]
"""
import argparse
import collections
import json
import random
import statistics
import sys
import tempfile
from pathlib import Path

from run_harness import BAD_INPUT, CRASH, HANG, OK, ROOT, add_campaign_options, checked, run_ftsim, seed_base

APPS = {  # the CI campaign's applications (tests/campaign/campaign_support.hpp)
    "cholesky": {"type": "cholesky", "tiles": 10, "tile_size": 128, "precision": "double"},
    "stencil": {"type": "stencil", "tiles": [4, 4], "tile_size": 256, "iterations": 12},
    "cg": {"type": "cg", "grid": 256, "blocks": 8, "iterations": 8},
}
KINDS = ("shrunk", "complete", "unrecoverable", "hang", "crash", "wrong", "bad input")
NODES = 4  # machines


def base_config(app, k=1):
    config = {"name": f"shrink-{app}", "application": APPS[app],
              "platform": {"nodes": NODES * k, "cores_per_node": 2, "core_gflops": {"default": 2.0},
                           "network": {"topology": "star", "bandwidth": "10Gbps", "latency": "5us"},
                           "storage": {"hosts": 1, "bandwidth": "1GB/s"}},
              "checkpoints": {"count": 3, "buddy": "next"}}
    if k > 1:
        config["platform"]["ranks_per_machine"] = k
    return config


def protocol_draw(rng, protocol, makespan, k=1):
    """The protocol block (and checkpoints) of one seed, and whether it may end unrecoverable."""
    if protocol == "global":
        buddy = rng.random() < 0.5
        block = {"type": "global", "storage": "buddy" if buddy else "stable"}
        if rng.random() < 0.5:
            block["period"] = (0.1 + 0.4 * rng.random()) * makespan
        else:
            block["at"] = "cuts"
        return block, None, buddy
    if protocol == "cck":  # as its module's campaign draws it (protocols/cck/module.cpp)
        block = {"type": "cck", "flush": "all" if rng.random() < 0.25 else "neighbours",
                 "reexecution": {"keep_in_memory": rng.random() < 0.5, "reorder": rng.random() < 0.5}}
        if rng.random() < 2 / 3:
            block["period"] = (0.03 + 0.2 * rng.random()) * makespan
            return block, None, False
        block["at"] = "cuts"
        return block, {"count": rng.randint(2, 4), "buddy": "next"}, False
    if protocol == "buddy":
        return {"type": "buddy"}, {"count": rng.randint(2, 4), "buddy": "next"}, True
    if protocol == "uncoordinated":  # as its module's campaign draws it (protocols/uncoordinated/module.cpp)
        block = {"type": "uncoordinated", "logging": rng.choice(["send-deterministic", "none", "all"]),
                 "period": (0.05 + 0.25 * rng.random()) * makespan}
        schedule = rng.choice(["random", "periodic", "clusters"])
        block["schedule"] = schedule
        if schedule == "clusters":
            block["clusters"] = 2 if rng.random() < 0.5 else [list(range(2 * k)), list(range(2 * k, 4 * k))]
        return block, None, False
    return {"type": protocol}, None, False  # lineage, none


def scenario(rng, protocol, app, makespan, k=1):
    spares = rng.randrange(2)
    failures = min(3, spares + 1 + rng.randrange(3))
    machines = rng.sample(range(NODES), failures)
    # One of machine m's ranks m*k .. m*k+k-1 (k = 1: the machine's rank, the draws of before).
    nodes = [m * k + rng.randrange(k) if k > 1 else m for m in machines]
    events = [{"node": n, "time": (0.05 + 0.75 * rng.random()) * makespan} for n in nodes]
    block, checkpoints, may_fail = protocol_draw(rng, protocol, makespan, k)
    config = base_config(app, k)
    config["platform"].update({"spares": spares, "on_no_spare": "shrink"})
    config["failures"] = {"model": "list", "events": events,
                          "downtime": 0.0 if rng.random() < 0.25 else rng.uniform(0, 0.1 * makespan),
                          "detection": 0.0 if rng.random() < 0.25 else rng.uniform(0, 0.05 * makespan)}
    config["protocol"] = block
    if checkpoints:
        config["checkpoints"] = checkpoints
    return config, spares, may_fail


def classify(outcome, spares, may_fail, k=1):
    if outcome.kind in (HANG, CRASH, BAD_INPUT):
        return outcome.kind, outcome.describe()
    r = outcome.results
    if not r["complete"]:
        reason = r["failure_reason"] or ""
        if may_fail and "unrecoverable" in reason:
            return "unrecoverable", reason
        return "wrong", reason + (f"; stall: {r['stall_report'][:3]}" if r.get("stall_report") else "")
    if outcome.kind != OK or not r["oracle"]["ok"]:
        return "wrong", f"oracle {r['oracle']}"
    shrink = r.get("shrink")
    if shrink is None:
        return "wrong", "no \"shrink\" object in results.json"
    # Each failure record is a rank that died; the ranks of one machine die at the same instant (the
    # scenario's failures are at distinct random times). The ranks of the first `spares` machines to
    # fail took a spare machine (one per failed machine).
    deaths = len(r["failures"])
    by_time = collections.Counter(f["time"] for f in r["failures"])
    machines_failed = len(by_time)
    spares_used = min(spares, machines_failed)
    rehosted = deaths - sum(by_time[t] for t in sorted(by_time)[:spares_used])
    if len(shrink["redistributions"]) != rehosted or shrink["nodes_at_end"] != NODES - machines_failed + spares_used:
        return "wrong", f"{deaths} ranks died on {machines_failed} machines, {spares} spares, but shrink says {shrink}"
    # Each rank's last redistribution is recovered (an earlier one may end with its machine failing).
    last = {d["node"]: d for d in shrink["redistributions"]}
    if any(d["recovered_at"] is None for d in last.values()):
        return "wrong", f"a redistribution never recovered: {shrink}"
    # Spread: at the first shrink every machine up runs k ranks and 3 are up, unless another machine
    # failed while this one's ranks were down: the failed machine's k ranks (re-hosted at one
    # instant) go to k different machines.
    if shrink["redistributions"]:
        first = shrink["redistributions"][0]
        group = [d for d in shrink["redistributions"]
                 if d["time"] == first["time"] and d.get("from_machine") == first.get("from_machine")]
        failed_at = max(f["time"] for f in r["failures"] if f["node"] == first["node"] and f["time"] <= first["time"])
        overlapped = any(failed_at < f["time"] <= first["time"] for f in r["failures"])
        if len(group) != k or (not overlapped and len({d.get("machine") for d in group}) != k):
            return "wrong", f"the first shrink did not spread {k} ranks over {k} machines: {group}"
    return ("shrunk" if rehosted > 0 else "complete"), ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--runs", type=int, default=50, help="scenarios per protocol and application")
    parser.add_argument("--protocols", default="global,cck,buddy,lineage,uncoordinated,none")
    parser.add_argument("--apps", default="cholesky,stencil,cg")
    parser.add_argument("--ranks-per-machine", type=int, default=1,
                        help="ranks per machine (/platform/ranks_per_machine) on the 4 machines")
    parser.add_argument("--json", default=None, help="write the per-case summary to this file")
    add_campaign_options(parser, timeout=60)
    args = parser.parse_args()
    binary = Path(args.build) / "ftsim"
    base = seed_base(args)
    bad = 0
    summary = []
    with tempfile.TemporaryDirectory(prefix="ftsim-shrink-") as tmp:
        work = Path(tmp)
        for app in args.apps.split(","):
            k = args.ranks_per_machine
            reference = checked(run_ftsim(base_config(app, k), work, f"ref-{app}", timeout=args.timeout, binary=binary),
                                f"failure-free {app}")
            makespan = reference["makespan"]
            for protocol in args.protocols.split(","):
                counts = collections.Counter()
                moved, seconds, slowdown, machines_end = [], [], [], []
                for i in range(args.runs):
                    seed = base + i
                    rng = random.Random(f"{seed}/{protocol}/{app}" + (f"/k{k}" if k > 1 else ""))
                    config, spares, may_fail = scenario(rng, protocol, app, makespan, k)
                    config["seed"] = seed
                    outcome = run_ftsim(config, work, f"{protocol}-{app}-{seed}", timeout=args.timeout, binary=binary)
                    kind, detail = classify(outcome, spares, may_fail, k)
                    counts[kind] += 1
                    if kind == "shrunk":
                        shrink = outcome.results["shrink"]
                        moved.append(shrink["redistribution_bytes"])
                        seconds.append(shrink["redistribution_seconds"])
                        slowdown.append(outcome.results["makespan"] / makespan)
                        machines_end.append(shrink["nodes_at_end"])
                    if kind not in ("shrunk", "complete", "unrecoverable"):
                        bad += 1
                        print(f"  {kind}: {protocol} {app} seed {seed}: {detail[:400]}\n    config: "
                              f"{json.dumps(config)}", flush=True)
                mean = lambda xs: statistics.fmean(xs) if xs else float("nan")
                row = {"protocol": protocol, "app": app, "ranks_per_machine": k, "runs": args.runs,
                       **{kind: counts[kind] for kind in KINDS},
                       "mean_nodes_at_end": mean(machines_end), "mean_redistribution_bytes": mean(moved),
                       "mean_redistribution_seconds": mean(seconds), "mean_makespan_ratio": mean(slowdown)}
                summary.append(row)
                print(f"{protocol:8s} {app:9s} " + " ".join(f"{kind} {counts[kind]}" for kind in KINDS if counts[kind]) +
                      f" | nodes at end {row['mean_nodes_at_end']:.2f}, moved {row['mean_redistribution_bytes'] / 1e6:.2f} MB"
                      f" in {row['mean_redistribution_seconds']:.4f} s, makespan x{row['mean_makespan_ratio']:.2f}"
                      f" of failure-free", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"seed_base": base, "cases": summary}, indent=2))
    print(f"seed base {base}: {bad} runs hung, crashed, gave a wrong result or bad input")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
