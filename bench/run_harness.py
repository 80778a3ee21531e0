"""One ftsim run per call, for every campaign and bench script.

Each run gets a fresh output directory (never a previous run's results.json), a wall timeout (a run
still going then is a hang, killed with its process group), and its exit code checked: 0 complete,
1 the run failed (results.json written, with its failure_reason), 2 bad input; anything else, a
missing or unreadable results.json, is a crash. Campaigns print their seed base so that a failing
seed can be replayed (--seed-base N).
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FTSIM = Path(os.environ.get("FTSIM_BUILD_DIR", ROOT / "build")) / "ftsim"

OK, RUN_FAILED, BAD_INPUT, HANG, CRASH = "ok", "run failed", "bad input", "hang", "crash"


@dataclass
class Outcome:
    kind: str                  # OK, RUN_FAILED, BAD_INPUT, HANG or CRASH
    results: dict | None       # results.json of this run (OK and RUN_FAILED only)
    returncode: int | None     # None for a hang
    wall: float                # seconds
    output: Path               # the run's own output directory
    stderr_tail: str = ""
    command: list[str] = field(default_factory=list)
    peak_rss: int | None = None  # bytes, with run_ftsim(..., peak_memory=True): the largest process of the run
    cpu_seconds: float | None = None  # with peak_memory=True: user + system CPU of the run (all its processes)
    stdout: str = ""           # run_command only: what the command printed

    @property
    def failure_reason(self) -> str:
        if self.results is not None:
            return self.results.get("failure_reason") or ""
        return self.stderr_tail

    def describe(self) -> str:
        return f"{self.kind} (exit {self.returncode}, {self.wall:.1f} s): {self.failure_reason[:300]}"


_counter = itertools.count()


def _run(command: list, timeout: float, cwd=None, env=None) -> tuple:
    """(exit code, stdout, stderr, wall seconds) of a command in a session of its own; exit code None if it
    ran past `timeout`: then it is killed with its process group (the run and any child, e.g. the forked
    simulation)."""
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                               cwd=cwd, env=env)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        return None, stdout or "", stderr or "", time.monotonic() - start
    return process.returncode, stdout, stderr, time.monotonic() - start


def run_ftsim(config: dict | Path, work: Path, tag: str, timeout: float = 120.0, args=(), binary: Path | str = FTSIM,
              verb: str = "run", peak_memory: bool = False) -> Outcome:
    """Runs `ftsim VERB CONFIG -o <fresh dir> ARGS` (a dict is written to a file of its own first).
    peak_memory: under GNU time, whose maximum resident size covers the forked simulation process."""
    run_dir = work / f"{next(_counter):05d}-{tag}"
    run_dir.mkdir(parents=True, exist_ok=False)  # fresh: never a previous run's results
    if isinstance(config, dict):
        path = run_dir / "config.json"
        path.write_text(json.dumps(config))
    else:
        path = Path(config)
    out = run_dir / "out"
    command = [str(binary), verb, str(path), "-o", str(out), *map(str, args)]
    rss_file = run_dir / "maxrss-kb"
    if peak_memory:
        command = ["/usr/bin/time", "-f", "%M %U %S", "-o", str(rss_file), *command]
    code, _, stderr, wall = _run(command, timeout)
    if code is None:
        return Outcome(HANG, None, None, wall, out, f"no end after {timeout:g} s", command)
    tail = stderr.strip()[-1000:]
    peak = cpu = None
    if peak_memory:
        try:
            kb, user, system = rss_file.read_text().split()[-3:]
            peak, cpu = int(kb) * 1024, float(user) + float(system)
        except (OSError, ValueError):
            peak = cpu = None
    if code == 2:
        return Outcome(BAD_INPUT, None, code, wall, out, tail, command)
    if code not in (0, 1):
        return Outcome(CRASH, None, code, wall, out, tail or f"exit code {code}", command)
    try:
        results = json.loads((out / "results.json").read_text())
    except (OSError, json.JSONDecodeError) as e:
        return Outcome(CRASH, None, code, wall, out, f"exit {code} without a readable results.json ({e}); {tail}", command)
    succeeded = bool(results.get("complete")) and results.get("oracle", {}).get("ok", True)
    if code == 0 and not succeeded:  # the exit code and results.json must agree
        return Outcome(CRASH, results, code, wall, out, "exit 0 but results.json says the run failed", command)
    return Outcome(OK if code == 0 else RUN_FAILED, results, code, wall, out, tail, command, peak, cpu)


def run_command(argv: list, work: Path, tag: str, timeout: float = 600.0, ok_codes=(0,), env=None) -> Outcome:
    """Runs any command (a bench script, `ftsim volumes`, the unit tests) in a fresh directory of its own
    (``Outcome.output``, its working directory; pass it to the command for its outputs), with a wall timeout
    (HANG: killed with its process group) and its exit code checked: one of ``ok_codes`` is OK, another CRASH.
    ``results`` stays None; ``stdout`` holds what it printed."""
    run_dir = work / f"{next(_counter):05d}-{tag}"
    run_dir.mkdir(parents=True, exist_ok=False)
    command = [str(a) for a in argv]
    code, stdout, stderr, wall = _run(command, timeout, cwd=run_dir, env=env)
    if code is None:
        return Outcome(HANG, None, None, wall, run_dir, f"no end after {timeout:g} s", command, stdout=stdout)
    kind = OK if code in ok_codes else CRASH
    return Outcome(kind, None, code, wall, run_dir, stderr.strip()[-1000:] or f"exit code {code}", command, stdout=stdout)


def add_campaign_options(parser: argparse.ArgumentParser, timeout: float = 60.0) -> None:
    parser.add_argument("--seed-base", type=int, default=None,
                        help="first seed of the campaign (default: the clock; printed, to replay a run)")
    parser.add_argument("--timeout", type=float, default=timeout, help=f"wall seconds per run before it counts as a hang (default {timeout:g})")


def seed_base(args: argparse.Namespace) -> int:
    """The campaign's seed base, printed."""
    base = args.seed_base if args.seed_base is not None else int(time.time())
    print(f"seed base: {base} (replay with --seed-base {base})", flush=True)
    return base


def checked(outcome: Outcome, what: str) -> dict:
    """results.json of a run that must succeed (a bench's measured run); exits naming it otherwise."""
    if outcome.kind != OK:
        raise SystemExit(f"{what}: {outcome.describe()}\n  command: {' '.join(outcome.command)}")
    return outcome.results


def add_estimate_bench_options(parser: argparse.ArgumentParser, jobs: int = 2, timeout: float = 3600) -> None:
    """The options every estimate bench shares: -j, --seed-base, --timeout (wall seconds per ftsim
    process) and --out (the folder; a temporary one by default)."""
    parser.add_argument("-j", "--jobs", type=int, default=jobs)
    parser.add_argument("--seed-base", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=timeout)
    parser.add_argument("--out", type=Path, default=None)


def campaign_folder(out, prefix: str) -> Path:
    """A campaign's output folder (``out``, or a fresh temporary one), created and printed."""
    import tempfile
    folder = Path(out) if out else Path(tempfile.mkdtemp(prefix=prefix))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"output: {folder}", flush=True)
    return folder


def output_folders(out, prefix: str) -> tuple:
    """(folder, runs): the bench's output folder (``out``, or a fresh temporary one) and a fresh
    folder under its runs/ for this call's processes (a folder given again resumes its estimates;
    the runs of two calls never mix)."""
    import tempfile
    folder = Path(out) if out else Path(tempfile.mkdtemp(prefix=prefix))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "runs").mkdir(exist_ok=True)
    return folder, Path(tempfile.mkdtemp(prefix="runs-", dir=folder / "runs"))
