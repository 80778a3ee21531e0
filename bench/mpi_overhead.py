#!/usr/bin/env python3
"""Measured cost of the global protocol on real MPI ranks, beside the simulation's prediction.

One MPI job (4 node ranks + the driver) runs tiled Cholesky twice: the failure-free reference
with protocol none (the --verify run), then global with 4 coordinated checkpoints at graph cuts
saved on buddies. The ratio of their wall-clock makespans is the measured overhead. The same
config is then simulated on bench/platforms/this-machine.xml with core speeds calibrated from the
MPI run (graph flops / measured kernel seconds), and the simulated ratio printed beside it.
Ratios come from one job each, because this machine is noisy.

usage: bench/mpi_overhead.py [--tiles 8] [--tile-size 192] [--build build]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]


def cholesky_flops(nt: int, b: int) -> float:
    # The graph's kernel counts times LAPACK's flop counts (the cost model's, graphs/apps/cholesky.cpp).
    potrf, trsm, syrk, gemm = b**3 / 3, b**3, b**3, 2 * b**3
    return nt * potrf + nt * (nt - 1) / 2 * (trsm + syrk) + nt * (nt - 1) * (nt - 2) / 6 * gemm


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiles", type=int, default=8)
    parser.add_argument("--tile-size", type=int, default=192)
    parser.add_argument("--build", default=str(ROOT / "build"))
    args = parser.parse_args()
    ftsim = pathlib.Path(args.build) / "ftsim"
    work = pathlib.Path(tempfile.mkdtemp(prefix="ftsim-mpi-bench-"))
    config = {
        "name": "bench-mpi-overhead",
        "seed": 1,
        "application": {"type": "cholesky", "tiles": args.tiles, "tile_size": args.tile_size, "order": "column"},
        "distribution": {"type": "block-cyclic", "P": 2, "Q": 2},
        "platform": {"nodes": 4, "cores_per_node": 1, "core_gflops": {"default": 1}},
        "checkpoints": {"count": 4, "buddy": "next"},
        "protocol": {"type": "global", "at": "cuts", "storage": "buddy"},
    }
    (work / "mpi.json").write_text(json.dumps(config))
    command = ["mpirun", "--oversubscribe", "-np", "5", str(ftsim), "run", "--backend", "mpi", str(work / "mpi.json"),
               "-o", str(work / "mpi")]
    if os.geteuid() == 0:
        command.insert(1, "--allow-run-as-root")
    # A fresh work directory (mkdtemp), a wall timeout, the exit code checked.
    subprocess.run(command, check=True, capture_output=True, text=True, timeout=1800)
    real = json.loads((work / "mpi" / "results.json").read_text())
    measured_none, measured_global = real["reference"]["makespan"], real["makespan"]

    busy = sum(n["busy_seconds"] for n in real["nodes"])
    gflops = cholesky_flops(args.tiles, args.tile_size) / busy / 1e9
    sim_config = dict(config)
    sim_config["platform"] = {"nodes": 4, "cores_per_node": 1, "core_gflops": {"default": round(gflops, 4)},
                              "xml": str(ROOT / "bench" / "platforms" / "this-machine.xml"),
                              "network": {"model": "CM02"}}
    sim_config["run"] = {"reference": True}
    (work / "sim.json").write_text(json.dumps(sim_config))
    subprocess.run([str(ftsim), "run", str(work / "sim.json"), "-o", str(work / "sim")], check=True, capture_output=True,
                   timeout=1800)
    sim = json.loads((work / "sim" / "results.json").read_text())
    predicted_none, predicted_global = sim["reference"]["makespan"], sim["makespan"]

    print(f"Cholesky {args.tiles}x{args.tiles} tiles of {args.tile_size}, 4 node ranks + driver, global with 4 checkpoints on buddies")
    print(f"calibrated core speed: {gflops:.3f} GFlop/s per rank ({busy:.3f} s of kernels on {os.cpu_count()} cores)")
    print(f"{'':24}{'none':>12}{'global':>12}{'ratio':>10}")
    print(f"{'measured (MPI, wall)':24}{measured_none * 1e3:>10.1f}ms{measured_global * 1e3:>10.1f}ms{measured_global / measured_none:>10.3f}")
    print(f"{'predicted (simulation)':24}{predicted_none * 1e3:>10.1f}ms{predicted_global * 1e3:>10.1f}ms{predicted_global / predicted_none:>10.3f}")
    print(f"checkpoint bytes: MPI {sum(n['bytes_sent']['checkpoint'] for n in real['nodes'])}, "
          f"simulation {sum(n['bytes_sent']['checkpoint'] for n in sim['nodes'])}")
    print(f"verification: bit-exact {real['mpi']['verification']['bit_exact']}, numeric {real['mpi']['verification']['numeric_ok']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
