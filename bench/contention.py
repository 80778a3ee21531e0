#!/usr/bin/python3
"""The two network contention models side by side (/platform/network/contention, docs/configs.md#contention):
a weak-scaling 2D stencil, 2 x 2 tiles of 256 x 256 doubles per node, 20 sweeps, 4 cores per node,
a star network (10 Gb/s, 1 us links, LV08), at 64, 256 and 1024 nodes, each run once with "flows"
(SimGrid's fluid model) and once with "nic" (LogGP-style NIC queues). Prints, per size and model,
events per wall second, the wall time of the simulation and the makespan, then the speedup of nic
and the makespans' relative difference. Each run has a wall timeout: a run still going then is
reported as a hang, apart, and the bench goes on.

  bench/contention.py [--nodes 64 256 1024] [--timeout 600] [--seed 1]
"""
import argparse
import math
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_harness import FTSIM, HANG, OK, run_ftsim  # noqa: E402


def stencil(nodes: int, contention: str, seed: int) -> dict:
    side = math.isqrt(nodes)
    if side * side != nodes:
        raise SystemExit(f"--nodes {nodes}: a square number of nodes, so that each holds 2 x 2 tiles")
    return {
        "name": f"stencil-{nodes}-{contention}",
        "seed": seed,
        # Default distribution: each node a contiguous 2 x 2 sub-grid of tiles.
        "application": {"type": "stencil", "tiles": 2 * side, "tile_size": 256, "iterations": 20},
        "platform": {
            "nodes": nodes,
            "cores_per_node": 4,
            "core_gflops": {"default": 10},
            "network": {"topology": "star", "contention": contention},
        },
        "protocol": {"type": "none"},
        "run": {"wall_limit": 0},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--timeout", type=float, default=600, help="wall seconds per run before it counts as a hang")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not FTSIM.exists():
        raise SystemExit(f"{FTSIM} not found: build first")
    print(f"seed: {args.seed} (replay with --seed {args.seed}); timeout {args.timeout:g} s per run", flush=True)
    rows, hangs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for nodes in args.nodes:
            row = {"nodes": nodes}
            for contention in ("flows", "nic"):
                outcome = run_ftsim(stencil(nodes, contention, args.seed), Path(tmp), f"{nodes}-{contention}", timeout=args.timeout)
                if outcome.kind == HANG:
                    hangs.append(f"{nodes} nodes, {contention}: no end after {args.timeout:g} s")
                    row[contention] = None
                elif outcome.kind != OK:
                    raise SystemExit(f"{nodes} nodes, {contention}: {outcome.describe()}")
                else:
                    r = outcome.results
                    row[contention] = {"events": r["events"], "tasks": r["graph"]["tasks"], "rate": r["wall"]["events_per_second"],
                                       "wall": r["wall"]["simulation_seconds"], "makespan": r["makespan"]}
                print(f"  {nodes} nodes, {contention}: {outcome.kind}, {outcome.wall:.1f} s wall", flush=True)
            rows.append(row)

    def cell(run, key, fmt):
        return "hang" if run is None else format(run[key], fmt)

    print()
    print("| nodes | tasks | events | flows events/s | nic events/s | flows wall s | nic wall s | speedup | flows makespan s | nic makespan s | nic − flows |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        f, n = row["flows"], row["nic"]
        known = f or n
        speedup = f"{f['wall'] / n['wall']:.1f}×" if f and n and n["wall"] > 0 else "—"
        diff = f"{(n['makespan'] - f['makespan']) / f['makespan']:+.3%}" if f and n else "—"
        print(f"| {row['nodes']} | {known['tasks'] if known else '—'} | {known['events'] if known else '—'} | "
              f"{cell(f, 'rate', ',.0f')} | {cell(n, 'rate', ',.0f')} | {cell(f, 'wall', '.2f')} | {cell(n, 'wall', '.2f')} | "
              f"{speedup} | {cell(f, 'makespan', '.6f')} | {cell(n, 'makespan', '.6f')} | {diff} |")
    if hangs:
        print("\nhangs (killed at the timeout):")
        for hang in hangs:
            print(f"  {hang}")


if __name__ == "__main__":
    main()
