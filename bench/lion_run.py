#!/usr/bin/python3
"""The full Lion 2020 run (configs/papers/lion2020-platform.json: 9.2 M tasks, 25 nodes x 24 cores)
against issue 25's targets (<= 15 s wall, <= 2 GB), from one run of this script: both network
models ("flows", the config's, and "nic"), each with and without huge pages (FTSIM_HUGE_PAGES=0,
graphs/huge_pages.hpp), alternated so that a change of the machine's load hits all alike.
Prints per run the wall time (and its graph build and simulation set-up), the simulation's CPU
seconds, the peak memory and the makespan, then the ratios. Each run has a wall timeout; a hang, a
crash or a makespan that differs between the huge-page settings is reported apart and ends the
script with a failure.
--idle S sleeps S seconds before each run: this machine's virtual machine hands memory freed for a
few seconds back to its host, so runs after an idle are "cold" (their first touch of memory costs
much more, docs/benchmarks.md) and back-to-back runs "warm".
  /usr/bin/python3 bench/lion_run.py [--rounds N] [--models flows,nic] [--idle S]   (about 3 minutes a round)"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measure import FTSIM, ROOT, require_build

TIMEOUT = 900  # seconds: a run still going then is a hang


def run_once(config_path, huge_pages, out_dir):
    env = dict(os.environ, FTSIM_HUGE_PAGES="1" if huge_pages else "0")
    start = time.monotonic()
    process = subprocess.Popen([str(FTSIM), "run", str(config_path), "-o", str(out_dir)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = start + TIMEOUT
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            os.killpg(process.pid, signal.SIGKILL)
            os.wait4(process.pid, 0)
            return {"outcome": "hang"}
        time.sleep(0.2)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        return {"outcome": "crash" if code < 0 or code > 2 else f"exit {code}"}
    results = json.loads((Path(out_dir) / "results.json").read_text())
    return {"outcome": "ok", "wall": wall, "cpu": results["wall"]["simulation_cpu_seconds"],
            "graph": results["wall"]["graph_seconds"], "setup": results["wall"]["setup_seconds"],
            "peak": usage.ru_maxrss * 1024, "makespan": results["makespan"], "events": results["events"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--models", default="flows,nic")
    parser.add_argument("--idle", type=float, default=0, help="seconds of idle before each run (cold memory)")
    args = parser.parse_args()
    require_build()
    base = json.loads((ROOT / "configs" / "papers" / "lion2020-platform.json").read_text())
    models = args.models.split(",")
    bad = [m for m in models if m not in ("flows", "nic")]
    if bad:
        sys.exit(f"--models: unknown model {bad[0]!r} (flows, nic)")
    runs = {}
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in models:
            config = json.loads(json.dumps(base))
            config["platform"]["network"]["contention"] = model
            path = Path(tmp) / f"lion-{model}.json"
            path.write_text(json.dumps(config))
            for r in range(args.rounds):
                for huge in (True, False):
                    out_dir = Path(tmp) / f"out-{model}-{huge}-{r}"  # a fresh output per run
                    time.sleep(args.idle)
                    result = run_once(path, huge, out_dir)
                    label = f"{model:5} huge pages {'on ' if huge else 'off'}"
                    if result["outcome"] != "ok":
                        print(f"{label}: {result['outcome']}", flush=True)
                        failures.append(f"{label}: {result['outcome']}")
                        continue
                    runs.setdefault((model, huge), []).append(result)
                    print(f"{label}: {result['wall']:6.1f} s wall (graph {result['graph']:.2f} s, set-up "
                          f"{result['setup']:.2f} s), {result['cpu']:6.1f} s simulation CPU, "
                          f"{result['peak'] / 1e9:.2f} GB, {result['events']:,} events, makespan "
                          f"{result['makespan']:.6f} s", flush=True)
    for model in models:
        on, off = runs.get((model, True), []), runs.get((model, False), [])
        if not on or not off:
            continue
        spans = {round(x["makespan"], 12) for x in on + off}
        if len(spans) != 1:
            failures.append(f"{model}: makespans differ between runs: {sorted(spans)}")
        best_on, best_off = min(x["wall"] for x in on), min(x["wall"] for x in off)
        median_on = sorted(x["wall"] for x in on)[len(on) // 2]
        peak = max(x["peak"] for x in on + off)
        print(f"{model}: best wall {best_on:.1f} s with huge pages, {best_off:.1f} s without "
              f"(ratio {best_on / best_off:.2f}); median with huge pages {median_on:.1f} s; "
              f"wall / 15 s target = {best_on / 15:.2f} (best), {median_on / 15:.2f} (median); "
              f"peak / 2 GB target = {peak / 2e9:.2f}")
    if failures:
        print("FAILED: " + "; ".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
