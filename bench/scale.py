#!/usr/bin/python3
"""Scale of the engine (issue 25, items 3 and 5): a weak-scaling 2D stencil, 2 x 2 tiles of 256 x 256
doubles per node, 20 sweeps, 4 cores per node (10 GFlop/s each), a star network (10 Gb/s, 1 us, LV08),
protocol none, at 25, 64, 256, 1024 and 4096 nodes under both network contention models, all in one run:

  - events per wall second of each run and its ratio to the 64-node run of the same model (the
    acceptance of item 3: >= 1/2 at 4096 nodes with "nic") and to the 25-node one;
  - the peak resident memory of each run, the memory per node from the two largest sizes and the
    resident memory it extrapolates to at 100,000 nodes;
  - the wall time of the 4096-node stencil with exponential failures under `global` (target <= 60 s);
  - with --protocols, the per-checkpoint and per-failure work of global, buddy, lineage, cck and
    uncoordinated at 4096 nodes: each protocol run failure-free and with one failure, against the
    same stencil under `none` (wall, events, and the wall not explained by the events at the
    failure-free rate: a cost that grows faster than the work would show there).

"flows" (SimGrid's max-min solver) loses its speed with the node count (docs/benchmarks.md,
"Network contention models"): at 4096 nodes it is run with /run/wall_limit (--flows-limit, default
60 s) and its rate is that of the part it simulated, marked "partial"; --flows-limit 0 skips it.

Every run has a wall timeout (--timeout): a run still going then is a hang, reported apart; a
crash or a wrong result (an incomplete run, an oracle that fails) stops the bench with its command.

  bench/scale.py [--nodes 25 64 256 1024 4096] [--models flows nic] [--flows-limit 60] [--protocols]
                 [--repeat 5] [--repeat-below 10] [--no-failures] [--timeout 600] [--seed 1]
                 [--scaling [--scaling-sizes 64 1024 4096 16384 131072] [--scaling-model nic]
                  [--protocol-list global buddy] [--failure-protocols global buddy]]

With --scaling (issue 40, items 4 and 6): each protocol of --protocol-list and none at each size,
on an a x b node grid (131,072 nodes: 256 x 512, 21 M tasks), failure-free, and global and buddy
with exponential failures (a node MTBF of nodes x the failure-free makespan / 2: about two failures
per run).

Runs shorter than --repeat-below seconds of simulation are run --repeat times and the one of median
events/s is reported (the 64-node run lasts about 13 ms: a single one is mostly the machine's noise).
"""
import argparse
import json
import math
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_harness import FTSIM, HANG, OK, RUN_FAILED, run_ftsim  # noqa: E402

import contention  # noqa: E402  (the weak-scaling stencil of the contention bench)


def node_grid(nodes: int) -> tuple:
    """The most square a x b = nodes grid (a <= b): 131,072 nodes are 256 x 512."""
    a = math.isqrt(nodes)
    while nodes % a:
        a -= 1
    return a, nodes // a


def stencil(nodes: int, model: str, seed: int) -> dict:
    """The weak-scaling stencil: 2 x 2 tiles of 256 x 256 doubles per node on an a x b node grid."""
    a, b = node_grid(nodes)
    config = contention.stencil(a * a, model, seed)
    config["name"] = f"scale-{nodes}-{model}"
    config["platform"]["nodes"] = nodes
    config["application"]["tiles"] = [2 * a, 2 * b]
    return config


def with_protocol(config: dict, protocol: str, nodes: int) -> dict:
    """The stencil under a protocol, with the checkpoint placement of configs/protocols/stencil-*.json."""
    config = json.loads(json.dumps(config))
    config["name"] += f"-{protocol}"
    if protocol == "global":
        config["checkpoints"] = {"count": 4, "buddy": "next"}
        config["protocol"] = {"type": "global", "at": "cuts", "storage": "buddy"}
    elif protocol == "buddy":
        config["checkpoints"] = {"count": 4, "buddy": "next"}
        config["protocol"] = {"type": "buddy"}
    elif protocol == "lineage":
        config["protocol"] = {"type": "lineage"}
    elif protocol == "cck":
        config["checkpoints"] = {"count": 4}
        config["platform"]["storage"] = {"hosts": 64, "bandwidth": "10Gbps", "latency": "1us"}
        config["protocol"] = {"type": "cck", "at": "cuts"}
    elif protocol == "uncoordinated":
        config["platform"]["storage"] = {"hosts": 64, "bandwidth": "5GB/s"}
        config["protocol"] = {"type": "uncoordinated", "logging": "send-deterministic", "schedule": "clusters",
                              "period": "400us", "clusters": 4}
    else:
        raise ValueError(protocol)
    return config


def one_failure(config: dict, nodes: int, tasks: int) -> dict:
    """One failure of a node inside the grid once it has done half its tasks (as configs/protocols/)."""
    config = json.loads(json.dumps(config))
    config["name"] += "-failure"
    config["failures"] = {"model": "list", "events": [{"after_tasks": max(1, tasks // nodes // 2), "node": nodes // 2 + 1}]}
    return config


def exponential_failures(config: dict, nodes: int, mtbf: str) -> dict:
    config = with_protocol(config, "global", nodes)
    config["name"] += "-exponential"
    config["failures"] = {"model": "exponential", "mtbf": mtbf, "downtime": "100us", "detection": "10us"}
    return config


class Bench:
    def __init__(self, args, work: Path):
        self.args, self.work, self.hangs = args, work, []

    def run(self, config: dict, tag: str, allow_wall_limit=False, allow_failed=False):
        """results.json of a run that must complete with the oracle holding (or stop on the wall limit
        when allowed; or end as failed, e.g. unrecoverable, when allowed); None for a hang."""
        outcome = run_ftsim(config, self.work, tag, timeout=self.args.timeout, peak_memory=True)
        if outcome.kind == HANG:
            self.hangs.append(f"{tag}: no end after {self.args.timeout:g} s")
            print(f"  {tag}: HANG (killed after {self.args.timeout:g} s)", flush=True)
            return None
        if outcome.kind == RUN_FAILED and (
                (allow_wall_limit and outcome.failure_reason.startswith("wall time limit reached")) or allow_failed):
            pass
        elif outcome.kind != OK:
            raise SystemExit(f"{tag}: {outcome.describe()}\n  command: {' '.join(outcome.command)}")
        r = outcome.results
        r["_peak_rss"] = outcome.peak_rss
        r["_cpu"] = outcome.cpu_seconds
        r["_partial"] = outcome.kind == RUN_FAILED
        print(f"  {tag}: {'partial (' + outcome.failure_reason[:60] + ')' if r['_partial'] else 'complete'}, "
              f"{r['events']} events, {r['wall']['simulation_seconds']:.2f} s simulation, "
              f"{r['wall']['events_per_second']:,.0f} events/s, makespan {r['makespan']:.6f} s, "
              f"peak {(outcome.peak_rss or 0) / 1e6:.0f} MB ({outcome.wall:.1f} s in all)", flush=True)
        return r


def repeated(bench: Bench, args, config: dict, tag: str, limited: bool):
    """The run of median events/s among --repeat runs of the config. A run of milliseconds (64 nodes:
    about 13 ms) is mostly noise on a shared machine: one run swings by 30% from one minute to the
    next. Runs that last --repeat-below seconds or more, and wall-limited ones, run once. Repeats
    must give the same events and makespan (a difference is a wrong result: the run is deterministic)."""
    first = bench.run(config, tag, allow_wall_limit=limited)
    if first is None or limited or args.repeat <= 1 or first["wall"]["simulation_seconds"] >= args.repeat_below:
        return first
    runs = [first]
    for i in range(1, args.repeat):
        r = bench.run(config, f"{tag} (repeat {i + 1}/{args.repeat})")
        if r is None:
            return None
        if (r["events"], r["makespan"]) != (first["events"], first["makespan"]):
            raise SystemExit(f"{tag}: repeat {i + 1} gave {r['events']} events, makespan {r['makespan']} against "
                             f"{first['events']}, {first['makespan']}: not deterministic")
        runs.append(r)
    runs.sort(key=lambda r: r["wall"]["events_per_second"])
    median = runs[len(runs) // 2]
    rates = ", ".join(f"{r['wall']['events_per_second']:,.0f}" for r in runs)
    print(f"  {tag}: median of {len(runs)} runs: {median['wall']['events_per_second']:,.0f} events/s (all: {rates})",
          flush=True)
    return median


def weak_scaling(bench: Bench, args) -> dict:
    runs = {}
    for nodes in args.nodes:
        for model in args.models:
            config = stencil(nodes, model, args.seed)
            limited = model == "flows" and nodes >= 4096
            if limited:
                if args.flows_limit <= 0:
                    print(f"  {nodes}-{model}: skipped (--flows-limit 0)", flush=True)
                    continue
                config["run"]["wall_limit"] = f"{args.flows_limit:g}s"
            runs[(nodes, model)] = repeated(bench, args, config, f"{nodes}-{model}", limited)
    print()
    print("Events per wall second of the simulation (results.json wall.events_per_second), its ratio to 64 and 25 nodes;")
    print("and, less sensitive to a loaded machine, events per CPU second of the simulation (wall.simulation_cpu_seconds).")
    print("| nodes | tasks | model | events | wall s | events/s | / 64 nodes | / 25 nodes | events/CPU s | / 64 nodes | makespan s | peak RSS MB |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for nodes in args.nodes:
        for model in args.models:
            r = runs.get((nodes, model))
            if r is None:
                print(f"| {nodes} | — | {model} | — | — | — | — | — | — | — |")
                continue
            rate = r["wall"]["events_per_second"]

            def ratio(base):
                b = runs.get((base, model))
                return f"{rate / b['wall']['events_per_second']:.2f}" if b and b["wall"]["events_per_second"] > 0 else "—"
            def cpu_rate(run):
                cpu = run and run["wall"].get("simulation_cpu_seconds")
                return run["events"] / cpu if cpu else None
            base64 = cpu_rate(runs.get((64, model)))
            mine = cpu_rate(r)
            mark = " (partial: wall limit)" if r["_partial"] else ""
            print(f"| {nodes} | {r['graph']['tasks']} | {model}{mark} | {r['events']} | {r['wall']['simulation_seconds']:.2f} | "
                  f"{rate:,.0f} | {ratio(64)} | {ratio(25)} | {format(mine, ',.0f') if mine else '—'} | "
                  f"{format(mine / base64, '.2f') if mine and base64 else '—'} | "
                  f"{'—' if r['_partial'] else format(r['makespan'], '.6f')} | {(r['_peak_rss'] or 0) / 1e6:.0f} |")
    # Memory per node: from the two largest complete "nic" runs (weak scaling: the graph grows with
    # the nodes too, so this is everything a node costs, its share of the graph included).
    sizes = sorted(n for (n, m), r in runs.items() if m == "nic" and r and not r["_partial"] and r["_peak_rss"])
    if len(sizes) >= 2:
        a, b = sizes[-2], sizes[-1]
        ra, rb = runs[(a, "nic")]["_peak_rss"], runs[(b, "nic")]["_peak_rss"]
        per_node = (rb - ra) / (b - a)
        at_100k = rb + per_node * (100_000 - b)
        print(f"\nmemory per node (nic, peak RSS from {a} to {b} nodes): {per_node / 1e3:.1f} kB "
              f"(tasks, graph, runtime, network queues); 100,000 nodes: {at_100k / 1e9:.1f} GB extrapolated")
    return runs


def failure_run(bench: Bench, args) -> None:
    nodes = args.failure_nodes
    config = exponential_failures(stencil(nodes, "nic", args.seed), nodes, args.mtbf)
    r = bench.run(config, f"{nodes}-nic-global-exponential", allow_failed=True)
    if r is None:
        return
    ok = r["complete"] and r.get("oracle", {}).get("ok", True)
    print(f"\n{nodes}-node stencil, nic, global, exponential failures (mtbf {args.mtbf} per node, seed {args.seed}): "
          f"{'complete' if ok else 'FAILED: ' + str(r.get('failure_reason'))}, {len(r['failures'])} failures, "
          f"makespan {r['makespan']:.6f} s, {r['events']} events, wall {r['wall']['simulation_seconds']:.2f} s "
          f"(target <= 60 s: ratio {r['wall']['simulation_seconds'] / 60:.2f})")


def protocols(bench: Bench, args) -> None:
    nodes = args.protocol_nodes
    base = stencil(nodes, "nic", args.seed)
    none = bench.run(base, f"{nodes}-none")
    if none is None:
        return
    tasks = none["graph"]["tasks"]
    rate = none["wall"]["events_per_second"]
    rows = [("none", none, None)]
    for protocol in args.protocol_list:
        config = with_protocol(base, protocol, nodes)
        # A protocol whose work grows faster than the job's stops at the wall limit (reported partial).
        config["run"]["wall_limit"] = f"{args.protocol_limit:g}s"
        free = bench.run(config, f"{nodes}-{protocol}", allow_wall_limit=True)
        failed = bench.run(one_failure(config, nodes, tasks), f"{nodes}-{protocol}-failure", allow_wall_limit=True,
                           allow_failed=True)
        rows.append((protocol, free, failed))
    print()
    print(f"Protocols at {nodes} nodes (nic). Excess: wall − events / {rate:,.0f} (the rate of the failure-free run "
          "under none), i.e. the wall not explained by the number of events.")
    print("| protocol | run | events | wall s | events/s | checkpoints committed | failures | excess s | makespan s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for protocol, free, failed in rows:
        for what, r in (("failure-free", free), ("one failure", failed)):
            if r is None:
                if what == "failure-free" or protocol != "none":
                    print(f"| {protocol} | {what} | — | — | — | — | — | — | — |")
                continue
            wall = r["wall"]["simulation_seconds"]
            committed = sum(1 for c in r.get("checkpoints") or [] if c.get("committed") is not None)
            status = "" if r["complete"] else f" ({str(r.get('failure_reason'))[:40]})"
            print(f"| {protocol} | {what}{status} | {r['events']} | {wall:.2f} | {r['wall']['events_per_second']:,.0f} | "
                  f"{committed} | {len(r['failures'])} | {wall - r['events'] / rate:+.2f} | {r['makespan']:.6f} |")


def protocol_scaling(bench: Bench, args) -> None:
    """Each protocol at each size of --scaling-sizes, under --scaling-model, failure-free and (global,
    buddy) with exponential failures: events per second, wall and peak memory from one run."""
    rows = []
    for nodes in args.scaling_sizes:
        base = stencil(nodes, args.scaling_model, args.seed)
        base["run"]["wall_limit"] = f"{args.protocol_limit:g}s"
        for protocol in ["none"] + [p for p in args.protocol_list if p != "none"]:
            config = base if protocol == "none" else with_protocol(base, protocol, nodes)
            r = bench.run(config, f"{nodes}-{args.scaling_model}-{protocol}", allow_wall_limit=True)
            rows.append((nodes, protocol, "failure-free", r))
            if protocol in args.failure_protocols and r is not None:
                # About two failures per run: a node MTBF of nodes x the failure-free makespan / 2 (the
                # machine's MTBF half the run; global's coordinator makes its run 50 times longer than
                # none's at 131,072 nodes, so a fixed MTBF would fail it faster than it can checkpoint).
                mtbf = nodes * r["makespan"] / 2
                failed = json.loads(json.dumps(config))
                failed["name"] += "-exponential"
                failed["failures"] = {"model": "exponential", "mtbf": f"{mtbf:.6g}s", "downtime": "100us",
                                      "detection": "10us"}
                r = bench.run(failed, f"{nodes}-{args.scaling_model}-{protocol}-exponential", allow_wall_limit=True,
                              allow_failed=True)
                rows.append((nodes, protocol, f"exponential, node mtbf {mtbf:.4g} s", r))
    print()
    print(f"Protocols at scale ({args.scaling_model}): events per wall and per CPU second of the simulation, whole run wall "
          "(graph + set-up + simulation), peak resident memory.")
    print("| nodes | protocol | failures | tasks | events | events/s | events/CPU s | simulation s | run wall s | peak GB | makespan s | result |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for nodes, protocol, failures, r in rows:
        if r is None:
            print(f"| {nodes} | {protocol} | {failures} | — | — | — | — | — | — | — | — | hang |")
            continue
        cpu = r["wall"].get("simulation_cpu_seconds") or 0
        whole = r["wall"].get("graph_seconds", 0) + r["wall"].get("setup_seconds", 0) + r["wall"]["simulation_seconds"]
        result = "complete, oracle ok" if r["complete"] and r.get("oracle", {}).get("ok", True) else str(r.get("failure_reason"))[:50]
        print(f"| {nodes} | {protocol} | {failures} ({len(r['failures'])}) | {r['graph']['tasks']} | {r['events']} | "
              f"{r['wall']['events_per_second']:,.0f} | {r['events'] / cpu if cpu else 0:,.0f} | "
              f"{r['wall']['simulation_seconds']:.1f} | {whole:.1f} | {(r['_peak_rss'] or 0) / 1e9:.2f} | "
              f"{r['makespan']:.6f} | {result} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, nargs="*", default=[25, 64, 256, 1024, 4096],
                        help="sizes of the weak-scaling runs (none: skip them)")
    parser.add_argument("--models", nargs="+", choices=["flows", "nic"], default=["flows", "nic"])
    parser.add_argument("--flows-limit", type=float, default=60,
                        help="wall seconds of the flows run at 4096 nodes and more (its rate is then partial); 0 skips it")
    parser.add_argument("--repeat", type=int, default=5,
                        help="runs of each weak-scaling size shorter than --repeat-below; the median rate is reported")
    parser.add_argument("--repeat-below", type=float, default=10, help="seconds of simulation (see --repeat)")
    parser.add_argument("--no-failures", action="store_true", help="skip the run with exponential failures")
    parser.add_argument("--failure-nodes", type=int, default=4096)
    parser.add_argument("--mtbf", default="20s", help="per-node mean time between failures of the failure run")
    parser.add_argument("--protocols", action="store_true", help="per-checkpoint and per-failure work of the protocols")
    parser.add_argument("--protocol-nodes", type=int, default=4096)
    parser.add_argument("--protocol-list", nargs="+", default=["global", "buddy", "lineage", "cck", "uncoordinated"],
                        choices=["global", "buddy", "lineage", "cck", "uncoordinated"])
    parser.add_argument("--cck-failure", action="store_true", help="kept for old command lines: cck with a failure now runs at every size (its restart's blocks are shared, 895 MB at 4096 nodes)")
    parser.add_argument("--protocol-limit", type=float, default=300,
                        help="/run/wall_limit of each protocol run, seconds (a slower one is reported partial)")
    parser.add_argument("--scaling", action="store_true",
                        help="each protocol of --protocol-list (and none) at each size of --scaling-sizes")
    parser.add_argument("--scaling-sizes", type=int, nargs="+", default=[64, 1024, 4096, 16384, 131072])
    parser.add_argument("--scaling-model", choices=["flows", "nic"], default="nic")
    parser.add_argument("--failure-protocols", nargs="*", default=["global", "buddy"],
                        help="with --scaling: these protocols also run with exponential failures")
    parser.add_argument("--timeout", type=float, default=600, help="wall seconds per run before it counts as a hang")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not FTSIM.exists():
        raise SystemExit(f"{FTSIM} not found: build first")
    print(f"seed: {args.seed} (replay with --seed {args.seed}); timeout {args.timeout:g} s per run", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        bench = Bench(args, Path(tmp))
        if args.nodes:
            weak_scaling(bench, args)
        if not args.no_failures:
            failure_run(bench, args)
        if args.protocols:
            protocols(bench, args)
        if args.scaling:
            protocol_scaling(bench, args)
    if bench.hangs:
        print("\nhangs (killed at the timeout):")
        for hang in bench.hangs:
            print(f"  {hang}")
        sys.exit(1)


if __name__ == "__main__":
    main()
