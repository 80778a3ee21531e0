"""Ctrl-C (SIGINT) or SIGTERM during a long `ftsim run` stops the simulation and keeps what it has:
results.json is written with the run marked failed ("interrupted") and exit code 1."""
import json
import signal
import subprocess


def test_sigint_keeps_the_results_so_far(ftsim_binary, tmp_path):
    config = {
        "name": "long-run",
        "application": {"type": "cholesky", "tiles": 160, "tile_size": 320, "precision": "single"},
        "distribution": {"type": "block-cyclic", "P": 5, "Q": 5},
        "platform": {"nodes": 25, "cores_per_node": 24, "core_gflops": {"default": 60.2}},
    }
    path = tmp_path / "long.json"
    path.write_text(json.dumps(config))
    process = subprocess.Popen([str(ftsim_binary), "run", str(path), "-o", str(tmp_path / "out")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Wait for the first progress line: the simulation is under way.
    for line in process.stderr:
        if line.startswith("[ftsim]"):
            break
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 1, out + err
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["complete"] is False
    assert "interrupted" in results["failure_reason"]
    assert 0 < results["executions"] < 160 * 161 * 162 // 6
    assert "interrupted" in out
