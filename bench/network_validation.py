#!/usr/bin/python3
"""The "grouped" sharing solver against SimGrid's own (issue 40, item 2): every config of
configs/examples, configs/protocols and the quickstart, run under /platform/network/solver "lazy"
(SimGrid 3.32's max-min solver, its default) and "grouped" (ftsim's solver of the same model,
sim/simgrid/flow_sharing.hpp), alternated in one run. Prints per config both makespans, their
relative difference, both simulation CPU times and their ratio; then the largest difference and
the configs over the 1% bound. A config over the bound is run under SimGrid's "full" update too:
SimGrid's two updates themselves differ on runs where the order of events that end at one instant
decides how far a rollback goes (docs/configs.md#sharing-solver); such a config passes if "grouped"
is within the bound of "full". Exit 1 if any config is within the bound of neither.

Configs that "grouped" does not take are listed apart with the reason: "contention": "nic" (no
sharing to solve) and the "IB" model (its penalties are SimGrid's alone); so are configs that do not
run alone (bad input, exit 2: e.g. an example without kernel speeds). Each run has a wall timeout
(--timeout); hangs, crashes and failed runs are reported apart and fail the script.

  bench/network_validation.py [--bound 0.01] [--timeout 600] [--only SUBSTRING] [--seed-base N]
"""
import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_harness import BAD_INPUT, OK, ROOT, run_ftsim  # noqa: E402

SOLVERS = ("lazy", "grouped")


def configs(only: str):
    paths = [ROOT / "configs" / "quickstart.json"]
    for folder in ("examples", "protocols"):
        paths += sorted((ROOT / "configs" / folder).glob("*.json"))
    return [p for p in paths if only in p.name]


def skip_reason(document: dict):
    network = document.get("platform", {}).get("network", {})
    if network.get("contention") == "nic":
        return '"contention": "nic" shares no link'
    if network.get("model") == "IB":
        return 'the "IB" model\'s penalties are SimGrid\'s alone'
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bound", type=float, default=0.01)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--only", default="")
    parser.add_argument("--seed-base", type=int, default=None, help="overrides each config's /seed (default: its own)")
    args = parser.parse_args()
    print(f"seed base: {'each config its own' if args.seed_base is None else args.seed_base}")
    rows, skipped, broken = [], [], []
    with tempfile.TemporaryDirectory(prefix="ftsim-netval-") as tmp:
        work = Path(tmp)
        for index, path in enumerate(configs(args.only)):
            document = json.loads(path.read_text())
            reason = skip_reason(document)
            if reason:
                skipped.append((path.name, reason))
                continue
            outcome = {}
            for solver in SOLVERS:
                extra = ["--set", f"platform.network.solver={solver}"]
                if args.seed_base is not None:
                    extra += ["--set", f"seed={args.seed_base + index}"]
                o = run_ftsim(path, work, f"{path.stem}-{solver}", timeout=args.timeout, args=extra)
                if o.kind == BAD_INPUT and solver == SOLVERS[0]:
                    skipped.append((path.name, "does not run alone: " + o.failure_reason.strip()[:160]))
                    break
                if o.kind != OK:
                    broken.append((path.name, solver, o.describe()))
                    break
                outcome[solver] = o.results
            if len(outcome) != len(SOLVERS):
                continue
            lazy, grouped = outcome["lazy"], outcome["grouped"]
            error = grouped["makespan"] / lazy["makespan"] - 1 if lazy["makespan"] > 0 else 0.0
            cpu = [r["wall"]["simulation_cpu_seconds"] for r in (lazy, grouped)]
            full_error = None
            if abs(error) > args.bound:
                o = run_ftsim(path, work, f"{path.stem}-full", timeout=args.timeout,
                              args=["--set", "platform.network.solver=full"] + extra[2:])
                if o.kind != OK:
                    broken.append((path.name, "full", o.describe()))
                else:
                    full = o.results["makespan"]
                    full_error = grouped["makespan"] / full - 1 if full > 0 else 0.0
            rows.append((path.name, lazy["makespan"], grouped["makespan"], error, cpu[0], cpu[1], full_error))
            against_full = "" if full_error is None else f"  (against full: {100 * full_error:+.4f}%)"
            print(f"{path.name:42s} lazy {lazy['makespan']:.9g} s  grouped {grouped['makespan']:.9g} s  "
                  f"{100 * error:+.4f}%{against_full}  CPU {cpu[0]:.2f} / {cpu[1]:.2f} s", flush=True)
    print()
    for name, reason in skipped:
        print(f"not compared: {name}: {reason}")
    for name, solver, what in broken:
        print(f"BROKEN: {name} under {solver}: {what}")
    if rows:
        worst = max(rows, key=lambda r: abs(r[3]))
        exact = sum(1 for r in rows if r[1] == r[2])
        over = [r for r in rows if abs(r[3]) > args.bound]
        failing = [r for r in over if r[6] is None or abs(r[6]) > args.bound]
        print(f"{len(rows)} configs: {exact} identical makespans; largest difference {100 * worst[3]:+.4f}% ({worst[0]}); "
              f"{len(over)} over {100 * args.bound:g}% against lazy, {len(failing)} of them also against full")
        for r in over:
            verdict = "FAILS" if r in failing else "within the bound of full"
            full = "full not run" if r[6] is None else f"against full {100 * r[6]:+.4f}%"
            print(f"over the bound against lazy: {r[0]}: {100 * r[3]:+.4f}%, {full}: {verdict}")
        total = [sum(r[4] for r in rows), sum(r[5] for r in rows)]
        print(f"simulation CPU, all configs: lazy {total[0]:.1f} s, grouped {total[1]:.1f} s "
              f"(grouped / lazy {total[1] / max(total[0], 1e-9):.2f})")
        if failing:
            sys.exit(1)
    if broken:
        sys.exit(1)


if __name__ == "__main__":
    main()
