#!/usr/bin/python3
"""Besseron, Pigeon, Gautier, Jafar 2006 (CCK), Figs. 10, 11 and 12: ftsim's numbers beside the paper's.

Runs the sweeps configs/papers/besseron2006-fig{10,11,12}.json with `ftsim sweep` into fresh output
directories, each point with a wall limit (/run/wall_limit, set here) and the sweep itself with a
wall timeout; checks the exit codes (every point must be `ok`), then reads each point's results.json
and prints:
  Fig. 10  the checkpoint step time (INIT to validation) against N, 20 and 60 servers, for the two
           server bandwidths of the config, beside the paper's statements (a knee from about 80 nodes
           with 20 servers; linear, under 230 ms at 240 nodes, with 60);
  Fig. 11  the overhead against the period and the frequency (paper: under 1 % for periods >= 10 s);
  Fig. 12  |T_a_re-executer| against the failure date, without and with reordering (mean over the
           failed node), beside the paper's description. The time unit T is the failure-free makespan
           without protocol, measured first by a run of the same graph and platform: the period (0.2 T)
           and the failure dates (0.05 T ... 0.95 T) are set from it, so that a change of the simulator
           cannot leave the config's figures behind (they are T as it was, for `ftsim sweep` alone).
The sweeps have no random draw (seed 1, the default: printed as the seed base).
--smoke: a few points per figure (SMOKE) and a shorter Fig. 11 run, for the test suite
(tests/python/test_reproductions.py): it checks that the bench runs, its numbers mean nothing.
--json FILE: the numbers of each figure as JSON (Fig. 10: ms per servers/bandwidth and nodes; Fig. 11: overhead
per period; Fig. 12: |T| per date, plain and reordered), for bench/reproduce.py.
Usage: bench/besseron2006.py [--figures 10,11,12] [--jobs 2] [--timeout 900] [--binary build/ftsim] [--smoke] [--json FILE]
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--figures", default="10,11,12")
parser.add_argument("--jobs", type=int, default=2)
parser.add_argument("--timeout", type=float, default=1800.0, help="wall seconds for one sweep (default 1800)")
parser.add_argument("--point-wall-limit", default="300 s", help="/run/wall_limit of every point (default 300 s)")
parser.add_argument("--binary", default=str(ROOT / "build" / "ftsim"))
parser.add_argument("--keep", help="write the sweeps' outputs under this directory instead of a temporary one")
parser.add_argument("--smoke", action="store_true", help="a few points per figure, for the test suite")
parser.add_argument("--json", help="also write the figures' numbers here (bench/reproduce.py reads them)")
args = parser.parse_args()
SUMMARY = {}  # --json: figure -> its numbers

# --smoke: the keys of each figure's config replaced (dotted paths; a sweep axis by its grid entry).
SMOKE = {10: {"sweep.grid.platform.nodes": [10, 40], "sweep.grid.platform.storage.bandwidth": ["4Gbps"]},
         11: {"application.iterations": 60, "sweep.grid.protocol.period": ["1s", "5s"]},
         12: {"sweep.grid.failures.events.0.node": [0, 1]}}
SMOKE_FIG12_DATES = (1, 9, 17)  # in 0.05 T: before the first checkpoint, in the middle, after the last one

print("seed base: 1 (the sweeps draw nothing at random; every point runs with /seed 1)", flush=True)


def figure_config(figure: int) -> dict:
    """The figure's sweep config, reduced with --smoke."""
    config = json.loads((ROOT / "configs" / "papers" / f"besseron2006-fig{figure}.json").read_text())
    config.pop("$schema", None)
    for key, value in (SMOKE[figure].items() if args.smoke else ()):
        if key.startswith("sweep.grid."):
            config["sweep"]["grid"][key[len("sweep.grid."):]] = value
        else:
            parent = config
            *path, last = key.split(".")
            for step in path:
                parent = parent[step]
            parent[last] = value
    return config


def sweep(figure: int, work: Path, config: dict) -> list[tuple[dict, dict]]:
    """Runs one figure's sweep config; returns (row, results.json) per point, in point order."""
    config.setdefault("run", {})["wall_limit"] = args.point_wall_limit
    out = work / f"fig{figure}"
    assert not out.exists(), f"{out}: not a fresh output directory"
    path = work / f"fig{figure}.json"
    path.write_text(json.dumps(config))
    command = [args.binary, "sweep", str(path), "-o", str(out), "-j", str(args.jobs)]
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _, stderr = process.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        sys.exit(f"Fig. {figure}: the sweep did not end within {args.timeout:g} s (a hang): {' '.join(command)}")
    rows = [json.loads(line) for line in (out / "rows.jsonl").read_text().splitlines()] if (out / "rows.jsonl").exists() else []
    bad = [r for r in rows if r["status"] != "ok"]
    if process.returncode != 0 or bad or not rows:
        detail = "; ".join(f"point {r['point']}: {r['status']} ({r['reason'][:200]})" for r in bad[:5])
        sys.exit(f"Fig. {figure}: exit code {process.returncode}, {len(bad)} of {len(rows)} points not ok: {detail}\n"
                 f"{stderr[-2000:]}\n  command: {' '.join(command)}")
    print(f"Fig. {figure}: {len(rows)} points ok in {time.monotonic() - start:.0f} s ({out})", flush=True)
    return [(r, json.loads((out / "points" / r["id"] / "results.json").read_text())) for r in rows]


def time_unit(config: dict, work: Path) -> float:
    """Fig. 12's time unit T: the failure-free makespan of the config's graph and platform without protocol."""
    base = {k: v for k, v in config.items() if k not in ("sweep", "failures")}
    base["protocol"] = {"type": "none"}
    base["name"] = "besseron2006-fig12-unit"
    unit_config = work / "fig12-unit.json"
    unit_config.write_text(json.dumps(base))
    out = work / "fig12-unit"
    run = subprocess.run([args.binary, "run", str(unit_config), "-o", str(out)], capture_output=True, text=True,
                         timeout=300)
    if run.returncode != 0:
        sys.exit(f"Fig. 12: the failure-free run that measures the time unit exited {run.returncode}:\n{run.stderr[-2000:]}")
    return json.loads((out / "results.json").read_text())["makespan"]


def checkpoint_step_ms(results: dict) -> float:
    durations = [c["committed"] - c["started"] for c in results["checkpoints"]
                 if c.get("committed") is not None and not c.get("aborted")]
    if not durations:
        sys.exit(f"{results['name']}: no checkpoint was validated")
    return 1e3 * durations[0]


def figure_10(points):
    table = defaultdict(dict)  # (servers, bandwidth) -> nodes -> ms
    for row, results in points:
        key = (row["platform.storage.hosts"], row["platform.storage.bandwidth"])
        table[key][row["platform.nodes"]] = checkpoint_step_ms(results)
    nodes = sorted({n for by_nodes in table.values() for n in by_nodes})
    SUMMARY["10"] = {f"{s} {bw}": {str(n): ms for n, ms in sorted(by.items())} for (s, bw), by in sorted(table.items())}
    print("\nFig. 10: one checkpoint step (INIT to validation), 2 MB per node, in ms")
    header = f"{'nodes':>6} " + " ".join(f"{f'{s} srv {bw}':>15}" for s, bw in sorted(table))
    print(header)
    for n in nodes:
        print(f"{n:>6} " + " ".join(f"{table[key].get(n, float('nan')):>15.1f}" for key in sorted(table)))
    for s, bw in sorted(table):
        by = table[(s, bw)]
        flat = by[nodes[0]]
        last_flat = max(n for n in nodes if by[n] <= 1.25 * flat)
        slope = (by[nodes[-1]] - by[last_flat]) / (nodes[-1] - last_flat) if last_flat < nodes[-1] else 0.0
        print(f"  {s} servers at {bw}: {flat:.1f} ms up to {last_flat} nodes (within 1.25x), then {slope:.2f} ms per node; "
              f"{by[nodes[-1]]:.1f} ms at {nodes[-1]} nodes")
    print("  paper: with 20 servers a knee from about 80 nodes (server congestion); with 60 servers linear, under 230 ms at 240 nodes")


def figure_11(points):
    print("\nFig. 11: overhead of CCK against the checkpoint period (32 nodes, 10 servers)")
    print(f"{'period':>8} {'frequency':>10} {'checkpoints':>12} {'step (mean)':>12} {'overhead':>9}")
    for row, results in sorted(points, key=lambda p: float(p[0]["protocol.period"].rstrip("s"))):
        period = float(row["protocol.period"].rstrip("s"))
        steps = [1e3 * (c["committed"] - c["started"]) for c in results["checkpoints"] if c.get("committed") is not None]
        SUMMARY.setdefault("11", {})[f"{period:g}"] = 100 * results["reference"]["overhead"]
        print(f"{period:>7g}s {1 / period:>10.3f} {len(steps):>12} {statistics.mean(steps):>10.1f}ms "
              f"{100 * results['reference']['overhead']:>8.2f}%")
    print("  paper: under 1 % for a frequency under 0.1 (periods over 10 s)")


def figure_12(points):
    by = defaultdict(list)  # (reorder, date) -> |T| per failed node
    time_unit = None
    for row, results in points:
        config = results["config"]
        time_unit = config["protocol"]["period"] / 0.2
        date = round(row["failures.events.0.time"] / time_unit, 3)
        by[(row["protocol.reexecution.reorder"], date)].append(results["protocol_metrics"]["planned_reexecutions"])
    dates = sorted({d for _, d in by})
    SUMMARY["12"] = {"unit_seconds": time_unit, "dates": dates,
                     "plain": [statistics.mean(by[(False, d)]) for d in dates],
                     "reorder": [statistics.mean(by[(True, d)]) for d in dates]}
    print(f"\nFig. 12: tasks to re-execute (|T|, mean over the failed node) against the failure date (unit T = {time_unit * 1e3:.2f} ms), "
          "a checkpoint every 0.2 T")
    print(f"{'date':>6} {'plain':>8} {'reorder':>8}")
    for d in dates:
        print(f"{d:>6.2f} {statistics.mean(by[(False, d)]):>8.1f} {statistics.mean(by[(True, d)]):>8.1f}")
    early = [d for d in dates if d < 0.2]
    late = [d for d in dates if d >= 0.8]
    for name, span in (("before the first checkpoint", early), ("after the last one", late)):
        plain = statistics.mean(statistics.mean(by[(False, d)]) for d in span)
        reorder = statistics.mean(statistics.mean(by[(True, d)]) for d in span)
        print(f"  {name}: plain {plain:.1f}, reorder {reorder:.1f} tasks on average")
    print("  paper: reordering raises the count a lot when the failure comes early and brings it to 0 at the end")


figures = {int(f) for f in args.figures.split(",")}
with tempfile.TemporaryDirectory(prefix="besseron2006-") as temporary:
    work = Path(args.keep) if args.keep else Path(temporary)
    work.mkdir(parents=True, exist_ok=True)
    if 10 in figures:
        figure_10(sweep(10, work, figure_config(10)))
    if 11 in figures:
        figure_11(sweep(11, work, figure_config(11)))
    if 12 in figures:
        config = figure_config(12)
        unit = time_unit(config, work)
        stated = config["protocol"]["period"] / 0.2
        if abs(unit - stated) > 1e-6 * stated:
            print(f"Fig. 12: the time unit is today's failure-free makespan, {unit:.6f} s (the config's figures are for "
                  f"{stated:.6f} s)", flush=True)
        config["protocol"]["period"] = 0.2 * unit
        steps = SMOKE_FIG12_DATES if args.smoke else range(1, 20)
        config["sweep"]["grid"]["failures.events.0.time"] = [0.05 * k * unit for k in steps]
        config["failures"]["events"][0]["time"] = 0.05 * unit
        figure_12(sweep(12, work, config))
if args.json:
    Path(args.json).write_text(json.dumps(SUMMARY, indent=1))
