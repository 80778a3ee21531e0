"""Every run ends in bounded wall time, with results.json and exit code 1 when it cannot complete."""
import json
import os
import subprocess
import time

import pytest

SMALL = {"application": {"type": "cholesky", "tiles": 6, "tile_size": 128},
         "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": 2, "storage": {"hosts": 1}}}


def run_config(ftsim, tmp_path, config):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    start = time.monotonic()
    result = ftsim("run", path, "-o", tmp_path / "out", timeout=60)
    return result, time.monotonic() - start, json.loads((tmp_path / "out" / "results.json").read_text())


@pytest.mark.parametrize("protocol", [{"type": "none"}, {"type": "lineage"},
                                      {"type": "global", "period": "2ms", "storage": "buddy"}])
def test_failures_faster_than_any_progress_stop_the_run(ftsim, tmp_path, protocol):
    # The docs' own example of a run that never ends: a failure every millisecond.
    config = dict(SMALL, protocol=protocol, failures={"model": "exponential", "mtbf": "1ms"})
    result, wall, results = run_config(ftsim, tmp_path, config)
    assert wall < 10
    assert result.returncode == 1, result.stdout + result.stderr
    assert results["complete"] is False
    assert "no progress" in results["failure_reason"] or "time limit" in results["failure_reason"]


def test_the_wall_limit_stops_a_long_simulation(ftsim, tmp_path):
    # 150 tiles (573 k tasks, about a second of simulation): the 100 tiles of before (172 k tasks)
    # finished in 0.21 s once the engine got faster, racing the 0.2 s limit.
    config = {"application": {"type": "cholesky", "tiles": 150, "tile_size": 320, "precision": "single"},
              "platform": {"nodes": 16, "cores_per_node": 8, "core_gflops": 50},
              "run": {"wall_limit": "0.2s"}}
    result, wall, results = run_config(ftsim, tmp_path, config)
    assert wall < 10
    assert result.returncode == 1, result.stdout + result.stderr
    assert "wall time limit reached" in results["failure_reason"]
    assert "/run/wall_limit" in results["failure_reason"]


def test_a_failure_detected_after_a_billion_seconds_ends_at_the_time_limit(ftsim, tmp_path):
    # Once: checkpoints committed for ever without the failed node (152 s, a 224 MB results.json).
    # Now no checkpoint can commit while a rank is missing, and the run stops at its time limit.
    config = dict(SMALL, protocol={"type": "global", "period": "2ms", "storage": "buddy"},
                  failures={"model": "list", "events": [{"time": "5ms", "node": 1}], "detection": "1e9s"})
    result, wall, results = run_config(ftsim, tmp_path, config)
    assert wall < 10
    assert result.returncode == 1, result.stdout + result.stderr
    assert "time limit reached" in results["failure_reason"]
    assert len(results["checkpoints"]) < 10
    assert (tmp_path / "out" / "results.json").stat().st_size < 1_000_000


def test_no_fork_with_a_reference_runs_the_one_simulation_it_can(ftsim_binary, tmp_path):
    # SimGrid allows one engine per process: with FTSIM_NO_FORK=1 the reference is skipped, said so.
    config = dict(SMALL, run={"reference": True})
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    env = dict(os.environ, FTSIM_NO_FORK="1")
    result = subprocess.run([str(ftsim_binary), "run", str(path), "-o", str(tmp_path / "out")], capture_output=True,
                            text=True, timeout=60, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "/run/reference skipped" in result.stderr
    assert json.loads((tmp_path / "out" / "results.json").read_text())["reference"] is None


def test_failures_every_1e300_seconds_end_the_run(ftsim, tmp_path):
    # No task or message could ever complete, and signals were ignored; now the run stops by itself.
    config = dict(SMALL, failures={"model": "exponential", "mtbf": 1e-300})
    result, wall, results = run_config(ftsim, tmp_path, config)
    assert wall < 10
    assert result.returncode == 1, result.stdout + result.stderr
    assert "no progress" in results["failure_reason"]
