#!/usr/bin/python3
"""Engine speed on the same work (issue 40): ftsim against an S4U activity-DAG simulation of the same
task graph, bench/s4u_dag (an Exec per task, a host-to-host Comm per transfer, SimGrid's own
dependencies between them; see its header).

A tiled Cholesky (--tiles, default 60) on 25 nodes (5 x 5 block-cyclic), 60.2 GFlop/s cores, a
cluster of 40 Gb/s, 1 us links under LV08, is exported with `ftsim graph --json`; then, --repeat
times (default 3) and alternated, s4u_dag and `ftsim run` (SimGrid's flow model with the "lazy"
sharing solver, which s4u_dag uses too, and the default solver when it is another) run it. Two
platforms: "exact", 256 cores per node, where no host ever runs more tasks than it has cores, so
both simulate the same schedule and the makespans must be equal; "shared", 24 cores per node,
where ftsim queues the ready tasks by priority and SimGrid shares a host's cores among all its
started Execs, so the makespans differ (printed, with the most Execs a host ran at once).

Printed per platform: both makespans and their relative difference; the medians of the simulation
wall times (ftsim's results.json, s4u_dag's engine.run()) and of the whole processes (/usr/bin/time -v);
events per second of the median simulation wall (ftsim: task ends + message deliveries; s4u_dag:
activities, the same count);
peak resident memory; and the ratios ftsim / S4U-DAG of events per second.

  bench/engine_speed.py [--repeat 3] [--tiles 60] [--platforms exact shared] [--full]

With --full, also the failure-free 380-tile Cholesky on 25 nodes x 24 cores
(configs/papers/lion2020-platform.json): target <= 3 minutes and <= 8 GB."""
import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import BUILD, FTSIM, ROOT, require_build, run

S4U_DAG = BUILD / "bench" / "s4u_dag"
NODES, GRID = 25, 5
BANDWIDTH, LATENCY, GFLOPS = 5e9, 1e-6, 60.2  # 40 Gb/s, 1 us; numbers, so that both read the same doubles
PLATFORM_CORES = {"exact": 256, "shared": 24}


def config(tiles: int, cores: int, solver) -> dict:
    network = {"topology": "cluster", "bandwidth": BANDWIDTH, "latency": LATENCY, "model": "LV08"}
    if solver is not None:
        network["solver"] = solver
    return {
        "name": f"engine-speed-{tiles}",
        "application": {"type": "cholesky", "tiles": tiles, "tile_size": 320, "precision": "single"},
        "distribution": {"type": "block-cyclic", "P": GRID, "Q": GRID},
        "platform": {"nodes": NODES, "cores_per_node": cores, "core_gflops": {"default": GFLOPS},
                     "network": network},
    }


def timed(command, timeout=7200):
    """Runs `command` under /usr/bin/time -v: (stdout, whole-process wall seconds, peak RSS bytes)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        try:
            process = subprocess.run(["/usr/bin/time", "-v", "-o", report.name, *map(str, command)],
                                     capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            sys.exit(f"hang: no end after {timeout} s: {' '.join(map(str, command))}")
        if process.returncode != 0:
            sys.exit(f"exit {process.returncode}: {' '.join(map(str, command))}\n{process.stderr}")
        text = report.read()
    clock = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text).group(1)
    seconds = 0.0
    for part in clock.split(":"):
        seconds = seconds * 60 + float(part)
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1)) * 1024
    return process.stdout, seconds, peak


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def measure_platform(name: str, tiles: int, repeat: int, tmp: Path) -> None:
    cores = PLATFORM_CORES[name]
    graph = tmp / f"graph-{name}.json"
    base = tmp / f"config-{name}.json"
    base.write_text(json.dumps(config(tiles, cores, "lazy")))
    run([FTSIM, "graph", base, "--json", graph])
    # The default solver, when it is not "lazy", runs too (same graph, its own network solver).
    solvers = ["lazy"]
    probe = tmp / f"probe-{name}"
    small = tmp / "probe.json"
    small.write_text(json.dumps(config(4, cores, None)))
    run([FTSIM, "run", small, "-o", probe])
    default = json.loads((probe / "results.json").read_text())["network_model"]["solver"]
    if default != "lazy":
        solvers.append(None)
    s4u_command = [S4U_DAG, graph, "--cores", cores, "--bandwidth", repr(BANDWIDTH), "--latency", repr(LATENCY),
                   "--gflops", repr(GFLOPS), "--model", "LV08", "--solver", "lazy"]
    s4u_runs, ftsim_runs = [], {solver: [] for solver in solvers}
    for round_ in range(repeat):
        out, wall, peak = timed(s4u_command)
        s4u_runs.append((json.loads(out), wall, peak))
        for solver in solvers:
            path = tmp / f"config-{name}-{solver}.json"
            path.write_text(json.dumps(config(tiles, cores, solver)))
            output = tmp / f"out-{name}-{solver}-{round_}"
            _, wall, peak = timed([FTSIM, "run", path, "-o", output])
            ftsim_runs[solver].append((json.loads((output / "results.json").read_text()), wall, peak))
        print(f"  [{name}] round {round_ + 1}/{repeat}: S4U-DAG {s4u_runs[-1][0]['wall_seconds']:.2f} s, ftsim "
              + ", ".join(f"{ftsim_runs[s][-1][0]['wall']['simulation_seconds']:.2f} s" for s in solvers), flush=True)

    s4u = s4u_runs[0][0]
    if len({r[0]["makespan"] for r in s4u_runs}) != 1:
        sys.exit("s4u_dag's makespan differs between identical runs: not deterministic")
    s4u_sim = median(r[0]["wall_seconds"] for r in s4u_runs)
    s4u_rate = s4u["activities"] / s4u_sim
    print(f"\n{name}: {tiles}-tile Cholesky, {NODES} nodes x {cores} cores: {s4u['tasks']} tasks, "
          f"{s4u['transfers']} transfers (medians of {repeat} alternated runs)")
    each = ", ".join(f"{r[0]['wall_seconds']:.2f}" for r in s4u_runs)
    print(f"  S4U-DAG : makespan {s4u['makespan']!r} s; simulation {s4u_sim:.3f} s wall ({each}), "
          f"{s4u_rate:,.0f} activities/s; "
          f"whole process {median(r[1] for r in s4u_runs):.2f} s, peak {median(r[2] for r in s4u_runs) / 1e6:.0f} MB; "
          f"most Execs at once on a host {s4u['most_execs_at_once']}, FIFO overtakes {s4u['fifo_overtakes']}")
    for solver in solvers:
        runs = ftsim_runs[solver]
        results = runs[0][0]
        if len({r[0]["makespan"] for r in runs}) != 1:
            sys.exit(f"ftsim's makespan differs between identical runs (solver {solver}): not deterministic")
        sim = median(r[0]["wall"]["simulation_seconds"] for r in runs)
        rate = results["events"] / sim
        label = results["network_model"]["solver"] + (" (the default)" if solver is None or solver == default else "")
        each = ", ".join(f"{r[0]['wall']['simulation_seconds']:.2f}" for r in runs)
        print(f"  ftsim, {label} solver: makespan {results['makespan']!r} s; simulation {sim:.3f} s wall ({each}), "
              f"{rate:,.0f} events/s "
              f"({results['events']} events); whole process {median(r[1] for r in runs):.2f} s, "
              f"peak {median(r[2] for r in runs) / 1e6:.0f} MB")
        if results["events"] != s4u["activities"]:
            print(f"    (events differ: ftsim {results['events']}, S4U-DAG {s4u['activities']} activities)")
        difference = (s4u["makespan"] - results["makespan"]) / results["makespan"]
        if s4u["makespan"] == results["makespan"]:
            verdict = "bit-identical"
        elif s4u["cores_shared"]:
            verdict = (f"S4U-DAG - ftsim = {difference:+.3%}: SimGrid shared a host's {cores} cores among up to "
                       f"{s4u['most_execs_at_once']} Execs, ftsim queued the ready tasks by priority")
        else:
            verdict = f"S4U-DAG - ftsim = {difference:+.3e} relative, with no core shared: a drift to explain"
        print(f"    makespans: {verdict}")
        print(f"    ftsim / S4U-DAG events per second = {rate / s4u_rate:.1f}  "
              f"(S4U-DAG simulation wall / ftsim's = {s4u_sim / sim:.1f}; whole processes "
              f"{median(r[1] for r in s4u_runs) / median(r[1] for r in runs):.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tiles", type=int, default=60)
    parser.add_argument("--platforms", nargs="+", choices=sorted(PLATFORM_CORES), default=["exact", "shared"])
    parser.add_argument("--full", action="store_true")
    args = parser.parse_args()
    require_build()
    if not S4U_DAG.exists():
        sys.exit(f"{S4U_DAG} not found: build first (make build)")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.platforms:
            measure_platform(name, args.tiles, args.repeat, Path(tmp))

    if args.full:
        with tempfile.TemporaryDirectory() as tmp:
            out, wall, peak = timed([FTSIM, "run", ROOT / "configs" / "papers" / "lion2020-platform.json", "-o", tmp])
            results = json.loads((Path(tmp) / "results.json").read_text())
        print(f"380-tile Cholesky, 25 x 24 cores, failure-free: {results['graph']['tasks']} tasks, makespan "
              f"{results['makespan']:.2f} s simulated, {wall:.1f} s wall in total, peak memory {peak / 1e9:.2f} GB")
        print(f"  wall / 180 s target = {wall / 180:.2f}   peak memory / 8 GB target = {peak / 8e9:.2f}")


if __name__ == "__main__":
    main()
