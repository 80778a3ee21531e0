#!/usr/bin/env python3
"""Two checkpoint levels in the simulation against the first-order multi-level model (Benoit et al., IEEE TC
2017; docs/multilevel.md), issue 44's first check.

`global` with two levels (every checkpoint in the buddy's memory, every n-th also on stable storage) on a
4-node SPMD ring (1 s iterations, 1 GiB of state per node, 10 Gb/s links, one storage server at 1 GB/s),
racks of 2 nodes with buddy n + 1: a "node" failure is repaired from the buddy (level 1), a "group"
failure takes a node with its buddy and needs stable storage (level 2). Exponential failures of per-node
mean --mtbf, a share --group of them group failures.

1. The costs, measured: C1 and C2 (the duration of a level-1 checkpoint, and what a level-2 one adds)
   from a failure-free run; the work W0 from a failure-free run under `none`.
2. For each grid point (MTBF, group share): the model's best pattern (n level-1 checkpoints per level-2
   one, work W per pattern) from those costs; one long run per seed with period W / n and every n;
   the simulated overhead (makespan / W0 - 1) against the model's bound sum sqrt(2 lambda_l C_l) and its
   whole-count H (with the recoveries R_l measured in the runs), both at the failure rates the runs
   realized (events per class / makespan: the Poisson noise of the count is not the model's error).
3. --ratio: at the first grid point, counts n* - 2 .. n* + 2 each at its own best W; the count with the
   least simulated overhead must be within one of the model's.
4. --trend (Moody et al., SC10): as the share of failures the fast level covers goes from 0 to 85%
   (MTBF --trend-mtbf), the efficiency (W0 / makespan) of one level (stable storage only, at Young's
   period from its measured checkpoint time) against two levels (the model's best pattern), and the
   gain the model predicts. Reported, not checked: it is a trend.

Every run has a wall timeout; hangs, crashes and failed runs are reported apart and fail the check.

  bench/multilevel_check.py [--iterations 1000000] [--seeds 2] [--ratio] [--trend] [--seed-base N] [-j 2]
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_harness import FTSIM, OK, add_campaign_options, run_ftsim, seed_base  # noqa: E402

sys.path.insert(0, str(FTSIM.parent / "python"))
import ftsim  # noqa: E402

GRID = [(20000.0, 0.2), (20000.0, 0.5), (50000.0, 0.1)]  # per-node MTBF (s), share of group failures


def config(protocol: dict, iterations: int, seed: int, failures: dict) -> dict:
    return {
        "name": "multilevel-check",
        "seed": seed,
        "application": {"type": "spmd", "pattern": "ring", "iterations": iterations, "message_size": "1MiB",
                        "state_size": "1GiB", "flops": 1e9},
        "platform": {"nodes": 4, "cores_per_node": 1, "core_gflops": 1, "group_size": 2,
                     "network": {"topology": "cluster", "bandwidth": "10Gbps", "latency": "1us"},
                     "storage": {"hosts": 1, "bandwidth": "1GB/s", "latency": "10us"}},
        "checkpoints": {"count": 1, "buddy": "next"},
        "failures": failures,
        "protocol": protocol,
        "run": {"wall_limit": 0},
    }


def levels(period: float, every: int) -> dict:
    return {"type": "global", "period": period, "levels": [{"storage": "buddy"}, {"storage": "stable", "every": every}]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=1000000, help="iterations of the long runs (1 s each)")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--ratio", action="store_true", help="also the best count check at the first grid point")
    parser.add_argument("--trend", action="store_true", help="Moody et al.'s trend instead of the checks")
    parser.add_argument("--trend-mtbf", type=float, default=20000.0, help="per-node MTBF of the trend (s)")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    add_campaign_options(parser, timeout=1800)
    args = parser.parse_args()
    base = seed_base(args)
    work = args.out or Path(tempfile.mkdtemp(prefix="multilevel-check-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"output: {work}", flush=True)
    problems = []

    def run(document: dict, tag: str) -> dict | None:
        outcome = run_ftsim(document, work, tag, args.timeout)
        if outcome.kind != OK:
            problems.append(f"{tag}: {outcome.describe()} ({outcome.output})")
            return None
        return outcome.results

    # 1. Costs.
    none = run(config({"type": "none"}, 20000, base, {"model": "none"}), "none")
    free = run(config(levels(100.37, 4), 20000, base, {"model": "none"}), "failure-free")
    if not none or not free:
        print("\n".join(problems))
        return 1
    per_iteration = none["makespan"] / 20000
    durations = [c["committed"] - c["started"] for c in free["checkpoints"] if c["committed"] is not None]
    level1 = [d for i, d in enumerate(durations) if (i + 1) % 4 != 0]
    level2 = [d for i, d in enumerate(durations) if (i + 1) % 4 == 0]
    c1 = statistics.mean(level1)
    c2 = statistics.mean(level2) - c1
    print(f"W0 = {per_iteration:.6f} s per iteration; C1 = {c1:.3f} s, C2 = {c2:.3f} s "
          f"({len(level1)} and {len(level2)} checkpoints of a failure-free run)", flush=True)

    def pattern(lam1: float, lam2: float, count: int | None = None) -> tuple[int, float]:
        if count is None:
            # Both levels: a level-2 checkpoint of global with levels writes the buddies' copy too, so
            # "level 2 alone" (the model's other subset) is not a pattern it can run.
            best = ftsim.analysis.multilevel([(c1, lam1, 0.0), (c2, lam2, 0.0)], used=[0, 1])
            return best["counts"][0], best["work"]
        return count, math.sqrt(2 * (count * c1 + c2) / (lam1 / count + lam2))

    def measured(results: list[dict]) -> dict:
        """The runs' overhead and what they realized: failure rates per class, recovery times."""
        makespan = sum(r["makespan"] for r in results)
        events = {k: sum(r["failure_events"][k] for r in results) for k in ("node", "group")}
        recoveries = {k: [f["recovery_time"] for r in results for f in r["failures"]
                          if f["class"] == k and f["node"] == f["origin"] and f["recovery_time"] is not None]
                      for k in ("node", "group")}
        return {
            "overhead": statistics.mean(r["makespan"] / (per_iteration * args.iterations) - 1 for r in results),
            "lam1": events["node"] / makespan, "lam2": events["group"] / makespan,
            "failures": sum(events.values()) / len(results),
            "r1": statistics.mean(recoveries["node"]) if recoveries["node"] else 0.0,
            "r2": statistics.mean(recoveries["group"]) if recoveries["group"] else 0.0,
        }

    def runs_for(mtbf: float, share: float, count: int | None, tag: str) -> tuple[int, float, list]:
        lam = 4 / mtbf
        n, w = pattern(lam * (1 - share), lam * share, count)
        failures = {"model": "exponential", "mtbf": mtbf, "downtime": 1.0, "detection": 0,
                    "classes": {"node": 1 - share, "group": share}}
        jobs = [config(levels(w / n, n), args.iterations, base + s, failures) for s in range(args.seeds)]
        return n, w, [(doc, f"{tag}-n{n}-s{s}") for s, doc in enumerate(jobs)]

    if args.trend:
        return trend(args, base, run, measured, runs_for, per_iteration, c1, c2, problems)

    # 2. The grid, at the model's best patterns.
    plans = [(mtbf, share, *runs_for(mtbf, share, None, f"grid-{mtbf:g}-{share:g}")) for mtbf, share in GRID]
    ratio_plans = []
    if args.ratio:
        mtbf, share, n_star = plans[0][0], plans[0][1], plans[0][2]
        for n in range(max(1, n_star - 2), n_star + 3):
            ratio_plans.append((n, *runs_for(mtbf, share, n, f"ratio-{mtbf:g}-{share:g}")[1:]))
    all_jobs = [job for plan in plans for job in plan[4]] + [job for plan in ratio_plans for job in plan[2]]
    with ThreadPoolExecutor(args.jobs) as pool:
        results = dict(zip((tag for _, tag in all_jobs), pool.map(lambda job: run(*job), all_jobs)))
    if problems:
        print("\n".join(problems))
        return 1

    print(f"\n{'MTBF (s)':>9} {'group':>6} {'n':>3} {'W (s)':>9} {'failures':>9} {'simulated':>10} {'bound':>9} "
          f"{'gap':>7} {'model H':>9} {'gap':>7}")
    worst = 0.0
    for mtbf, share, n, w, jobs in plans:
        m = measured([results[tag] for _, tag in jobs])
        lv = [(c1, m["lam1"], m["r1"]), (c2, m["lam2"], m["r2"])]
        bound = sum(math.sqrt(2 * lam * c) for c, lam, _ in lv)
        model = math.sqrt(2 * (n * c1 + c2) * (m["lam1"] / n + m["lam2"])) + sum(lam * r for _, lam, r in lv)
        gap = m["overhead"] / bound - 1
        worst = max(worst, abs(gap))
        print(f"{mtbf:9.0f} {share:6.2f} {n:3d} {w:9.1f} {m['failures']:9.1f} {m['overhead']:10.4%} {bound:9.4%} "
              f"{gap:+7.1%} {model:9.4%} {m['overhead'] / model - 1:+7.1%}")
    print(f"check 1: worst gap to sum sqrt(2 lambda C) = {worst:.1%} (target 3%)")
    ok = worst <= 0.03
    if ratio_plans:
        print(f"\nbest count at MTBF {plans[0][0]:g} s, group share {plans[0][1]:g} (model: n* = {plans[0][2]}):")
        scores = []
        for n, w, jobs in ratio_plans:
            m = measured([results[tag] for _, tag in jobs])
            scores.append((m["overhead"], n))
            print(f"  n = {n}: W = {w:.1f} s, simulated overhead {m['overhead']:.4%} ({m['failures']:.1f} failures per run)")
        best_n = min(scores)[1]
        print(f"check 2: simulated best n = {best_n}, model n* = {plans[0][2]} (target: within one)")
        ok = ok and abs(best_n - plans[0][2]) <= 1
    return 0 if ok else 1


def trend(args, base, run, measured, runs_for, per_iteration, c1, c2, problems) -> int:
    """Moody et al.'s trend: what a fast level gains as the share of failures it covers rises."""
    stable = run(config({"type": "global", "period": 100.37, "storage": "stable"}, 20000, base, {"model": "none"}),
                 "failure-free-stable")
    if not stable:
        print("\n".join(problems))
        return 1
    cs = statistics.mean(c["committed"] - c["started"] for c in stable["checkpoints"] if c["committed"] is not None)
    print(f"one level (stable storage only): C = {cs:.3f} s", flush=True)
    shares = [0.0, 0.25, 0.5, 0.75, 0.85]
    lam = 4 / args.trend_mtbf
    jobs, plans = [], []
    for share in shares:
        # The share the fast level covers is the node failures'; the others are group failures.
        group = 1 - share
        failures = {"model": "exponential", "mtbf": args.trend_mtbf, "downtime": 1.0, "detection": 0,
                    "classes": {"node": share, "group": group}}
        one = [(config({"type": "global", "period": math.sqrt(2 * cs / lam), "storage": "stable"}, args.iterations,
                       base + s, failures), f"trend-one-{share:g}-s{s}") for s in range(args.seeds)]
        n, w, two = runs_for(args.trend_mtbf, group, None, f"trend-two-{share:g}")
        plans.append((share, n, w, one, two))
        jobs += one + two
    with ThreadPoolExecutor(args.jobs) as pool:
        results = dict(zip((tag for _, tag in jobs), pool.map(lambda job: run(*job), jobs)))
    if problems:
        print("\n".join(problems))
        return 1
    print(f"\n{'covered':>8} {'one level':>10} {'two levels':>11} {'n':>3} {'gain':>7} {'model gain':>11}")
    for share, n, w, one, two in plans:
        eff1 = statistics.mean(per_iteration * args.iterations / results[tag]["makespan"] for _, tag in one)
        eff2 = statistics.mean(per_iteration * args.iterations / results[tag]["makespan"] for _, tag in two)
        lam1, lam2 = lam * share, lam * (1 - share)
        model1 = 1 / (1 + math.sqrt(2 * cs * lam))
        model2 = 1 / (1 + math.sqrt(2 * (n * c1 + c2) * (lam1 / n + lam2)))
        print(f"{share:8.0%} {eff1:10.2%} {eff2:11.2%} {n:3d} {eff2 - eff1:+7.2%} {model2 - model1:+11.2%}")
    print("efficiency: W0 / makespan; gain: two levels - one level (points of efficiency); the model's without "
          "recoveries")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
