"""Ctrl-C (SIGINT) or SIGTERM during a long `ftsim run` stops it and keeps what it has, from the
first instruction to the last: results.json is written with the run marked failed ("interrupted")
and exit code 1."""
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

SOURCE = Path(os.environ.get("FTSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))


def test_sigint_keeps_the_results_so_far(ftsim_binary, tmp_path):
    config = {
        "name": "long-run",
        # Long enough to print a progress line (after 2 s) on a fast machine under any solver.
        "application": {"type": "cholesky", "tiles": 300, "tile_size": 320, "precision": "single"},
        "distribution": {"type": "block-cyclic", "P": 5, "Q": 5},
        "platform": {"nodes": 25, "cores_per_node": 24, "core_gflops": {"default": 60.2}},
    }
    path = tmp_path / "long.json"
    path.write_text(json.dumps(config))
    process = subprocess.Popen([str(ftsim_binary), "run", str(path), "-o", str(tmp_path / "out")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Wait for the first progress line: the simulation is under way, and says how long it has left.
    for line in process.stderr:
        if line.startswith("[ftsim]"):
            assert re.search(r", ETA (\d+ s|--)$", line.strip()), line
            break
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 1, out + err
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["complete"] is False
    assert "interrupted" in results["failure_reason"]
    assert 0 < results["executions"] < 300 * 301 * 302 // 6
    assert "interrupted" in out
    # Issue 39: where each process waited, 25 lines and more, stays in results.json; one line says so.
    assert len(results["stall_report"]) > 1
    assert "stall:" not in out
    assert sum("stall" in line for line in out.splitlines()) == 1


def lion2020_platform(tmp_path, reference):
    config = json.loads((SOURCE / "configs" / "papers" / "lion2020-platform.json").read_text())
    config.pop("$schema", None)
    config.setdefault("run", {})["reference"] = reference
    path = tmp_path / "lion2020-platform.json"
    path.write_text(json.dumps(config))
    return path


def wait_until_sigterm_is_caught(pid, timeout=10.0):
    # Before main() installs its handlers no program can catch a signal (exec, dynamic loading):
    # "at any time" starts there. On a loaded machine that can take longer than the delays below.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return
        caught = next((line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), "0")
        if int(caught, 16) & (1 << (signal.SIGTERM - 1)):
            return
        time.sleep(0.001)


@pytest.mark.parametrize("delay", [0.1, 2.0, 10.0])
@pytest.mark.parametrize("reference", [False, True])
def test_sigterm_at_any_time_gives_results_within_3_seconds(ftsim_binary, tmp_path, delay, reference):
    # Start-up (config, a 9-million-task graph), simulation or reference: whenever SIGTERM comes,
    # the run stops, skips its reference, writes results.json and exits 1, quickly. A second
    # signal changes nothing.
    process = subprocess.Popen([str(ftsim_binary), "run", str(lion2020_platform(tmp_path, reference)), "-o",
                                str(tmp_path / "out")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_until_sigterm_is_caught(process.pid)
    time.sleep(delay)
    sent = time.monotonic()
    process.send_signal(signal.SIGTERM)
    time.sleep(0.05)
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert time.monotonic() - sent < 3.0
    assert process.returncode == 1, out + err
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["complete"] is False
    assert "interrupted" in results["failure_reason"]
    assert results["reference"] is None
