#!/usr/bin/python3
"""ftsim's estimates of `global` against Daly's complete model over a grid of C / MTBF (issue 42's
acceptance; docs/advise.md#daly). The platform of docs/theory.md (16 nodes, one 4000^2 tile each, a
checkpoint of 16 x 128 MB to a 4 GB/s server), global with a checkpoint after each period tau of
work, exponential node failures at the per-node MTBF that gives each C / M (M the platform MTBF).
Daly's C and R are the simulation's own, measured in the same runs: C the time a checkpoint adds to
the failure-free job, (T0 - none's makespan) / checkpoints (0.528 s: the flush overlaps the tasks
still running, so less than the 0.578 s a checkpoint lasts), R a failure's cost beyond the progress
it lost (1.033 s: downtime 1 s, reading the checkpoint back).

- for each ratio, 5 periods around Daly's optimum (x 0.5, 0.7, 1, 1.4, 2), each estimated by
  `ftsim estimate --long-job` (global rolls back to its last commit: the regenerative estimate,
  docs/advise.md#regenerative-estimate), or by brute force at the ratios of --brute-at;
- the fit of overhead(tau) = a / (tau + C) + b (tau + C) + c, its minimum tau*;
- printed: the measured C and R, tau* against Daly's exact optimum for that C (Lambert W), and the
  expected makespan there against Daly's complete model M e^(R/M) (e^((tau+C)/M) - 1) W / tau.

With --advise, each ratio is one `ftsim advise CONFIG --protocols global` instead (its candidates a
checkpoint every K iterations of 80 ms, refined at the fitted minimum): printed are its recommended
period against Daly's optimum for the C measured in the recommended candidate's own runs, and its
estimated makespan against Daly's model there.

Every ftsim process has a wall timeout; failures are reported apart and make the script exit 1.

  bench/daly_check.py [--advise] [--ratios 1e-4,1e-3,1e-2,1e-1] [-n 40] [--brute 20] [--brute-at 1e-1] [-j 2] [--timeout 3600] [--out DIR]
"""
import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_harness import FTSIM, OK, ROOT, add_estimate_bench_options, output_folders, run_command  # noqa: E402

sys.path[0:0] = [str(FTSIM.parent / "python"), str(ROOT / "build" / "python")]  # the package built beside ftsim
from ftsim import analysis  # noqa: E402

NODES = 16
C, DOWNTIME = 0.528, 1.0  # C as measured below, to place the grid


def config(iterations: int, tau: float, node_mtbf: float) -> dict:
    return {"name": "daly-check",
            "application": {"type": "stencil", "tiles": [4, 4], "tile_size": 4000, "iterations": iterations},
            "distribution": {"type": "block-cyclic", "P": 4, "Q": 4},
            "platform": {"nodes": NODES, "cores_per_node": 1, "core_gflops": {"default": 1.0},
                         "network": {"topology": "cluster", "bandwidth": "100Gbps", "latency": "1us"},
                         "storage": {"hosts": 1, "bandwidth": "4GB/s", "latency": "10us"}},
            "failures": {"model": "exponential", "mtbf": node_mtbf, "downtime": DOWNTIME},
            "protocol": {"type": "global", "period": tau, "storage": "stable"}}


def fit_minimum(points, checkpoint):
    """Least squares of y = a/T + b T + c (T = tau + C); returns (tau*, curve)."""
    import numpy as np
    t = np.array([p[0] + checkpoint for p in points])
    y = np.array([p[1] for p in points])
    a, b, c = np.linalg.lstsq(np.stack([1 / t, t, np.ones_like(t)], axis=1), y, rcond=None)[0]
    if a <= 0 or b <= 0:
        return None, None
    return math.sqrt(a / b) - checkpoint, (lambda tau: a / (tau + checkpoint) + b * (tau + checkpoint) + c)


def advise_check(args, folder: Path, runs: Path) -> int:
    print(f"seed base {args.seed_base}; output {folder}; ftsim advise --protocols global -n {args.n} at each ratio")
    print(f"{'C/M':>7} {'M (s)':>8} {'C (s)':>6} {'R (s)':>6} {'every':>6} {'period (s)':>10} {'Daly opt':>9} {'diff':>7} "
          f"{'E[M] (s)':>9} {'Daly E[M]':>10} {'diff':>7} {'wall (s)':>8}")
    problems = 0
    for ratio in (float(r) for r in args.ratios.split(",")):
        mu = C / ratio
        guess = analysis.optimal_period(C, mu)
        iterations = max(7500, int(math.ceil(50 * (guess + C) / 0.08)))
        path = folder / f"advise-r{ratio:g}.json"
        path.write_text(json.dumps(config(iterations, guess, mu * NODES), indent=1))
        out = folder / f"advise-r{ratio:g}"
        command = [FTSIM, "advise", path, "--protocols", "global", "-n", args.n, "-j", args.jobs, "--seed-base", args.seed_base,
                   "-o", out, "--json", out / "advice.json"]
        out.mkdir(parents=True, exist_ok=True)
        outcome = run_command(command, runs, f"advise-r{ratio:g}", args.timeout)
        if outcome.kind != OK:
            print(f"{ratio:7.0e} {outcome.describe()}", flush=True)
            problems += 1
            continue
        advice = json.loads((out / "advice.json").read_text())
        protocol = advice["protocols"][0]
        every = protocol["recommended"]
        chosen = next(c for c in protocol["candidates"] if c["every"] == every)
        e = json.loads((out / "global" / f"every-{every}" / "estimate" / "estimate.json").read_text())
        none_makespan = e["reference_makespan"]
        checkpoint = (e["failure_free_makespan"] - none_makespan) / e["failure_free_checkpoints"]
        if not e.get("restart"):
            print(f"{ratio:7.0e} the recommended candidate was not estimated by the regenerative model ({chosen['method']})")
            problems += 1
            continue
        restart = e["restart"]["mean"]
        optimum = analysis.optimal_period(checkpoint, mu)
        makespan = none_makespan * (1 + chosen["overhead"]["mean"])
        daly = analysis.daly_wall_time(optimum, checkpoint, mu, restart, none_makespan)
        print(f"{checkpoint / mu:7.1e} {mu:8.1f} {checkpoint:6.3f} {restart:6.3f} {every:6d} {chosen['period']:10.3f} {optimum:9.3f} "
              f"{100 * (chosen['period'] / optimum - 1):6.2f}% {makespan:9.2f} {daly:10.2f} {100 * (makespan / daly - 1):6.2f}% "
              f"{advice['wall_seconds']:8.0f}", flush=True)
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ratios", default="1e-4,1e-3,1e-2,1e-1")
    parser.add_argument("-n", type=int, default=40, help="--long-job: runs with one failure")
    parser.add_argument("--brute", type=int, default=20, help="brute force: runs of the whole job")
    parser.add_argument("--brute-at", default="", help="ratios estimated by brute force instead (comma-separated)")
    parser.add_argument("--advise", action="store_true", help="ask `ftsim advise` at each ratio")
    add_estimate_bench_options(parser)
    args = parser.parse_args()
    folder, runs = output_folders(args.out, "ftsim-daly-")
    if args.advise:
        return advise_check(args, folder, runs)
    print(f"seed base {args.seed_base}; output {folder}")
    print(f"{'C/M':>7} {'M (s)':>8} {'method':>9} {'C (s)':>6} {'R (s)':>6} {'tau* (s)':>9} {'Daly opt':>9} {'diff':>7} "
          f"{'E[M] at tau* (s)':>17} {'Daly E[M]':>10} {'diff':>7}")
    problems = 0
    restart = None  # R as measured by the last long-job estimate (brute force does not measure it)
    for ratio in (float(r) for r in args.ratios.split(",")):
        mu = C / ratio
        guess = analysis.optimal_period(C, mu)
        # A job of 50 of Daly's periods or more, at least W = 600 s (7500 sweeps of 80 ms).
        iterations = max(7500, int(math.ceil(50 * (guess + C) / 0.08)))
        method = "brute" if any(math.isclose(ratio, float(r)) for r in args.brute_at.split(",") if r) else "long-job"
        points, checkpoint_costs, restarts = [], [], []
        none_makespan = None
        try:
            for factor in (0.5, 0.7, 1.0, 1.4, 2.0):
                tau = guess * factor
                path = folder / f"r{ratio:g}-tau{tau:.4g}.json"
                path.write_text(json.dumps(config(iterations, tau, mu * NODES), indent=1))
                out = folder / f"r{ratio:g}-tau{tau:.4g}"
                command = [FTSIM, "estimate", path, "-j", args.jobs, "--seed-base", args.seed_base, "-o", out]
                command += ["--long-job", "-n", args.n] if method == "long-job" else ["--method", "brute", "-n", args.brute]
                outcome = run_command(command, runs, f"r{ratio:g}", args.timeout)
                if outcome.kind != OK:
                    raise RuntimeError(outcome.describe())
                e = json.loads((out / "estimate.json").read_text())
                none_makespan = e["reference_makespan"]
                checkpoint_costs.append((e["failure_free_makespan"] - none_makespan) / e["failure_free_checkpoints"])
                if e.get("restart"):
                    restarts.append(e["restart"]["mean"])
                overhead = e["overhead"]["mean"] if method == "long-job" else e["estimates"][0]["overhead"]["mean"]
                points.append((tau, overhead))
            checkpoint = sum(checkpoint_costs) / len(checkpoint_costs)
            if restarts:
                restart = sum(restarts) / len(restarts)
            if restart is None:
                raise RuntimeError("no restart measured yet: list a long-job ratio before a brute-force one")
            optimum = analysis.optimal_period(checkpoint, mu)
            best, curve = fit_minimum(points, checkpoint)
            if best is None:
                raise RuntimeError(f"no minimum in the fit of {points}")
            makespan = none_makespan * (1 + curve(best))
            daly = analysis.daly_wall_time(optimum, checkpoint, mu, restart, none_makespan)
            print(f"{checkpoint / mu:7.1e} {mu:8.1f} {method:>9} {checkpoint:6.3f} {restart:6.3f} {best:9.3f} {optimum:9.3f} "
                  f"{100 * (best / optimum - 1):6.2f}% {makespan:17.2f} {daly:10.2f} {100 * (makespan / daly - 1):6.2f}%", flush=True)
        except RuntimeError as error:
            print(f"{ratio:7.0e} {error}", flush=True)
            problems += 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
