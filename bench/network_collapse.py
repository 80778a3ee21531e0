#!/usr/bin/python3
"""Where checkpoint traffic made the flow model collapse (issue 40), each workload under each sharing
solver, from one run: SimGrid's "lazy" (one max-min variable per flow; with ftsim's replacement of
SimGrid 3.32's CommImpl::detach) and ftsim's "grouped" (one unknown per route in use).

Workloads (the issue's):
  stencil64-<protocol>  64 x 64 tiles of 1024^2 doubles, 20 sweeps, 64 nodes x 24 cores, 40 Gb/s,
                        one storage host, 10 checkpoints at cuts (--checkpoints), buddy = next node: none,
                        global, buddy;
                        cck at the same cuts (64 checkpoint servers at 40 Gb/s); uncoordinated as in
                        configs/protocols/stencil-uncoordinated.json (4 clusters, every 400 ms)
  cck<N>-flush-all      bench/scale.py's weak-scaling stencil (2 x 2 tiles of 256^2 per node) under
                        cck with "flush": "all" (a PING/PONG between every two nodes per checkpoint)
  ft<N>                 Guermouche 2011's NAS FT pattern (an all-to-all per iteration) under
                        uncoordinated, send-deterministic logging, 16 clusters (32 at 1024)

For each run: makespan, events, simulation CPU seconds (robust on a loaded machine), events per CPU
second, peak memory; then per workload the CPU ratio lazy / grouped and the makespans' relative
difference.

--vs-none (issue 40's acceptance: every protocol within 2x of none's wall time on the 64-node stencil,
failure-free, under the default model): each stencil64-<protocol> workload, with --checkpoints 2 the
issue's (its buddy run: 39,552 checkpoint transfers, 239,712 events), and stencil64-none run in turn (none, protocol, none, protocol, ...) for --rounds rounds, whole-process wall time each; the
ratio protocol / none of each pair and their median are printed. --perf records `perf record -g` of each run (in-process, FTSIM_NO_FORK=1) and prints the
top functions: where the time goes.

Every run has a wall timeout (--timeout, default 1200 s; lazy runs of the largest workloads exceed
it, reported as such, not as errors); crashes and failed runs are reported apart and exit 1.

  bench/network_collapse.py [--workloads stencil64-buddy,cck256-flush-all,ft256,...] [--solvers lazy,grouped]
                            [--timeout 1200] [--perf]
  bench/network_collapse.py --vs-none [--protocols buddy,cck,uncoordinated,global] [--rounds 3] [--checkpoints 2]
"""
import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scale  # noqa: E402  (the weak-scaling stencil and its protocol settings)
from run_harness import FTSIM, HANG, OK, ROOT, run_ftsim  # noqa: E402

DEFAULT = "stencil64-none,stencil64-global,stencil64-buddy,cck256-flush-all,ft256"


def stencil64(protocol: str, checkpoints: int = 10) -> dict:
    config = {"name": f"stencil64-{protocol}",
              "application": {"type": "stencil", "tiles": [64, 64], "tile_size": 1024, "iterations": 20,
                              "precision": "double"},
              "platform": {"nodes": 64, "cores_per_node": 24, "core_gflops": {"JACOBI": 2.5, "HALO": 1},
                           "network": {"topology": "cluster", "bandwidth": "40Gbps", "latency": "1us"},
                           "storage": {"hosts": 1, "bandwidth": "10GB/s"}},
              "checkpoints": {"count": checkpoints, "buddy": "next"},
              "protocol": {"type": protocol}}
    if protocol == "none":
        del config["checkpoints"]
    if protocol == "global":
        config["protocol"] = {"type": "global", "at": "cuts", "storage": "buddy"}
    if protocol == "cck":  # the same cuts, each node's state to a checkpoint server of its own
        del config["checkpoints"]["buddy"]
        config["platform"]["storage"] = {"hosts": 64, "bandwidth": "40Gbps", "latency": "1us"}
        config["protocol"] = {"type": "cck", "at": "cuts"}
    if protocol == "uncoordinated":  # configs/protocols/stencil-uncoordinated.json's settings
        del config["checkpoints"]
        config["platform"]["storage"] = {"hosts": 64, "bandwidth": "5GB/s"}
        config["protocol"] = {"type": "uncoordinated", "logging": "send-deterministic", "schedule": "clusters",
                              "period": "400 ms", "clusters": 4}
    return config


def cck_flush_all(nodes: int) -> dict:
    config = scale.with_protocol(scale.stencil(nodes, "flows", 1), "cck", nodes)
    config["protocol"]["flush"] = "all"
    config["name"] = f"cck{nodes}-flush-all"
    return config


def nas_ft(nodes: int) -> dict:
    config = json.loads((ROOT / "configs" / "papers" / "guermouche2011-table1.json").read_text())
    for key in ("sweep", "$schema"):
        config.pop(key, None)
    config["name"] = f"ft{nodes}"
    config["platform"]["nodes"] = nodes
    config["application"]["pattern"] = "nas-ft"
    config["protocol"]["clusters"] = 16 if nodes <= 256 else 32
    return config


def workload(name: str, checkpoints: int = 10) -> dict:
    if name.startswith("stencil64-"):
        return stencil64(name.split("-", 1)[1], checkpoints)
    if name.startswith("cck") and name.endswith("-flush-all"):
        return cck_flush_all(int(name[3:-len("-flush-all")]))
    if name.startswith("ft"):
        return nas_ft(int(name[2:]))
    raise SystemExit(f"unknown workload {name!r}")


def perf_top(config_path: Path, work: Path, lines: int = 12) -> str:
    data = work / "perf.data"
    subprocess.run(["perf", "record", "-g", "-o", str(data), str(FTSIM), "run", str(config_path), "-o", str(work / "perf-out")],
                   env={"FTSIM_NO_FORK": "1", "PATH": "/usr/bin:/bin"}, capture_output=True)
    report = subprocess.run(["perf", "report", "-i", str(data), "--no-children", "--percent-limit", "1.5", "--stdio"],
                            capture_output=True, text=True).stdout
    top = [line.rstrip()[:140] for line in report.splitlines() if line.strip()[:1].isdigit() and "%" in line]
    return "\n".join(top[:lines])


def vs_none(protocols: list, rounds: int, timeout: float, checkpoints: int) -> bool:
    """Whole-process wall of each stencil64 protocol against stencil64-none, alternated, pair by pair."""
    failed = False
    with tempfile.TemporaryDirectory(prefix="ftsim-vs-none-") as tmp:
        work = Path(tmp)
        for protocol in protocols:
            ratios = []
            for round_ in range(rounds):
                pair = {}
                for name in ("none", protocol):
                    o = run_ftsim(stencil64(name, checkpoints), work, f"{name}-{round_}", timeout=timeout, peak_memory=True)
                    if o.kind != OK:
                        print(f"stencil64-{name}: {o.describe()}", flush=True)
                        failed = True
                        break
                    pair[name] = o
                if len(pair) < 2:
                    break
                ratio = pair[protocol].wall / pair["none"].wall
                ratios.append(ratio)
                print(f"stencil64-{protocol:14s} round {round_ + 1}: wall {pair[protocol].wall:6.2f} s "
                      f"(simulation CPU {pair[protocol].results['wall']['simulation_cpu_seconds']:.2f} s, "
                      f"{pair[protocol].results['events']} events) against none {pair['none'].wall:6.2f} s "
                      f"({pair['none'].results['wall']['simulation_cpu_seconds']:.2f} s): {ratio:.2f}x", flush=True)
            if ratios:
                ratios.sort()
                median = ratios[len(ratios) // 2]
                print(f"stencil64-{protocol:14s} wall / none: median {median:.2f}x over {len(ratios)} pairs "
                      f"(range {ratios[0]:.2f}-{ratios[-1]:.2f}); target <= 2", flush=True)
    return not failed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", default=DEFAULT)
    parser.add_argument("--solvers", default="lazy,grouped")
    parser.add_argument("--timeout", type=float, default=1200)
    parser.add_argument("--perf", action="store_true")
    parser.add_argument("--vs-none", action="store_true", help="each protocol against none on stencil64, wall time")
    parser.add_argument("--protocols", default="buddy,cck,uncoordinated,global")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--checkpoints", type=int, default=10,
                        help="checkpoints of the stencil64 workloads (the issue's acceptance run had 2)")
    args = parser.parse_args()
    if args.vs_none:
        sys.exit(0 if vs_none(args.protocols.split(","), args.rounds, args.timeout, args.checkpoints) else 1)
    solvers = args.solvers.split(",")
    failed = False
    with tempfile.TemporaryDirectory(prefix="ftsim-collapse-") as tmp:
        work = Path(tmp)
        for name in args.workloads.split(","):
            config = workload(name, args.checkpoints)
            results = {}
            for solver in solvers:
                config["platform"]["network"]["solver"] = solver
                o = run_ftsim(config, work, f"{name}-{solver}", timeout=args.timeout, peak_memory=True)
                if o.kind == HANG:
                    print(f"{name:20s} {solver:8s} no end after {args.timeout:g} s of wall time", flush=True)
                    continue
                if o.kind != OK:
                    print(f"{name:20s} {solver:8s} {o.describe()}", flush=True)
                    failed = True
                    continue
                r = o.results
                cpu = r["wall"]["simulation_cpu_seconds"]
                results[solver] = r
                print(f"{name:20s} {solver:8s} makespan {r['makespan']:.10g} s  events {r['events']:>9d}  "
                      f"simulation CPU {cpu:8.2f} s  {r['events'] / max(cpu, 1e-9):10.0f} events/CPU s  "
                      f"peak {o.peak_rss / 1e6:7.0f} MB", flush=True)
                if args.perf:
                    path = work / f"{name}-{solver}.json"
                    path.write_text(json.dumps(config))
                    print(perf_top(path, work), flush=True)
            if "lazy" in results and "grouped" in results:
                lazy, grouped = results["lazy"], results["grouped"]
                ratio = lazy["wall"]["simulation_cpu_seconds"] / max(grouped["wall"]["simulation_cpu_seconds"], 1e-9)
                print(f"{name:20s} lazy / grouped CPU {ratio:.1f}x, makespan grouped / lazy - 1 = "
                      f"{100 * (grouped['makespan'] / lazy['makespan'] - 1):+.4f}%", flush=True)
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
