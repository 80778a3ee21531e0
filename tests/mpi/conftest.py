"""Helpers for the MPI backend tests: configs derived from configs/mpi/, jobs under mpirun."""
import copy
import json
import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("FTSIM_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
BINARY = pathlib.Path(os.environ.get("FTSIM_BINARY", SOURCE_DIR / "build" / "ftsim"))
APPS = ["cholesky", "stencil", "cg"]
PROTOCOLS = ["none", "global", "lineage", "buddy", "cck"]


def base_config(app: str) -> dict:
    """The MPI config of an application (global at cuts with one failure at a task count)."""
    return json.loads((SOURCE_DIR / "configs" / "mpi" / f"{app}-global.json").read_text())


def with_protocol(config: dict, protocol: str) -> dict:
    c = copy.deepcopy(config)
    c.pop("$schema", None)
    c["name"] = f"{c['name']}-{protocol}"
    if protocol == "buddy":
        c["protocol"] = {"type": "buddy"}  # at the cuts of /checkpoints
    elif protocol == "cck":
        # At the cuts of /checkpoints (the same checkpoints on both backends), on a checkpoint server.
        c["protocol"] = {"type": "cck", "at": "cuts"}
        c["platform"]["storage"] = {"hosts": 1}
    elif protocol != "global":
        c["protocol"] = {"type": protocol}
        c.pop("checkpoints", None)
    return c


class Job:
    def __init__(self, proc: subprocess.CompletedProcess, results: dict | None):
        self.proc = proc
        self.results = results

    @property
    def output(self) -> str:
        return self.proc.stdout + self.proc.stderr


@pytest.fixture(scope="session")
def mpirun():
    """Runs `ftsim run --backend mpi` on a config dict under mpirun; returns a Job."""
    if not BINARY.exists():
        pytest.fail(f"ftsim binary not found at {BINARY}; build first (make test does)")

    def run(config: dict, tmp: pathlib.Path, ranks: int | None = None, extra=(), env=None, timeout=300) -> Job:
        path = tmp / f"{config['name']}.json"
        path.write_text(json.dumps(config))
        out = tmp / f"out-{config['name']}"
        n = ranks if ranks is not None else config["platform"]["nodes"] + 1
        command = ["mpirun", "--oversubscribe", "-np", str(n)]
        if os.geteuid() == 0:
            command.insert(1, "--allow-run-as-root")
        full_env = dict(os.environ, **(env or {}))
        for key in (env or {}):
            command += ["-x", key]
        command += [str(BINARY), "run", "--backend", "mpi", str(path), "-o", str(out), *extra]
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=full_env)
        results_file = out / "results.json"
        results = json.loads(results_file.read_text()) if results_file.exists() else None
        return Job(proc, results)

    return run


def run_simgrid(config: dict, tmp: pathlib.Path) -> dict:
    path = tmp / f"{config['name']}-sim.json"
    path.write_text(json.dumps(config))
    out = tmp / f"sim-{config['name']}"
    proc = subprocess.run([str(BINARY), "run", str(path), "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads((out / "results.json").read_text())


def pytest_configure(config):
    config.addinivalue_line("markers", "campaign: the seeded MPI failure campaign (ctest label campaign)")
