#!/usr/bin/python3
"""A simulation on a measured platform against the real MPI run it models (issue 41, item 5).

For each config of configs/mpi/ (4-node configs, made 2-node: "2 ranks, one core each" on this machine,
their failure moved to node 1), scaled up so that a run lasts a fraction of a second:
  1. `mpirun -np 2 ftsim calibrate --backend mpi CONFIG` measures this machine (each kernel's rate with
     both ranks busy, the ranks' ping-pong latency and bandwidth) and writes the calibrated config;
  2. `mpirun -np 3 ftsim run --backend mpi CALIBRATED` runs it for real: the failure-free reference run
     and the run with its failure, wall-clock makespans;
  3. `ftsim run CALIBRATED --set run.reference=true` simulates both on the measured platform.
Repeated --repeat times (a calibration, a measured run and a simulation each, alternately: this machine's
speed drifts), then per config the medians of the measured and simulated makespans (failure-free and with the failure) and their
ratio, and the protocol's overhead measured and simulated. Every command has a wall timeout and its
exit code checked (hangs and failures reported apart, exit 1).

  bench/calibration_check.py [--configs cholesky-global,stencil-cck,...] [--timeout 300] [--smoke]
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_harness import FTSIM, OK, ROOT, run_command, run_ftsim  # noqa: E402

CONFIGS = ["cholesky-global", "cholesky-cck", "cholesky-uncoordinated", "stencil-global", "stencil-cck", "cg-global",
           "cg-cck"]
# What makes each application last a fraction of a second on 2 ranks of this machine (--smoke: the
# configs as they are).
SIZES = {"cholesky": {"application.tiles": 10, "application.tile_size": 192},
         "stencil": {"application.tile_size": [256, 256], "application.iterations": 24},
         "cg": {"application.grid": 256, "application.iterations": 30}}


def mpirun(ranks: int) -> list:
    command = ["mpirun", "--oversubscribe", "-np", str(ranks)]
    if os.geteuid() == 0:
        command.insert(1, "--allow-run-as-root")
    return command


def two_node_overrides(config: dict, smoke: bool) -> list:
    sets = {"platform.nodes": 2}
    if config["distribution"]["type"] == "block-cyclic":
        sets.update({"distribution.P": 1, "distribution.Q": 2})
    events = [dict(e, node=1) for e in config.get("failures", {}).get("events", [])]
    if events:
        sets["failures.events"] = events
    if not smoke:
        sets.update(SIZES[config["application"]["type"]])
    return [a for k, v in sets.items() for a in ("--set", f"{k}={json.dumps(v) if not isinstance(v, str) else v}")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--timeout", type=float, default=300.0, help="wall seconds per command (default 300)")
    parser.add_argument("--repeat", type=int, default=5, help="calibrations and measured runs per config; medians (default 5)")
    parser.add_argument("--smoke", action="store_true", help="the configs at their own small size, one config, once")
    args = parser.parse_args()
    names = args.configs.split(",")[:1] if args.smoke else args.configs.split(",")
    if args.smoke:
        args.repeat = 1
    work = Path(tempfile.mkdtemp(prefix="ftsim-calibration-"))
    print(f"work directory: {work}", flush=True)
    rows, problems = [], []
    for name in names:
        source = ROOT / "configs" / "mpi" / f"{name}.json"
        overrides = two_node_overrides(json.loads(source.read_text()), args.smoke)
        measured, simulated = [], []
        for r in range(args.repeat):
            # A calibration and a measured run per repetition, alternately: this machine's speed drifts.
            calibrated = work / f"{name}-{r}-calibrated.json"
            cal = run_command([*mpirun(3), FTSIM, "calibrate", "--backend", "mpi", source, *overrides, "-o", calibrated],
                              work, f"{name}-{r}-calibrate", timeout=args.timeout)
            if cal.kind != OK:
                problems.append(f"{name}: calibrate {cal.describe()}")
                break
            real = run_command([*mpirun(3), FTSIM, "run", "--backend", "mpi", calibrated, "-o", "out"], work,
                               f"{name}-{r}-mpi", timeout=args.timeout)
            result = real.output / "out" / "results.json"
            if real.kind != OK or not result.exists():
                problems.append(f"{name}: MPI run {real.describe()}")
                break
            sim = run_ftsim(calibrated, work, f"{name}-{r}-sim", timeout=args.timeout, args=("--set", "run.reference=true"))
            if sim.kind != OK:
                problems.append(f"{name}: simulation {sim.describe()}")
                break
            m, s = json.loads(result.read_text()), sim.results
            measured.append((m["reference"]["makespan"], m["makespan"]))
            simulated.append((s["reference"]["makespan"], s["makespan"]))
            print(f"{name} #{r}: measured {m['reference']['makespan'] * 1e3:.1f} / {m['makespan'] * 1e3:.1f} ms, "
                  f"simulated {s['reference']['makespan'] * 1e3:.1f} / {s['makespan'] * 1e3:.1f} ms", flush=True)
        if len(measured) == args.repeat:
            rows.append((name, statistics.median(x for x, _ in measured), statistics.median(x for x, _ in simulated),
                         statistics.median(y for _, y in measured), statistics.median(y for _, y in simulated)))
    print()
    print(f"{'config':<24}{'free: MPI':>11}{'sim':>9}{'sim/MPI':>9}{'failure: MPI':>14}{'sim':>9}{'sim/MPI':>9}"
          f"{'overhead: MPI':>15}{'sim':>8}")
    for name, mf, sf, mr, sr in rows:
        print(f"{name:<24}{mf * 1e3:>9.1f}ms{sf * 1e3:>7.1f}ms{sf / mf:>9.3f}{mr * 1e3:>12.1f}ms{sr * 1e3:>7.1f}ms"
              f"{sr / mr:>9.3f}{100 * (mr / mf - 1):>14.0f}%{100 * (sr / sf - 1):>7.0f}%")
    within = sum(1 for _, mf, sf, mr, sr in rows if abs(sf / mf - 1) <= 0.15 and abs(sr / mr - 1) <= 0.15)
    print(f"\n{within} of {len(rows)} configs within 15% failure-free and with the failure")
    for p in problems:
        print(f"PROBLEM {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
