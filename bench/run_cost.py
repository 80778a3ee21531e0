#!/usr/bin/python3
"""The rates behind `ftsim validate`'s estimate of a run's wall time and peak memory
(sim/run/run_estimate.cpp holds them): on this machine, for each network model (and the NIC
contention model), the simulation events per second of failure-free runs under `none`; the
events per task and per transfer; the graph build's seconds per task and the seconds per node; the
peak resident memory per task and per node (least squares over a few graph sizes, and rings of 16
to 4096 nodes).

    /usr/bin/python3 bench/run_cost.py            # prints the constants, then each run against its estimate

Each run is one `ftsim run` child, measured by wait4: its CPU time (user + system, which a loaded
machine hardly changes, where it stretches the wall time) and its peak memory. The process's fixed
cost is that of a run of a few tasks; the graph build's share is results.json's wall.graph_seconds."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from measure import FTSIM, require_build


def measure(config, tmp):
    path = Path(tmp) / f"{config['name']}.json"
    path.write_text(json.dumps(config))
    out = Path(tmp) / config["name"]
    process = subprocess.Popen([str(FTSIM), "run", str(path), "-o", str(out)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{config['name']}: exit {os.waitstatus_to_exitcode(status)}")
    results = json.loads((out / "results.json").read_text())
    validate = subprocess.run([str(FTSIM), "validate", str(path)], capture_output=True, text=True).stdout
    return {"name": config["name"], "tasks": results["graph"]["tasks"], "transfers": results["graph"]["transfers"],
            "nodes": config["platform"]["nodes"], "events": results["events"],
            "simulation": results["wall"]["simulation_seconds"], "graph": results["wall"]["graph_seconds"],
            "cpu": usage.ru_utime + usage.ru_stime, "peak": usage.ru_maxrss * 1024, "validate": validate}


def cholesky(name, tiles, nodes, network):
    p = int(nodes ** 0.5)
    return {"name": name, "application": {"type": "cholesky", "tiles": tiles, "tile_size": 320, "precision": "single"},
            "distribution": {"type": "block-cyclic", "P": p, "Q": nodes // p},
            "platform": {"nodes": nodes, "cores_per_node": 8, "core_gflops": {"default": 20}, "network": network}}


def stencil(name, tiles, iterations, nodes, network):
    return {"name": name, "application": {"type": "stencil", "tiles": tiles, "tile_size": 256, "iterations": iterations},
            "platform": {"nodes": nodes, "cores_per_node": 4, "core_gflops": {"default": 10}, "network": network}}


def ring(name, nodes):
    return {"name": name, "application": {"type": "spmd", "pattern": "ring", "iterations": 2, "message_size": "1KB",
                                          "state_size": "1KB", "flops": 1e6},
            "platform": {"nodes": nodes, "cores_per_node": 8, "core_gflops": {"default": 10}}}


MODELS = {"LV08": {"model": "LV08"}, "CM02": {"model": "CM02"}, "SMPI": {"model": "SMPI"}, "IB": {"model": "IB"},
          "nic": {"contention": "nic"}}

require_build()
with tempfile.TemporaryDirectory() as tmp:
    # The fixed cost: a run of a few tasks (the median of 5).
    base = sorted(measure(cholesky(f"tiny{i}", 2, 1, {}), tmp)["cpu"] for i in range(5))[2]
    # Events per CPU second of simulation, per model: a Cholesky and a stencil of about 0.4 s each.
    rates = {}
    for model, network in MODELS.items():
        runs = [measure(cholesky(f"chol-{model}", 60, 16, network), tmp), measure(stencil(f"sten-{model}", 32, 40, 16, network), tmp)]
        rates[model] = sum(r["events"] for r in runs) / sum(r["cpu"] - base - r["graph"] for r in runs)
    # Events, build time and memory against the graph's size (default model, 16 nodes).
    sizes = [measure(cholesky(f"chol{t}", t, 16, {}), tmp) for t in (20, 40, 60, 80)]
    sizes += [measure(stencil(f"sten{t}-{i}", t, i, 16, {}), tmp) for t, i in ((16, 20), (32, 40), (48, 60))]
    a = np.array([[r["tasks"], r["transfers"]] for r in sizes], float)
    events_per = np.linalg.lstsq(a, np.array([r["events"] for r in sizes], float), rcond=None)[0]
    build = sum(r["graph"] for r in sizes) / sum(r["tasks"] for r in sizes)
    # Memory: per task at 16 nodes (transfers grow with the tasks: no term of their own), then per
    # node from rings of 2 tasks per node on 16 to 4096 nodes.
    m = np.array([[1, r["tasks"]] for r in sizes], float)
    memory = np.linalg.lstsq(m, np.array([r["peak"] for r in sizes], float), rcond=None)[0]
    rings = [measure(ring(f"ring{n}", n), tmp) for n in (16, 256, 1024, 4096)]
    per_node = np.polyfit([r["nodes"] for r in rings], [r["peak"] - memory[1] * r["tasks"] for r in rings], 1)[0]
    # Time per node (its hosts and links in SimGrid, its runtime): what the rings take beyond their events.
    node_seconds = np.polyfit([r["nodes"] for r in rings],
                              [r["cpu"] - base - r["graph"] - r["events"] / rates["LV08"] for r in rings], 1)[0]
    print("// bench/run_cost.py on this machine:")
    print(f"//   process CPU seconds {base:.3g}")
    for model, rate in rates.items():
        print(f"//   events per second, {model}: {rate:.3g}")
    print(f"//   events per task {events_per[0]:.3g}, per transfer {events_per[1]:.3g}")
    print(f"//   graph build seconds per task {build:.3g}, seconds per node {node_seconds:.3g}")
    print(f"//   peak bytes: base {memory[0]:.3g}, per task {memory[1]:.3g}, per node {per_node:.3g}")
    print()
    print(f"{'run':<14} {'tasks':>8} {'events':>9} {'CPU s':>8} {'peak MB':>8}  validate's estimate")
    for r in sizes + rings:
        estimate = next((line.strip() for line in r["validate"].splitlines() if "estimate" in line), "-")
        print(f"{r['name']:<14} {r['tasks']:>8} {r['events']:>9} {r['cpu']:>8.2f} {r['peak'] / 1e6:>8.0f}  {estimate}")
