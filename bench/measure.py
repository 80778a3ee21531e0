"""Shared helpers of the bench scripts: run a command, return its wall time and peak memory."""
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("FTSIM_BUILD_DIR", ROOT / "build"))
FTSIM = BUILD / "ftsim"


def run(command, quiet=True, timeout=3600):
    """Runs `command`; returns (stdout, wall seconds, peak resident memory of it and its children in bytes).
    A command still running after `timeout` seconds is a hang: killed (with its children) and reported."""
    import signal
    start = time.monotonic()
    process = subprocess.Popen([str(c) for c in command], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL if quiet else None, text=True, start_new_session=True)
    try:
        out, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        sys.exit(f"hang: no end after {timeout} s: {' '.join(map(str, command))}")
    wall = time.monotonic() - start
    # wait4 is no longer possible after communicate(); RUSAGE_CHILDREN keeps the maximum.
    import resource
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    if process.returncode != 0:
        # 1: the run failed (its reason is in results.json), 2: bad input; anything else is a crash.
        what = {1: "run failed", 2: "bad input"}.get(process.returncode, "crash")
        sys.exit(f"{what} (exit {process.returncode}): {' '.join(map(str, command))}")
    return out, wall, peak


def require_build():
    if not FTSIM.exists():
        sys.exit(f"{FTSIM} not found: build first (make build)")
