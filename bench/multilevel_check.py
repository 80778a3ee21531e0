#!/usr/bin/env python3
"""Two checkpoint levels in the simulation against the first-order multi-level model (Benoit et al., IEEE TC
2017; docs/multilevel.md), issue 44's first check.

`global` with two levels (every checkpoint in the buddy's memory, every n-th also on stable storage) on a
4-node SPMD ring (1 GiB of state per node, 10 Gb/s links, one storage server at 1 GB/s; iterations of
about a fifteenth of the model's level-1 spacing, so that a long run stays a few million tasks),
racks of 2 nodes with buddy n + 1: a "node" failure is repaired from the buddy (level 1), a "group"
failure takes a node with its buddy and needs stable storage (level 2). Exponential failures of per-node
mean --mtbf, a share --group of them group failures.

1. The costs, measured as what the model means by them, the time a checkpoint adds to the run: C1 from
   a failure-free run with level-1 checkpoints only, C1 + C2 from one with level-2 checkpoints only
   (makespan minus that of `none`, per checkpoint). A checkpoint's own duration is longer: the nodes
   finish the task they run after the request, which is useful work.
2. For each grid point (MTBF, group share): the model's best pattern (n level-1 checkpoints per level-2
   one, work W per pattern) from those costs; one long run per seed with every n and a period of a
   whole number of iterations (a request just before an iteration ends: the spacing is then exactly
   that work); the simulated overhead (makespan / W0 - 1, W0 the same iterations under `none`) against
   the model's bound sum sqrt(2 lambda_l C_l) and its H at the pattern run (with the recoveries R_l
   measured in the runs), both at the failure rates the runs realized (events per class / makespan:
   the Poisson noise of the count is not the model's error).
3. --ratio: at the first grid point, counts n* - 2 .. n* + 2 each at its own best W; the count with the
   least simulated overhead must be within one of the model's.
4. --trend (Moody et al., SC10): as the share of failures the fast level covers goes from 0 to 85%
   (MTBF --trend-mtbf), the efficiency (W0 / makespan) of one level (stable storage only, at Young's
   period from its measured checkpoint time) against two levels (the model's best pattern), and the
   gain the model predicts. Reported, not checked: it is a trend.

Every run has a wall timeout; hangs, crashes and failed runs are reported apart and fail the check.

  bench/multilevel_check.py [--failures 300] [--seeds 2] [--ratio] [--trend] [--fast buddy|local] [--seed-base N] [-j 2]
(--failures 120: about 12 minutes on 2 cores; the long runs' cost grows with the square of their length,
docs/multilevel.md says why.)
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_harness import campaign_folder, FTSIM, OK, add_campaign_options, run_ftsim, seed_base  # noqa: E402

sys.path.insert(0, str(FTSIM.parent / "python"))
import ftsim  # noqa: E402

# The fast level and the failure classes it covers (--fast): the buddies' memory repairs a node failure,
# not a group one (a node with its buddy); a node's local storage repairs a process failure, not a node one.
FAST_LEVELS = {
    "buddy": {"storage": "buddy", "covered": "node", "uncovered": "group"},
    "local": {"storage": "local", "covered": "process", "uncovered": "node"},
}
FAST = FAST_LEVELS["buddy"]

# Per-node MTBF (s) and share of group failures: lambda C from about 2e-4 down to 1e-5.
GRID = [(20000.0, 0.2), (100000.0, 0.2), (400000.0, 0.2), (20000.0, 0.5)]
FAILURES_PER_RUN = 300


def config(protocol: dict, iterations: int, seed: int, failures: dict, flops: float = 1e9) -> dict:
    return {
        "name": "multilevel-check",
        "seed": seed,
        "application": {"type": "spmd", "pattern": "ring", "iterations": iterations, "message_size": "1MiB",
                        "state_size": "1GiB", "flops": flops},
        "platform": {"nodes": 4, "cores_per_node": 1, "core_gflops": 1, "group_size": 2,
                     "network": {"topology": "cluster", "bandwidth": "10Gbps", "latency": "1us"},
                     "storage": {"hosts": 1, "bandwidth": "1GB/s", "latency": "10us"},
                     "local_storage": {"bandwidth": "2GB/s", "latency": "10us"}},
        "checkpoints": {"count": 1, "buddy": "next"},
        "failures": failures,
        "protocol": protocol,
        "run": {"wall_limit": 0},
    }


def levels(period: float, every: int) -> dict:
    return {"type": "global", "period": period,
            "levels": [{"storage": FAST["storage"]}, {"storage": "stable", "every": every}]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--failures", type=int, default=FAILURES_PER_RUN, help="failures per long run (sets its length)")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--ratio", action="store_true", help="also the best count check at the first grid point")
    parser.add_argument("--trend", action="store_true", help="Moody et al.'s trend instead of the checks")
    parser.add_argument("--trend-mtbf", type=float, default=20000.0, help="per-node MTBF of the trend (s)")
    parser.add_argument("--grid", default=None,
                        help="grid points MTBF:SHARE,... (default: " + ",".join(f"{m:g}:{g:g}" for m, g in GRID) + ")")
    parser.add_argument("--fast", choices=sorted(FAST_LEVELS), default="buddy",
                        help="the fast level: buddy (covers node failures; the others are group failures) or local "
                             "(node-local storage at 2 GB/s: covers process failures; the others are node failures)")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    add_campaign_options(parser, timeout=1800)
    args = parser.parse_args()
    global FAST
    FAST = FAST_LEVELS[args.fast]
    print(f"fast level: {FAST['storage']} (covers {FAST['covered']} failures; the others are {FAST['uncovered']} "
          "failures)", flush=True)
    base = seed_base(args)
    work = campaign_folder(args.out, "multilevel-check-")
    problems = []

    def run(document: dict, tag: str) -> dict | None:
        outcome = run_ftsim(document, work, tag, args.timeout)
        if outcome.kind != OK:
            problems.append(f"{tag}: {outcome.describe()} ({outcome.output})")
            return None
        return outcome.results

    # 1. Costs: the time each kind of checkpoint adds to a failure-free run.
    none = run(config({"type": "none"}, 2000, base, {"model": "none"}), "none")
    only1 = run(config(levels(100.37, 1 << 30), 2000, base, {"model": "none"}), "failure-free-level-1")
    only2 = run(config(levels(100.37, 1), 2000, base, {"model": "none"}), "failure-free-level-2")
    if not none or not only1 or not only2:
        print("\n".join(problems))
        return 1

    def added(r):
        return (r["makespan"] - none["makespan"]) / sum(1 for c in r["checkpoints"] if c["committed"] is not None)

    c1 = added(only1)
    c2 = added(only2) - c1
    print(f"C1 = {c1:.4f} s, C2 = {c2:.4f} s (makespan added per checkpoint, failure-free)", flush=True)
    iteration_time = {}  # flops -> seconds per iteration under `none`

    def per_iteration(flops: float) -> float:
        if flops not in iteration_time:
            r = run(config({"type": "none"}, 2000, base, {"model": "none"}, flops), f"none-{flops:g}")
            iteration_time[flops] = r["makespan"] / 2000 if r else float("nan")
        return iteration_time[flops]

    def pattern(lam1: float, lam2: float, count: int | None = None) -> tuple[int, float]:
        """n and W: the model's best for both levels (a level-2 checkpoint of global with levels writes the
        buddies' copy too, so "level 2 alone", the model's other subset, is not a pattern it can run), or
        the best W for a given n."""
        if count is None:
            best = ftsim.analysis.multilevel([(c1, lam1, 0.0), (c2, lam2, 0.0)], used=[0, 1])
            return best["counts"][0], best["work"]
        return count, math.sqrt(2 * (count * c1 + c2) / (lam1 / count + lam2))

    def plan(mtbf: float, share: float, count: int | None, tag: str, single: float | None = None) -> dict:
        """The long runs of one pattern: iterations of about a fifteenth of the level-1 spacing, a period of
        a whole number of them (requested 5% of an iteration before one ends), enough for --failures.
        `single`: one level on stable storage at this period instead (the trend's reference)."""
        lam = 4 / mtbf
        n, w = pattern(lam * (1 - share), lam * share, count) if single is None else (1, single)
        flops = 1e9 * max(1.0, round(w / n / 15))
        length = per_iteration(flops)
        k = max(1, round(w / n / length))
        period = (k - 0.05) * length
        iterations = max(1000, round(args.failures / lam / length))
        failures = {"model": "exponential", "mtbf": mtbf, "downtime": 1.0, "detection": 0,
                    "classes": {FAST["covered"]: 1 - share, FAST["uncovered"]: share}}
        protocol = levels(period, n) if single is None else {"type": "global", "period": period, "storage": "stable"}
        jobs = [(config(protocol, iterations, base + s, failures, flops), f"{tag}-n{n}-s{s}") for s in range(args.seeds)]
        return {"mtbf": mtbf, "share": share, "n": n, "work": n * k * length, "w0": iterations * length, "jobs": jobs}

    def measured(p: dict) -> dict:
        """The runs' overhead and what they realized: failure rates per class, recovery times."""
        results = [results_by_tag[tag] for _, tag in p["jobs"]]
        makespan = sum(r["makespan"] for r in results)
        classes = (FAST["covered"], FAST["uncovered"])
        events = {k: sum(r["failure_events"][k] for r in results) for k in classes}
        recoveries = {k: [f["recovery_time"] for r in results for f in r["failures"]
                          if f["class"] == k and f["node"] == f["origin"] and f["recovery_time"] is not None]
                      for k in classes}
        one, two = classes
        return {
            "overhead": statistics.mean(r["makespan"] / p["w0"] - 1 for r in results),
            "lam1": events[one] / makespan, "lam2": events[two] / makespan,
            "failures": sum(events.values()) / len(results),
            "r1": statistics.mean(recoveries[one]) if recoveries[one] else 0.0,
            "r2": statistics.mean(recoveries[two]) if recoveries[two] else 0.0,
        }

    def model(p: dict, m: dict) -> float:
        """H at the pattern run (n, its W), at the realized rates and recoveries."""
        n, w = p["n"], p["work"]
        return ((n * c1 + c2) / w + m["lam1"] * w / (2 * n) + m["lam2"] * w / 2
                + m["lam1"] * m["r1"] + m["lam2"] * m["r2"])

    results_by_tag: dict = {}

    def run_all(plans: list[dict]) -> bool:
        jobs = [job for p in plans for job in p["jobs"]]
        with ThreadPoolExecutor(args.jobs) as pool:
            results_by_tag.update(zip((tag for _, tag in jobs), pool.map(lambda job: run(*job), jobs)))
        if problems:
            print("\n".join(problems))
        return not problems

    if args.trend:
        return trend(args, plan, run_all, measured, c1, c2, run, base, problems)

    # 2. The grid, at the model's best patterns; 3. the best count.
    points = [tuple(map(float, p.split(":"))) for p in args.grid.split(",")] if args.grid else GRID
    grid = [plan(mtbf, share, None, f"grid-{mtbf:g}-{share:g}") for mtbf, share in points]
    ratio = []
    if args.ratio:
        mtbf, share = points[-1]
        n_star = grid[-1]["n"]
        ratio = [plan(mtbf, share, n, f"ratio-{mtbf:g}-{share:g}") for n in range(max(1, n_star - 1), n_star + 3)]
    if not run_all(grid + ratio):
        return 1
    print(f"\n{'MTBF (s)':>9} {'group':>6} {'n':>3} {'W (s)':>9} {'failures':>9} {'simulated':>10} {'bound':>9} "
          f"{'gap':>7} {'model H':>9} {'gap':>7}")
    gaps = []
    for p in grid:
        m = measured(p)
        bound = math.sqrt(2 * m["lam1"] * c1) + math.sqrt(2 * m["lam2"] * c2)
        h = model(p, m)
        gaps.append(m["overhead"] / bound - 1)
        print(f"{p['mtbf']:9.0f} {p['share']:6.2f} {p['n']:3d} {p['work']:9.1f} {m['failures']:9.1f} "
              f"{m['overhead']:10.4%} {bound:9.4%} {gaps[-1]:+7.1%} {h:9.4%} {m['overhead'] / h - 1:+7.1%}")
    smallest = max(range(len(grid)), key=lambda i: grid[i]["mtbf"])  # the smallest lambda C
    print(f"check 1: gap to sum sqrt(2 lambda C) at the smallest lambda C (MTBF {grid[smallest]['mtbf']:g} s): "
          f"{gaps[smallest]:+.1%} (target within 3%)")
    ok = abs(gaps[smallest]) <= 0.03
    if ratio:
        n_star = grid[-1]["n"]
        print(f"\nbest count at MTBF {points[-1][0]:g} s, group share {points[-1][1]:g} (model: n* = {n_star}):")
        scores = []
        for p in ratio:
            m = measured(p)
            scores.append((m["overhead"], p["n"]))
            print(f"  n = {p['n']}: W = {p['work']:.1f} s, simulated {m['overhead']:.4%}, model {model(p, m):.4%} "
                  f"({m['failures']:.1f} failures per run)")
        best_n = min(scores)[1]
        print(f"check 2: simulated best n = {best_n}, model n* = {n_star} (target: within one)")
        ok = ok and abs(best_n - n_star) <= 1
    return 0 if ok else 1


def trend(args, plan, run_all, measured, c1, c2, run, base, problems) -> int:
    """Moody et al.'s trend: what a fast level gains as the share of failures it covers rises."""
    stable = run(config({"type": "global", "period": 100.37, "storage": "stable"}, 2000, base, {"model": "none"}),
                 "failure-free-stable")
    none = run(config({"type": "none"}, 2000, base, {"model": "none"}), "none-trend")
    if not stable or not none:
        print("\n".join(problems))
        return 1
    cs = (stable["makespan"] - none["makespan"]) / sum(1 for c in stable["checkpoints"] if c["committed"] is not None)
    lam = 4 / args.trend_mtbf
    young = math.sqrt(2 * cs / lam)
    print(f"one level (stable storage only): C = {cs:.4f} s, Young's period {young:.1f} s", flush=True)
    plans = []
    for covered in (0.0, 0.25, 0.5, 0.75, 0.85):
        group = 1 - covered  # the fast level covers FAST["covered"] failures; the others need stable storage
        plans.append((covered, plan(args.trend_mtbf, group, None, f"trend-two-{covered:g}"),
                      plan(args.trend_mtbf, group, None, f"trend-one-{covered:g}", single=young)))
    if not run_all([p for _, two, one in plans for p in (two, one)]):
        return 1
    print(f"\n{'covered':>8} {'one level':>10} {'two levels':>11} {'n':>3} {'gain':>7} {'model gain':>11}")
    for covered, two, one in plans:
        m1, m2 = measured(one), measured(two)
        lam1, lam2 = lam * covered, lam * (1 - covered)
        model1 = 1 / (1 + math.sqrt(2 * cs * lam))
        n = two["n"]
        model2 = 1 / (1 + math.sqrt(2 * (n * c1 + c2) * (lam1 / n + lam2)))
        eff1, eff2 = 1 / (1 + m1["overhead"]), 1 / (1 + m2["overhead"])
        print(f"{covered:8.0%} {eff1:10.2%} {eff2:11.2%} {n:3d} {eff2 - eff1:+7.2%} {model2 - model1:+11.2%}")
    print("efficiency: W0 / makespan; gain: two levels - one level (points of efficiency); the model's at the "
          "nominal rates, without recoveries")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
