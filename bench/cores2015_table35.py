#!/usr/bin/python3
"""Cores 2015 (CPPC thesis), Table 3.5: the overhead of migrating one node away from a predicted
failure against checkpoint/rollback, beside the thesis's figures (docs/migration.md).

For each application (CG as in configs/papers/cores2015-migration.json but 200 iterations, and a
Jacobi stencil), on 8 nodes with 64 spares, one node (3) fails at about half of the run:

  Orig     protocol none, no failure
  Migr     protocol none, the failure announced 200 ms ahead (recall 1, precision 1, spawn 10 ms):
           the node migrates to a spare, the failure hits the host it left
  Ckpt&RB  the thesis's optimistic baseline: one blocking coordinated checkpoint (global, at the
           graph's middle cut, to 2 storage servers) and the failure 1 ms after it commits, so
           that almost no work is lost: a checkpoint plus a global restart
  Ckpt&RB periodic  global checkpoints every `--period` (150 ms), the failure at the same time
           as Migr's: what a run without prediction pays

Overheads are (T - T_orig) / T_orig, as in the thesis. Each run goes through bench/run_harness.py
(a fresh directory, a wall timeout, exit codes checked). About 10 s on 2 cores.

--smoke: smaller applications (SMOKE_APPS), the lead time and period scaled to them, for the test suite
(tests/python/test_reproductions.py): it checks that the bench runs, its numbers mean nothing.

usage: bench/cores2015_table35.py [--binary PATH] [--period 150ms] [--json OUT] [--smoke]
"""
import argparse
import copy
import json
import os
import pathlib
import sys
import tempfile

from run_harness import OK, run_ftsim

ROOT = pathlib.Path(__file__).resolve().parents[1]
# Thesis Table 3.5 (class C, 16 processes on 8 nodes, one node of 2 processes migrated): seconds.
THESIS = {  # code: (Orig, Migr, Ckpt&RB)
    "BT": (449.94, 459.63, 482.27), "CG": (43.91, 45.93, 53.75), "EP": (33.27, 34.59, 33.70),
    "FT": (99.49, 109.56, 150.73), "LU": (418.41, 425.47, 433.39), "SP": (518.74, 532.18, 547.37),
}
APPS = {
    "cg": {"type": "cg", "grid": 2048, "blocks": 16, "iterations": 200},
    "stencil": {"type": "stencil", "tiles": [16, 8], "tile_size": 512, "iterations": 400},
}
SMOKE_APPS = {
    "cg": {"type": "cg", "grid": 512, "blocks": 16, "iterations": 40},
    "stencil": {"type": "stencil", "tiles": [16, 8], "tile_size": 128, "iterations": 40},
}
FAILED_NODE = 3


def base(app, apps=APPS):
    c = json.loads((ROOT / "configs" / "papers" / "cores2015-migration.json").read_text())
    for key in ("sweep", "$schema"):
        c.pop(key)
    c["name"] = f"table35-{app}"
    c["application"] = copy.deepcopy(apps[app])
    c["failures"] = {"model": "none"}
    return c


def with_failure(c, time, prediction=None):
    c = copy.deepcopy(c)
    c["failures"] = {"model": "list", "events": [{"time": time, "node": FAILED_NODE}], "downtime": "1ms"}
    if prediction:
        c["failures"]["prediction"] = prediction
    return c


def run(config, work, tag, binary):
    outcome = run_ftsim(config, work, tag, timeout=300, binary=binary)
    if outcome.kind != OK or not outcome.results["oracle"]["ok"]:
        sys.exit(f"{tag}: {outcome.describe()}")
    return outcome.results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_binary = os.environ.get("FTSIM_BINARY", str(ROOT / "build" / "ftsim"))
    parser.add_argument("--binary", default=default_binary)
    parser.add_argument("--period", default="150ms")
    parser.add_argument("--json")
    parser.add_argument("--smoke", action="store_true", help="small applications, for the test suite")
    args = parser.parse_args()
    apps = SMOKE_APPS if args.smoke else APPS
    rows = []
    with tempfile.TemporaryDirectory(prefix="table35-") as tmp:
        work = pathlib.Path(tmp)
        for app in apps:
            orig_config = base(app, apps)
            orig_config["protocol"] = {"type": "none"}
            orig = run(orig_config, work, f"{app}-orig", args.binary)
            half = orig["makespan"] / 2
            lead, spawn = (0.9 * half, half / 20) if args.smoke else ("200ms", "10ms")
            migr = run(with_failure(orig_config, half, {"lead_time": lead, "recall": 1, "precision": 1, "spawn": spawn}),
                       work, f"{app}-migr", args.binary)
            one = base(app, apps)
            one["protocol"] = {"type": "global", "at": "cuts", "storage": "stable"}
            one["checkpoints"] = {"count": 1}
            free = run(one, work, f"{app}-one-free", args.binary)
            committed = free["checkpoints"][0]["committed"]
            ckpt = run(with_failure(one, committed + 0.001), work, f"{app}-ckpt", args.binary)
            periodic = base(app, apps)
            period = half / 3 if args.smoke else args.period
            periodic["protocol"] = {"type": "global", "period": period, "storage": "stable"}
            periodic_run = run(with_failure(periodic, half), work, f"{app}-periodic", args.binary)
            record = migr["migration"]["records"][0]
            rows.append({
                "app": app, "orig": orig["makespan"], "migr": migr["makespan"], "ckpt": ckpt["makespan"],
                "periodic": periodic_run["makespan"], "evacuation": record["end"] - record["alarm"],
                "state_bytes": record["state_bytes"], "avoided": migr["migration"]["failures_avoided"],
                "checkpoint_bytes": ckpt["checkpoints"][0]["bytes"],
            })
    print("ftsim (8 nodes, one node migrated or failed at half of the run):\n")
    every = "Orig / 6" if args.smoke else args.period
    print("| application | Orig | Migr | Ckpt&RB (one checkpoint just before) | Ckpt&RB (every " + every +
          ") | %Migr | %C&RB | %C&RB periodic | evacuation | state moved |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        pct = lambda t: 100 * (t - r["orig"]) / r["orig"]
        print(f"| {r['app']} | {r['orig']:.3f} s | {r['migr']:.3f} s | {r['ckpt']:.3f} s | {r['periodic']:.3f} s | "
              f"{pct(r['migr']):.2f} | {pct(r['ckpt']):.2f} | {pct(r['periodic']):.1f} | {1000 * r['evacuation']:.1f} ms | "
              f"{r['state_bytes'] / 1e6:.1f} MB |")
    print("\nCores 2015, Table 3.5 (class C, 16 processes on 8 nodes, one node migrated):\n")
    print("| NPB | Orig | Migr | Ckpt&RB | %Migr | %C&RB |")
    print("|---|---|---|---|---|---|")
    for code, (orig, migr, ckpt) in THESIS.items():
        print(f"| {code} | {orig:.2f} s | {migr:.2f} s | {ckpt:.2f} s | {100 * (migr - orig) / orig:.2f} | "
              f"{100 * (ckpt - orig) / orig:.2f} |")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
