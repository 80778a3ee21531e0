#!/usr/bin/python3
"""`ftsim analyze` at scale (issue 21): a random trace of 1,000 processes and 10 million events
(build/bench/ftsim_trace_generator: ring-neighbour traffic with some long-range messages,
independent checkpoints after about one event in EVERY per process, messages logged by
Guermouche's epoch rule) analysed end to end — read, recovery line, messages crossing it,
useless checkpoints with a Z-cycle each, JSON written — for the failure of eight processes
under both rules. Target: under 10 s per
analysis on one core.

Each command runs with a wall timeout (a command still going then is a hang, killed with its
process group) and its exit code checked (0 ok, 2 bad input, anything else a crash). The seed
base comes from the clock and is printed: `--seed-base N` replays a run.

    /usr/bin/python3 bench/analyze_scale.py [--processes 1000] [--events 10000000] [--every 1000]
                                            [--seed-base N] [--timeout 120] [--limit 10]
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("FTSIM_BUILD_DIR", ROOT / "build"))
FTSIM = BUILD / "ftsim"
GENERATOR = BUILD / "bench" / "ftsim_trace_generator"


def run(command, timeout):
    """(stdout, stderr, wall seconds) of a command that must exit 0 within `timeout` seconds."""
    start = time.monotonic()
    process = subprocess.Popen([str(c) for c in command], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        sys.exit(f"hang: no end after {timeout:g} s: {' '.join(map(str, command))}")
    wall = time.monotonic() - start
    if process.returncode != 0:
        what = {2: "bad input"}.get(process.returncode, "crash")
        sys.exit(f"{what} (exit {process.returncode}): {' '.join(map(str, command))}\n{err.strip()[-2000:]}")
    return out, err, wall


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--processes", type=int, default=1000)
    parser.add_argument("--events", type=int, default=10_000_000, help="sends and receives (checkpoints come on top)")
    parser.add_argument("--every", type=int, default=1000, help="a checkpoint after about one event in EVERY")
    parser.add_argument("--seed-base", type=int, default=None, help="replay a run (default: from the clock)")
    parser.add_argument("--timeout", type=float, default=120.0, help="wall timeout per command (s)")
    parser.add_argument("--limit", type=float, default=10.0, help="target wall time per analysis (s)")
    args = parser.parse_args()
    for binary in (FTSIM, GENERATOR):
        if not binary.exists():
            sys.exit(f"{binary} not found: build first (make build)")
    seed = args.seed_base if args.seed_base is not None else time.time_ns() % 1_000_000_007
    print(f"seed base {seed} (replay with --seed-base {seed})", flush=True)

    with tempfile.TemporaryDirectory(prefix="ftsim-analyze-scale-") as tmp:
        trace = Path(tmp) / "big.trace.json"
        out, _, wall = run([GENERATOR, args.processes, args.events, seed, args.every, trace], args.timeout)
        sizes = json.loads(out)
        print(f"trace: {sizes['processes']} processes, {sizes['events']:,} events, {sizes['messages']:,} messages, "
              f"{trace.stat().st_size / 1e6:.0f} MB of JSON (generated in {wall:.1f} s)", flush=True)
        # Eight failures spread over the processes: their rollbacks usually cascade far (the
        # fixpoint's worst case is to undo every event).
        failed = ",".join(str((seed + i * args.processes // 8) % args.processes) for i in range(8))
        over = []
        for rule in ("piecewise", "send"):
            result = Path(tmp) / f"{rule}.json"
            _, err, wall = run([FTSIM, "analyze", trace, "--failed", failed, "--determinism", rule, "--json", result,
                                "--timings"], args.timeout)
            document = json.loads(result.read_text())
            phases = ", ".join(line.split("timing: ")[1] for line in err.splitlines() if line.startswith("timing: "))
            print(f"{rule:9s} failure of {failed}: {wall:5.2f} s wall ({phases}); rolled back "
                  f"{document['rolled_back']}/{sizes['processes']}, {document['events_undone']:,} events undone, "
                  f"{len(document['messages_to_replay']):,} to replay, {len(document['useless_checkpoints']):,} useless "
                  f"checkpoints", flush=True)
            if wall > args.limit:
                over.append(f"{rule}: {wall:.2f} s")
    if over:
        sys.exit(f"over the {args.limit:g} s target: {'; '.join(over)}")
    print(f"both analyses under {args.limit:g} s")


if __name__ == "__main__":
    main()
