#!/usr/bin/python3
"""The long-job estimate against full simulation (issue 42's acceptance; docs/advise.md#long-jobs).

For a stencil and a CG job of 50 checkpoint periods or more, and each periodic protocol (global to
stable storage, buddy, cck, uncoordinated), exponential failures at a per-node MTBF that gives about
--failures failures per job: `ftsim estimate --long-job` (failure costs measured on a short job of 6
periods, -n runs) against `ftsim estimate --method brute` (the whole job simulated with failures drawn
from the model, --full runs). Printed: both expected makespans with their 90% intervals, the relative
difference, whether it is within 5%, and the wall time of each.

Each estimate is one process with a wall timeout (--timeout); a timeout, a crash or a wrong result is
reported apart and makes the script exit 1. Seeds: --seed-base + 1 ... (printed).

  bench/long_job_check.py [--apps stencil,cg] [--protocols global,buddy,cck,uncoordinated] [-n 100] [--full 300]
                          [--failures 2] [-j 2] [--timeout 3600] [--out DIR]
"""
import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_harness import FTSIM, OK, add_estimate_bench_options, output_folders, run_command  # noqa: E402

APPS = {
    # 200 sweeps, a checkpoint every 4: 50 periods.
    "stencil": ({"type": "stencil", "tiles": [8, 8], "tile_size": 256, "iterations": 200}, 4),
    # 150 iterations, a checkpoint every 3: 50 periods.
    "cg": ({"type": "cg", "grid": 256, "blocks": 8, "iterations": 150}, 3),
}
PROTOCOLS = {
    "global": {"type": "global", "at": "cuts", "storage": "stable"},
    "buddy": {"type": "buddy"},
    "cck": {"type": "cck", "at": "cuts"},
    "uncoordinated": {"type": "uncoordinated", "logging": "send-deterministic", "schedule": "clusters", "clusters": 2},
    # The same on links 10x faster: a save (0.3 ms) shorter than the period, where the saturated
    # schedule of the default links (saves of 2-12 ms every 0.8-2 ms) is flagged by the estimate.
    "uncoordinated-unsaturated": {"type": "uncoordinated", "logging": "send-deterministic", "schedule": "clusters",
                                  "clusters": 2},
}


def config(app: str, protocol: str) -> dict:
    application, every = APPS[app]
    c = {"name": f"long-{app}-{protocol}", "application": application,
         "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": 5, "storage": {"hosts": 1, "bandwidth": "50GB/s"}},
         "checkpoints": {"every": every, "buddy": "next"},
         "failures": {"model": "exponential", "mtbf": "1s", "downtime": "1ms"},
         "protocol": dict(PROTOCOLS[protocol])}
    if protocol.endswith("-unsaturated"):
        c["platform"]["network"] = {"bandwidth": "1000Gbps"}
    return c


def run_json(command, runs: Path, tag: str, out: Path, timeout: float):
    start = time.monotonic()
    outcome = run_command(command, runs, tag, timeout)
    if outcome.kind != OK:
        raise RuntimeError(outcome.describe())
    return json.loads((out / "estimate.json").read_text()), time.monotonic() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--apps", default=",".join(APPS))
    parser.add_argument("--protocols", default=",".join(PROTOCOLS))
    parser.add_argument("-n", type=int, default=100, help="runs with one failure (long-job)")
    parser.add_argument("--full", type=int, default=300, help="full simulations (brute force)")
    parser.add_argument("--failures", type=float, default=2.0, help="expected failures per job")
    add_estimate_bench_options(parser)
    args = parser.parse_args()
    folder, runs = output_folders(args.out, "ftsim-long-job-")
    print(f"seed base {args.seed_base}; long-job {args.n} runs with one failure, full simulation {args.full} runs; output {folder}")
    print(f"{'case':24} {'T0':>9} {'failures':>8} {'long-job E[M] [90%]':>30} {'full simulation E[M] [90%]':>30} "
          f"{'diff':>7} {'<5%':>5} {'wall long/full':>15}")
    problems = 0
    for app in args.apps.split(","):
        for protocol in args.protocols.split(","):
            name = f"{app}/{protocol}"
            try:
                c = config(app, protocol)
                path = folder / f"{app}-{protocol}.json"
                if protocol.startswith("uncoordinated"):
                    c["protocol"]["period"] = 1.0  # replaced below by a 50th of the failure-free run
                path.write_text(json.dumps(c, indent=1))
                free = folder / f"{app}-{protocol}-free"
                outcome = run_command([FTSIM, "run", path, "-o", free, "--set", 'failures={"model": "none"}', "--set",
                                       'protocol={"type": "none"}'], runs, "none", args.timeout)
                if outcome.kind != OK:
                    raise RuntimeError(outcome.describe())
                none = json.loads((free / "results.json").read_text())["makespan"]
                if protocol.startswith("uncoordinated"):
                    c["protocol"]["period"] = none / 50  # 50 periods of work
                    path.write_text(json.dumps(c, indent=1))
                # The MTBF: about --failures failures over the job (its failure-free makespan under the protocol).
                outcome = run_command([FTSIM, "run", path, "-o", free, "--set", 'failures={"model": "none"}'], runs, "free",
                                      args.timeout)
                if outcome.kind != OK:
                    raise RuntimeError(outcome.describe())
                t0 = json.loads((free / "results.json").read_text())["makespan"]
                mtbf = c["platform"]["nodes"] * t0 / args.failures
                mtbf_set = ["--set", f"failures.mtbf={mtbf!r}"]
                long_out, full_out = folder / f"{app}-{protocol}-long", folder / f"{app}-{protocol}-full"
                long_job, long_wall = run_json([FTSIM, "estimate", path, "--long-job", "-n", args.n, "-j", args.jobs, "--seed-base",
                                                args.seed_base, "-o", long_out, *mtbf_set], runs, "long", long_out, args.timeout)
                full, full_wall = run_json([FTSIM, "estimate", path, "--method", "brute", "-n", args.full, "-j", args.jobs,
                                            "--seed-base", args.seed_base, "-o", full_out, *mtbf_set], runs, "full", full_out,
                                           args.timeout)
                if full["runs"]["wrong"] or full["runs"]["errors"]:
                    raise RuntimeError(f"full simulation: {full['runs']}")
                m = long_job["makespan"]
                f = full["estimates"][0]["makespan"]
                diff = m["mean"] / f["mean"] - 1
                note = f" ({full['runs']['incomplete']} full runs incomplete)" if full["runs"]["incomplete"] else ""
                flags = "; ".join(long_job["flags"])
                print(f"{name:24} {t0:9.4f} {long_job['expected_failures']:8.2f} {m['mean']:9.4f} [{m['low']:8.4f}, {m['high']:8.4f}] "
                      f"{f['mean']:9.4f} [{f['low']:8.4f}, {f['high']:8.4f}] {100 * diff:6.2f}% {str(abs(diff) <= 0.05):>5} "
                      f"{long_wall:6.0f}/{full_wall:<6.0f}s{note}{'  ' + flags if flags else ''}", flush=True)
            except RuntimeError as error:
                print(f"{name:24} {error}", flush=True)
                problems += 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
