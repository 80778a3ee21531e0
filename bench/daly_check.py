#!/usr/bin/python3
"""ftsim's estimates of `global` against Daly's complete model over a grid of C / MTBF (issue 42's
acceptance; docs/advise.md#daly). The platform of docs/theory.md (16 nodes, one 4000^2 tile each, a
checkpoint of 16 x 128 MB to a 4 GB/s server: C = 0.578 s, restart D + R = 1.04 s measured there),
global with a checkpoint after each period tau of work, exponential node failures at the per-node
MTBF that gives each C / M (M the platform MTBF):

- for each ratio, 5 periods around Daly's optimum (x 0.5, 0.7, 1, 1.4, 2), each estimated by
  `ftsim estimate` (--long-job where a failure's recovery is short against the MTBF, brute force at
  C / M = 0.1, where failures strike during recoveries);
- the fit of overhead(tau) = a / (tau + C) + b (tau + C) + c, its minimum tau*;
- printed: tau* against Daly's exact optimum (Lambert W), and the expected makespan there against
  Daly's complete model M e^(R/M) (e^((tau+C)/M) - 1) W / tau.

Every ftsim process has a wall timeout; failures are reported apart and make the script exit 1.

  bench/daly_check.py [--ratios 1e-3,1e-2,1e-1] [-n 60] [--brute 20] [-j 2] [--timeout 3600] [--out DIR]
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
C, RESTART, DOWNTIME = 0.578, 1.039, 1.0  # docs/theory.md, measured on this platform


def config(iterations: int, tau: float, node_mtbf: float) -> dict:
    return {"name": "daly-check",
            "application": {"type": "stencil", "tiles": [4, 4], "tile_size": 4000, "iterations": iterations},
            "distribution": {"type": "block-cyclic", "P": 4, "Q": 4},
            "platform": {"nodes": NODES, "cores_per_node": 1, "core_gflops": {"default": 1.0},
                         "network": {"topology": "cluster", "bandwidth": "100Gbps", "latency": "1us"},
                         "storage": {"hosts": 1, "bandwidth": "4GB/s", "latency": "10us"}},
            "failures": {"model": "exponential", "mtbf": node_mtbf, "downtime": DOWNTIME},
            "protocol": {"type": "global", "period": tau, "storage": "stable"}}


def fit_minimum(points):
    """Least squares of y = a/T + b T + c (T = tau + C); returns (tau*, curve)."""
    import numpy as np
    t = np.array([p[0] + C for p in points])
    y = np.array([p[1] for p in points])
    a, b, c = np.linalg.lstsq(np.stack([1 / t, t, np.ones_like(t)], axis=1), y, rcond=None)[0]
    if a <= 0 or b <= 0:
        return None, None
    return math.sqrt(a / b) - C, (lambda tau: a / (tau + C) + b * (tau + C) + c)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ratios", default="1e-3,1e-2,1e-1")
    parser.add_argument("-n", type=int, default=60, help="--long-job: runs with one failure")
    parser.add_argument("--brute", type=int, default=20, help="brute force: runs of the whole job")
    add_estimate_bench_options(parser)
    args = parser.parse_args()
    folder, runs = output_folders(args.out, "ftsim-daly-")
    print(f"seed base {args.seed_base}; C = {C} s, R = {RESTART} s (docs/theory.md); output {folder}")
    print(f"{'C/M':>7} {'M (s)':>8} {'method':>9} {'tau* (s)':>9} {'Daly opt':>9} {'diff':>7} "
          f"{'E[M] at tau* (s)':>17} {'Daly E[M]':>10} {'diff':>7}")
    problems = 0
    for ratio in (float(r) for r in args.ratios.split(",")):
        mu = C / ratio
        optimum = analysis.optimal_period(C, mu)
        # A job of 50 of Daly's periods or more, at least W = 600 s (7500 sweeps of 80 ms).
        iterations = max(7500, int(math.ceil(50 * (optimum + C) / 0.08)))
        method = "brute" if ratio >= 0.05 else "long-job"
        points = []
        none_makespan = None
        try:
            for factor in (0.5, 0.7, 1.0, 1.4, 2.0):
                tau = optimum * factor
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
                overhead = e["overhead"]["mean"] if method == "long-job" else e["estimates"][0]["overhead"]["mean"]
                points.append((tau, overhead))
            best, curve = fit_minimum(points)
            if best is None:
                raise RuntimeError(f"no minimum in the fit of {points}")
            makespan = none_makespan * (1 + curve(best))
            daly = analysis.daly_wall_time(optimum, C, mu, RESTART, none_makespan)
            print(f"{ratio:7.0e} {mu:8.1f} {method:>9} {best:9.3f} {optimum:9.3f} {100 * (best / optimum - 1):6.1f}% "
                  f"{makespan:17.2f} {daly:10.2f} {100 * (makespan / daly - 1):6.1f}%", flush=True)
        except RuntimeError as error:
            print(f"{ratio:7.0e} {error}", flush=True)
            problems += 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
