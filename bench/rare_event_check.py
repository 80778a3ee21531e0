#!/usr/bin/python3
"""The rare-event estimator against brute-force Monte Carlo (issue 42's acceptance; docs/advise.md).

For each application example (stencil-small, cg-small, cholesky-small) and protocol (global, lineage,
buddy, cck, uncoordinated), exponential failures at the per-node MTBF that makes a failure before the
failure-free end happen with probability --p (0.01 by default: brute force then needs thousands of runs
to see a few dozen failures), `ftsim estimate --method both -n SAMPLES`: the same number of simulations
for the conditioned estimator and for brute force. Printed per case: both expected overheads of the failures
(E[makespan] - T0) / T_none with their 90% intervals, whether the intervals overlap, the difference in standard errors, and the ratio of the
interval widths (brute / conditioned).

Every estimate is one `ftsim estimate` process with a wall timeout (--timeout); a timeout, a crash or a
sample with a wrong result is reported apart and makes the script exit 1. Seeds: --seed-base + 1 ... +
SAMPLES (printed).

  bench/rare_event_check.py [--samples 2000] [--p 0.01] [--apps stencil-small,...] [--protocols global,...]
                            [-j 2] [--timeout 3600] [--out DIR]
"""
import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_harness import FTSIM, OK, ROOT, add_estimate_bench_options, output_folders, run_command  # noqa: E402

APPS = ["stencil-small", "cg-small", "cholesky-small"]
PROTOCOLS = {
    "global": ({"type": "global", "at": "cuts", "storage": "buddy"}, {"count": 4, "buddy": "next"}),
    "lineage": ({"type": "lineage"}, None),
    "buddy": ({"type": "buddy"}, {"count": 4, "buddy": "next"}),
    "cck": ({"type": "cck", "at": "cuts"}, {"count": 4}),
    "uncoordinated": ({"type": "uncoordinated", "logging": "send-deterministic", "schedule": "clusters", "clusters": 2}, None),
}


def case_config(app: str, protocol: str, folder: Path) -> Path:
    config = json.loads((ROOT / "configs" / "examples" / f"{app}.json").read_text())
    config.pop("$schema", None)
    block, checkpoints = PROTOCOLS[protocol]
    config["protocol"] = dict(block)
    config.pop("checkpoints", None)
    if checkpoints:
        config["checkpoints"] = checkpoints
    if protocol in ("cck", "uncoordinated"):  # their checkpoints go to stable storage
        config["platform"]["storage"] = {"hosts": 1, "bandwidth": "10GB/s"}
    config["name"] = f"rare-{app}-{protocol}"
    path = folder / f"{app}-{protocol}.json"
    path.write_text(json.dumps(config, indent=1))
    return path


def failure_free_makespan(config: Path, folder: Path, runs: Path, timeout: float, *sets: str) -> float:
    out = folder / (config.stem + "-free" + str(len(sets)))
    extra = [a for s in sets for a in ("--set", s)]
    outcome = run_command([FTSIM, "run", config, "-o", out, "--set", 'failures={"model": "none"}', *extra], runs, "free",
                          timeout)
    if outcome.kind != OK:
        raise RuntimeError(f"{config.stem}: failure-free run: {outcome.describe()}")
    return json.loads((out / "results.json").read_text())["makespan"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--p", type=float, default=0.01, help="P(a failure before the failure-free end)")
    parser.add_argument("--apps", default=",".join(APPS))
    parser.add_argument("--protocols", default=",".join(PROTOCOLS))
    add_estimate_bench_options(parser)
    args = parser.parse_args()
    folder, runs = output_folders(args.out, "ftsim-rare-")
    print(f"seed base {args.seed_base}, {args.samples} samples per method, p = {args.p}, output {folder}")
    print(f"{'case':30} {'conditioned: failures [90%]':>34} {'brute force: failures [90%]':>34} {'overlap':>7} "
          f"{'z':>6} {'width ratio':>11}")
    problems = 0
    for app in args.apps.split(","):
        for protocol in args.protocols.split(","):
            name = f"{app}/{protocol}"
            try:
                config = case_config(app, protocol, folder)
                if protocol == "uncoordinated":
                    # A checkpoint of each cluster every quarter of the application's failure-free run.
                    none = failure_free_makespan(config, folder, runs, args.timeout, 'protocol={"type": "none"}')
                    config_doc = json.loads(config.read_text())
                    config_doc["protocol"]["period"] = none / 4
                    config.write_text(json.dumps(config_doc, indent=1))
                t0 = failure_free_makespan(config, folder, runs, args.timeout)
                nodes = json.loads(config.read_text())["platform"]["nodes"]
                mtbf = -nodes * t0 / math.log(1 - args.p)
                failures = {"model": "exponential", "mtbf": mtbf, "downtime": t0 / 20}
                out = folder / f"{app}-{protocol}-estimate"
                command = [str(FTSIM), "estimate", str(config), "--method", "both", "-n", str(args.samples), "-j",
                           str(args.jobs), "--seed-base", str(args.seed_base), "-o", str(out), "--set",
                           "failures=" + json.dumps(failures)]
                outcome = run_command(command, runs, "estimate", args.timeout)
                if outcome.kind != OK:
                    print(f"{name:30} {outcome.describe()}")
                    problems += 1
                    continue
                result = json.loads((out / "estimate.json").read_text())
                by = {e["method"]: e for e in result["estimates"]}
                c, b = by["conditioned"]["overhead_failures"], by["brute"]["overhead_failures"]
                overlap = c["low"] <= b["high"] and b["low"] <= c["high"]
                z = (c["mean"] - b["mean"]) / max(1e-300, math.hypot(c["std_error"], b["std_error"]))
                width_c, width_b = c["high"] - c["low"], b["high"] - b["low"]
                ratio = width_b / width_c if width_c > 0 else float("inf")
                print(f"{name:30} {100 * c['mean']:>9.4f}% [{100 * c['low']:8.4f}, {100 * c['high']:8.4f}] "
                      f"{100 * b['mean']:>9.4f}% [{100 * b['low']:8.4f}, {100 * b['high']:8.4f}] {str(overlap):>7} "
                      f"{z:6.2f} {ratio:11.1f}", flush=True)
            except RuntimeError as error:
                print(f"{name:30} {error}")
                problems += 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
