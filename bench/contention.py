#!/usr/bin/python3
"""The two network contention models side by side (/platform/network/contention, docs/configs.md#contention):
a weak-scaling 2D stencil, 2 x 2 tiles of 256 x 256 doubles per node, 20 sweeps, 4 cores per node,
a star network (10 Gb/s, 1 us links, LV08), at 64, 256 and 1024 nodes, each run once with "flows"
(SimGrid's fluid model) and once with "nic" (LogGP-style NIC queues). Prints, per size and model,
events per wall second, the wall time of the simulation and the makespan, then the speedup of nic
and the makespans' relative difference. Each run has a wall timeout: a run still going then is
reported as a hang, apart, and the bench goes on.

With --validate, instead: the makespans of both models on the built-in applications, where
contention is low (the small examples, failure-free, protocol none) and where it is high (many
large messages at once from and to the same hosts), with their relative difference.

  bench/contention.py [--nodes 64 256 1024] [--models flows nic] [--timeout 600] [--seed 1]
  bench/contention.py --validate
"""
import argparse
import json
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


ROOT = Path(__file__).resolve().parent.parent


def example(name: str) -> dict:
    """An example, failure-free with protocol none, its relative paths made absolute."""
    path = ROOT / "configs" / "examples" / name
    config = json.loads(path.read_text())
    config.pop("$schema", None)
    config.pop("failures", None)
    config.pop("checkpoints", None)
    config["protocol"] = {"type": "none"}
    if isinstance(config["application"].get("file"), str):
        config["application"]["file"] = str(path.parent / config["application"]["file"])
    return config


def validation_cases() -> list:
    """(contention level, what, config without /platform/network/contention)."""
    low = [(("low", name.removesuffix(".json"), example(name)))
           for name in ("stencil-small.json", "cg-small.json", "spmd-halo2d.json", "spmd-ring.json", "lion2020-fig2.json")]
    star = {"topology": "star"}
    high = [
        ("high", "cholesky-small (tile broadcasts)", example("cholesky-small.json")),
        ("high", "spmd alltoall, 16 ranks, 4 MiB messages",
         {"application": {"type": "spmd", "pattern": "alltoall", "iterations": 5, "message_size": "4MiB",
                          "state_size": "1MiB", "flops": 0},
          "platform": {"nodes": 16, "core_gflops": 1, "network": dict(star)}}),
        ("high", "spmd tree, 64 ranks, 16 MiB messages",
         {"application": {"type": "spmd", "pattern": "tree", "iterations": 5, "message_size": "16MiB",
                          "state_size": "1MiB", "flops": 0},
          "platform": {"nodes": 64, "core_gflops": 1, "network": dict(star)}}),
        ("high", "cholesky 24 tiles of 960, 16 nodes x 8 cores at 100 GFlop/s",
         {"application": {"type": "cholesky", "tiles": 24, "tile_size": 960},
          "platform": {"nodes": 16, "cores_per_node": 8, "core_gflops": {"default": 100}, "network": dict(star)}}),
        ("high", "stencil 8 x 8 tiles of 2048, 16 nodes x 4 cores at 100 GFlop/s, 1 Gb/s",
         {"application": {"type": "stencil", "tiles": 8, "tile_size": 2048, "iterations": 10},
          "platform": {"nodes": 16, "cores_per_node": 4, "core_gflops": {"default": 100},
                       "network": dict(star, bandwidth="1Gbps")}}),
    ]
    return low + high


def validate(args) -> None:
    print("| contention | case | flows makespan s | nic makespan s | nic − flows | flows wall s | nic wall s |")
    print("|---|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for level, what, base in validation_cases():
            runs = {}
            for contention in ("flows", "nic"):
                config = json.loads(json.dumps(base))
                config["name"] = f"validate-{contention}"
                config["seed"] = args.seed
                config.setdefault("platform", {}).setdefault("network", {})["contention"] = contention
                outcome = run_ftsim(config, Path(tmp), contention, timeout=args.timeout)
                runs[contention] = outcome.results if outcome.kind == OK else None
                if outcome.kind != OK:
                    print(f"  {what}, {contention}: {outcome.describe()}", flush=True)
            f, n = runs["flows"], runs["nic"]
            if f and n:
                diff = (n["makespan"] - f["makespan"]) / f["makespan"]
                print(f"| {level} | {what} | {f['makespan']:.6f} | {n['makespan']:.6f} | {diff:+.3%} | "
                      f"{f['wall']['simulation_seconds']:.2f} | {n['wall']['simulation_seconds']:.2f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--timeout", type=float, default=600, help="wall seconds per run before it counts as a hang")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--models", nargs="+", choices=["flows", "nic"], default=["flows", "nic"],
                        help="which models to run (e.g. nic alone at 4096 nodes)")
    parser.add_argument("--validate", action="store_true", help="makespans of both models, low and high contention")
    args = parser.parse_args()
    if not FTSIM.exists():
        raise SystemExit(f"{FTSIM} not found: build first")
    print(f"seed: {args.seed} (replay with --seed {args.seed}); timeout {args.timeout:g} s per run", flush=True)
    if args.validate:
        validate(args)
        return
    rows, hangs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for nodes in args.nodes:
            row = {"nodes": nodes}
            row.update(flows=None, nic=None)
            for contention in args.models:
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
        return "—" if run is None else format(run[key], fmt)

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
