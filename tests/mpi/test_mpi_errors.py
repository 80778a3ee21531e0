"""An error on any rank, before, during or after the run, ends the whole MPI job promptly with its
message and a non-zero exit code (issue 19: an output directory that cannot be created left the
job hanging for ever)."""
import json
import os
import subprocess
import time

import pytest

from conftest import BINARY, SOURCE_DIR, base_config, with_protocol

LIMIT = 10  # seconds: each case must end well within this (a hang is caught by the timeout below)


def mpirun(args, env=None, ranks=5):
    command = ["mpirun", "--oversubscribe", "-np", str(ranks)]
    if os.geteuid() == 0:
        command.insert(1, "--allow-run-as-root")
    for key in (env or {}):
        command += ["-x", key]
    start = time.monotonic()
    proc = subprocess.run(command + [str(BINARY), "run", "--backend", "mpi", *map(str, args)], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ, **(env or {})))
    return proc, time.monotonic() - start


def test_an_output_directory_that_cannot_be_created(tmp_path):
    proc, elapsed = mpirun([SOURCE_DIR / "configs" / "mpi" / "cholesky-global.json", "-o", "/dev/null/out"])
    output = proc.stdout + proc.stderr
    assert proc.returncode == 2, output
    assert "/dev/null/out: cannot create the output directory" in output
    assert output.count("cannot create the output directory") == 1, output  # said once
    assert elapsed < LIMIT


def test_a_config_error(tmp_path):
    config = with_protocol(base_config("cholesky"), "global")
    config["protocol"]["storage"] = "tape"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(config))
    proc, elapsed = mpirun([path, "-o", tmp_path / "out"])
    output = proc.stdout + proc.stderr
    assert proc.returncode == 2, output
    assert "/protocol/storage" in output
    assert elapsed < LIMIT


def test_a_rank_that_throws_mid_run(tmp_path):
    config = with_protocol(base_config("cholesky"), "global")
    path = tmp_path / "throw.json"
    path.write_text(json.dumps(config))
    proc, elapsed = mpirun([path, "-o", tmp_path / "out", "--no-verify"], env={"FTSIM_TEST_THROW_RANK": "2"})
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output
    assert "rank 2: error: planted error after a task" in output, output
    assert elapsed < LIMIT


def test_results_that_cannot_be_written_after_the_run(tmp_path):
    config = with_protocol(base_config("cholesky"), "none")
    path = tmp_path / "after.json"
    path.write_text(json.dumps(config))
    out = tmp_path / "out"
    (out / "results.json").mkdir(parents=True)  # the run succeeds, writing its results fails
    proc, elapsed = mpirun([path, "-o", out, "--no-verify"])
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output
    assert "results.json" in output and "cannot write this file" in output, output
    assert elapsed < LIMIT


@pytest.mark.parametrize("change,key", [
    # A shrink runs two ranks on one machine; an MPI rank restarts as its own replacement.
    ({"spares": 0, "on_no_spare": "shrink"}, "/platform/on_no_spare"),
    # Each MPI rank is its own process and fails alone.
    ({"ranks_per_machine": 2}, "/platform/ranks_per_machine"),
])
def test_machine_sharing_is_refused_on_mpi(tmp_path, change, key):
    # docs/shrink.md: refused, naming the key, promptly.
    config = with_protocol(base_config("cholesky"), "global")
    config["platform"].update(change)
    path = tmp_path / "shared-machine.json"
    path.write_text(json.dumps(config))
    proc, elapsed = mpirun([path, "-o", tmp_path / "out"])
    output = proc.stdout + proc.stderr
    assert proc.returncode == 2, output
    assert key in output and "not supported by the MPI backend" in output
    assert elapsed < LIMIT


def test_failure_prediction_is_refused_on_mpi(tmp_path):
    # Proactive migration is simulated only (docs/migration.md): a clear error, exit code 2.
    config = with_protocol(base_config("cholesky"), "global")
    config["platform"]["spares"] = 2
    config["failures"]["prediction"] = {"lead_time": "1s", "recall": 1, "precision": 1}
    path = tmp_path / "prediction.json"
    path.write_text(json.dumps(config))
    proc, elapsed = mpirun([path, "-o", tmp_path / "out"])
    output = proc.stdout + proc.stderr
    assert proc.returncode == 2, output
    assert "/failures/prediction: proactive migration is simulated only" in output
    assert output.count("proactive migration is simulated only") == 1, output
    assert elapsed < LIMIT

