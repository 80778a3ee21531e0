#!/usr/bin/env python3
"""Failure campaign of the uncoordinated protocol (Guermouche 2011), bigger than the CI's: for each
logging mode (send-deterministic, none, all) and application (cholesky, stencil, cg), seeded runs with
one to three failures (some simultaneous), every schedule (random, periodic, clusters). Each run must
complete with the digest oracle holding; and the first recovery line the protocol computed (its
event log) must equal the line `ftsim analyze` computes offline from the run's checkpoint trace
(send rule for send-deterministic and all, piecewise rule for none) — the agreement check.

usage: bench/uncoordinated_campaign.py [--seeds 100] [--modes ...] [--apps ...] [--seed-base N] [--timeout S]
"""
import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_harness import FTSIM, OK, add_campaign_options, run_ftsim, seed_base  # noqa: E402

APPS = {
    "cholesky": {"type": "cholesky", "tiles": 10, "tile_size": 128, "precision": "double"},
    "stencil": {"type": "stencil", "tiles": [4, 4], "tile_size": 256, "iterations": 12},
    "cg": {"type": "cg", "grid": 256, "blocks": 8, "iterations": 8},
}
# Failure-free makespans of the bases with `none` (the scale of the failure times and periods).
MAKESPAN = {}


def base(app: str) -> dict:
    return {"name": f"unco-{app}", "application": APPS[app],
            "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": {"default": 2.0},
                         "network": {"topology": "star", "bandwidth": "10Gbps", "latency": "5us"},
                         "storage": {"hosts": 1, "bandwidth": "1GB/s"}}}


def scenario(app: str, mode: str, seed: int, makespan: float) -> dict:
    rng = random.Random(f"{app}-{mode}-{seed}")
    config = base(app)
    config["seed"] = seed
    schedule = rng.choice(["random", "periodic", "clusters"])
    block = {"type": "uncoordinated", "logging": mode, "schedule": schedule,
             "period": (0.05 + 0.25 * rng.random()) * makespan}
    if schedule == "clusters":
        block["clusters"] = 2 if rng.random() < 0.5 else [[0, 1], [2, 3]]
    config["protocol"] = block
    count = rng.randint(1, 3)
    events = []
    for i in range(count):
        simultaneous = i > 0 and rng.random() < 1 / 3
        time = events[0]["time"] if simultaneous else rng.random() * 1.2 * makespan
        events.append({"time": time, "node": rng.randrange(4)})
    config["failures"] = {"model": "list", "events": events,
                          "downtime": 0.0 if rng.random() < 0.25 else rng.random() * 0.2 * makespan,
                          "detection": 0.0 if rng.random() < 0.25 else rng.random() * 0.05 * makespan}
    return config


def first_line(log: Path):
    """The first recovery line the protocol computed: (failed nodes, restart checkpoint per node)."""
    for line in log.read_text().splitlines():
        if "recovery line round" not in line:
            continue
        words = line.split("recovery line round", 1)[1].split()
        failed = [int(n) for n in words[2].split(",")] if words[1] == "failed" and words[2] != "checkpoints" else []
        restarts = words[words.index("checkpoints") + 1:]
        return sorted(failed), [None if r == "-" else int(r) for r in restarts]
    return None


def agreement(outcome, mode: str, trace_path: Path, work: Path):
    """None if the protocol's first line equals the offline one; else why not (or 'skip: ...')."""
    trace = json.loads(trace_path.read_text())
    line = first_line(outcome.output / "events.log")
    failed = sorted(trace["metadata"]["failed"])
    if line is None:
        return "skip: no recovery line (no failure before the end)" if not failed else "no recovery line in the log"
    protocol_failed, restarts = line
    if protocol_failed != failed:
        # A later failure came before the first line was computed: that line covers it too.
        return f"skip: the first line covers nodes {protocol_failed}, the trace's first failure {failed}"
    rule = "piecewise" if mode == "none" else "send"
    out = trace_path.with_suffix(".line.json")
    done = subprocess.run([str(FTSIM), "analyze", str(trace_path), "--failed", ",".join(map(str, failed)),
                           "--determinism", rule, "--json", str(out)], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        return f"ftsim analyze failed: {done.stderr[-300:]}"
    offline = json.loads(out.read_text())["recovery_line"]
    if offline != restarts:
        return f"the protocol's line {restarts} differs from the offline line {offline} (failed {failed})"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100, help="seeds per mode and application")
    parser.add_argument("--modes", default="send-deterministic,none,all")
    parser.add_argument("--apps", default="cholesky,stencil,cg")
    add_campaign_options(parser, timeout=120.0)
    args = parser.parse_args()
    first = seed_base(args)
    work = Path(tempfile.mkdtemp(prefix="ftsim-unco-campaign-"))
    bad = 0
    for app in args.apps.split(","):
        reference = run_ftsim(dict(base(app), protocol={"type": "none"}), work, f"{app}-reference", timeout=args.timeout)
        if reference.kind != OK:
            print(f"{app}: failure-free reference: {reference.describe()}")
            return 1
        makespan = reference.results["makespan"]
        for mode in args.modes.split(","):
            counts = {"ok": 0, "agree": 0, "skip": 0, "bad": 0}
            for seed in range(first, first + args.seeds):
                config = scenario(app, mode, seed, makespan)
                tag = f"{app}-{mode}-{seed}"
                trace = work / f"{tag}-trace.json"
                outcome = run_ftsim(config, work, tag, timeout=args.timeout,
                                    args=["--log", "protocol", "--checkpoint-trace", str(trace)])
                if outcome.kind != OK:
                    counts["bad"] += 1
                    print(f"  {tag}: {outcome.describe()}\n    config: {json.dumps(config)}", flush=True)
                    continue
                counts["ok"] += 1
                why = agreement(outcome, mode, trace, work)
                if why is None:
                    counts["agree"] += 1
                elif why.startswith("skip"):
                    counts["skip"] += 1
                else:
                    counts["bad"] += 1
                    print(f"  {tag}: agreement: {why}\n    config: {json.dumps(config)}", flush=True)
            bad += counts["bad"]
            print(f"{app} {mode}: {args.seeds} runs, {counts['ok']} complete with the oracle, "
                  f"{counts['agree']} lines equal to ftsim analyze's, {counts['skip']} not comparable, {counts['bad']} bad", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
