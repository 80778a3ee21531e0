#!/usr/bin/python3
"""Backtest of ftsim advise on a real machine (issue 42's acceptance; docs/advise.md#backtest): advice
made from the failures of LANL system 2 in 1996-2002, evaluated on its real failures of 2003-2005.

1. Fit the per-node failure law to the training years (`ftsim failures fit --to 2003-01-01`).
2. A job of one day of the machine's time on --nodes of its nodes: a stencil whose failure-free run
   under `none` stands for 24 h (the log's times are scaled by that ratio, /failures/time_scale).
3. `ftsim advise` with the fitted law (nodes in service: /failures/age stationary) over global and
   buddy: the recommended protocol and period.
4. The predicted distribution of that job's overhead: --predict runs drawn from the fitted law;
   its 5% and 95% quantiles are the 90% predictive interval of one job's overhead.
5. The test: the same job started every --step days of 2003-01-01 ... 2005-09-01 on the log's real
   failures (/failures/model log, the first --nodes nodes of system 2); the share of windows whose
   realised overhead falls in the predicted interval (target: at least 85%).

Every ftsim process has a wall timeout; a hang, a crash or a wrong result is reported apart and makes
the script exit 1. Seeds: --seed-base + 1 ... (printed).

  bench/lanl_backtest.py [--nodes 16] [--step 2] [--predict 300] [-n 20] [-j 2] [--timeout 3600] [--out DIR]
"""
import argparse
import datetime
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_harness import FTSIM, OK, ROOT, add_estimate_bench_options, output_folders, run_command  # noqa: E402

LOG = ROOT / "data" / "failure-logs" / "lanl-1996-2005.csv.xz"
SYSTEM = 2
DAY = 86400.0


def config(nodes: int) -> dict:
    return {"name": "lanl-backtest",
            "application": {"type": "stencil", "tiles": [8, 8], "tile_size": 256, "iterations": 240},
            "platform": {"nodes": nodes, "cores_per_node": 2, "core_gflops": 5, "storage": {"hosts": 1, "bandwidth": "2GB/s"}},
            "failures": {"model": "exponential", "mtbf": "1s"}}


def ftsim(args, runs: Path, tag: str, timeout: float, ok_codes=(0,)):
    outcome = run_command([FTSIM, *args], runs, tag, timeout, ok_codes=ok_codes)
    if outcome.kind != OK:
        raise RuntimeError(f"ftsim {args[0]}: {outcome.describe()}")
    return outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=16)
    parser.add_argument("--step", type=float, default=2.0, help="days between two test windows")
    parser.add_argument("--predict", type=int, default=300, help="runs drawn from the fitted law")
    parser.add_argument("-n", type=int, default=20, help="advise: simulations per candidate")
    add_estimate_bench_options(parser)
    args = parser.parse_args()
    folder, runs = output_folders(args.out, "ftsim-backtest-")
    print(f"seed base {args.seed_base}; LANL system {SYSTEM}, {args.nodes} nodes; output {folder}")
    try:
        # 1. The training years' per-node law.
        fit_file = folder / "fit.json"
        ftsim(["failures", "fit", LOG, "--format", "lanl", "--system", SYSTEM, "--to", "2003-01-01", "--json", fit_file], runs, "fit",
              args.timeout)
        node_fit = json.loads(fit_file.read_text())["systems"][0]["node_fit"]
        law = node_fit["weibull"] if node_fit["weibull_preferred"] else None
        mtbf_log = law["mtbf"]["value"] if law else node_fit["exponential"]["mtbf"]["value"]
        shape = law["shape"]["value"] if law else 1.0
        print(f"fitted on 1996-2002: per-node MTBF {mtbf_log / 3600:.1f} h, shape {shape:.3f}")
        # 2. The job: none's failure-free run stands for one day.
        base = config(args.nodes)
        base_file = folder / "job.json"
        base_file.write_text(json.dumps(base, indent=1))
        free = folder / "none"
        ftsim(["run", base_file, "-o", free, "--set", 'failures={"model": "none"}'], runs, "none", args.timeout)
        none = json.loads((free / "results.json").read_text())["makespan"]
        scale = none / DAY
        downtime = 600 * scale  # ten minutes of the machine's time for a spare to take the rank
        mtbf = mtbf_log * scale
        print(f"job: none's failure-free run {none:.4f} s stands for 24 h (time scale {scale:.3e}); MTBF {mtbf:.4f} s simulated")
        base["failures"] = {"model": "weibull" if shape != 1 else "exponential", "mtbf": mtbf, "downtime": downtime, "age": "stationary"}
        if shape != 1:
            base["failures"]["shape"] = shape
        base_file.write_text(json.dumps(base, indent=1))
        # 3. The advice.
        advice_dir = folder / "advice"
        outcome = ftsim(["advise", base_file, "--protocols", "global,buddy", "-n", args.n, "-j", args.jobs, "--seed-base",
                         args.seed_base, "--budget", args.timeout, "-o", advice_dir], runs, "advise", args.timeout)
        advice = json.loads((advice_dir / "advice.json").read_text())
        best = advice["ranking"][0]
        block = next(p for p in advice["protocols"] if p["protocol"] == best)
        every = block["recommended"]
        print(outcome.stdout.strip().split("\n\n", 1)[-1])
        job = json.loads(json.dumps(base))
        job["protocol"] = {"type": "global", "at": "cuts", "storage": "stable"} if best == "global" else {"type": "buddy"}
        job["checkpoints"] = {"every": every, "buddy": "next"}
        job_file = folder / "advised.json"
        job_file.write_text(json.dumps(job, indent=1))
        # 4. The predictive interval of one job's overhead.
        predict_dir = folder / "predict"
        ftsim(["estimate", job_file, "--method", "brute", "-n", args.predict, "-j", args.jobs, "--seed-base", args.seed_base, "-o",
               predict_dir], runs, "predict", args.timeout, ok_codes=(0, 1))
        rows = [json.loads(line) for line in (predict_dir / "brute" / "rows.jsonl").read_text().splitlines()]
        predicted = sorted(r["makespan"] / none - 1 for r in rows if r["status"] in ("ok", "failed") and r["complete"])
        lost = sum(1 for r in rows if not r["complete"])
        low = predicted[int(0.05 * (len(predicted) - 1))]
        high = predicted[int(0.95 * (len(predicted) - 1))]
        mean = sum(predicted) / len(predicted)
        print(f"advice: {best}, a checkpoint every {every} iterations; predicted overhead of one day's job: mean {100 * mean:.2f}%, "
              f"90% of jobs in [{100 * low:.2f}%, {100 * high:.2f}%] ({len(predicted)} runs, {lost} incomplete)")
        # 5. The test windows on the real failures.
        starts = []
        day = datetime.date(2003, 1, 1)
        while day < datetime.date(2005, 9, 1):
            starts.append(day.isoformat())
            day += datetime.timedelta(days=args.step)
        test = json.loads(json.dumps(job))
        test["failures"] = {"model": "log", "format": "lanl", "file": str(LOG), "system": SYSTEM, "start": starts[0],
                            "time_scale": scale, "nodes": "first", "downtime": downtime}
        test["sweep"] = {"zip": {"/failures/start": starts}}
        test_file = folder / "test.json"
        test_file.write_text(json.dumps(test, indent=1))
        ftsim(["sweep", test_file, "-j", args.jobs, "-o", folder / "test"], runs, "test", args.timeout, ok_codes=(0, 1))
        rows = [json.loads(line) for line in (folder / "test" / "rows.jsonl").read_text().splitlines()]
        errors = [r for r in rows if r["status"] == "error" or (r["complete"] and r["oracle.ok"] is False)]
        complete = [r for r in rows if r["status"] in ("ok", "failed") and r["complete"]]
        realised = [r["makespan"] / none - 1 for r in complete]
        inside = sum(1 for x in realised if low <= x <= high)
        failures = sum(r["failure_count"] for r in complete)
        print(f"test: {len(starts)} windows of one day, 2003-01-01 to 2005-09-01 every {args.step:g} days; {len(complete)} complete, "
              f"{len(rows) - len(complete) - len(errors)} incomplete, {len(errors)} errors; {failures} failures in all "
              f"({failures / max(1, len(complete)):.2f} per window)")
        print(f"realised overhead: mean {100 * sum(realised) / max(1, len(realised)):.2f}% (predicted {100 * mean:.2f}%); "
              f"in the predicted 90% interval: {inside} of {len(realised)} windows = {100 * inside / max(1, len(realised)):.1f}% "
              f"(target 85%)")
        return 1 if errors else 0
    except RuntimeError as error:
        print(error)
        return 1


if __name__ == "__main__":
    sys.exit(main())
