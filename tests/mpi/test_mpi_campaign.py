"""Failure campaign on MPI: for each protocol, 20 seeded failure points (a random node failing at a
random task count or a random wall-clock time, random detection and downtime), on the three
applications in turn. Every run must recover, bit-exact and numerically right."""
import random

import pytest

from conftest import APPS, PROTOCOLS, base_config, with_protocol

SEEDS = range(20)
# Task executions of one node in a failure-free run of each configs/mpi application (at least).
TASKS_PER_NODE = {"cholesky": 8, "stencil": 96, "cg": 240}


def scenario(protocol: str, seed: int) -> dict:
    rng = random.Random(f"{protocol}-{seed}")
    app = APPS[seed % len(APPS)]
    config = with_protocol(base_config(app), protocol)
    config["name"] += f"-campaign-{seed}"
    config["seed"] = 1000 + seed
    node = rng.randrange(config["platform"]["nodes"])
    if seed % 2 == 0:
        event = {"node": node, "after_tasks": rng.randint(1, TASKS_PER_NODE[app])}
    else:
        event = {"node": node, "time": f"{rng.uniform(0.0005, 0.02):.6f} s"}
    config["failures"] = {"model": "list", "events": [event],
                          "detection": f"{rng.uniform(0, 0.003):.6f} s", "downtime": f"{rng.uniform(0, 0.004):.6f} s"}
    return config


@pytest.mark.campaign
@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("seed", SEEDS)
def test_seeded_failure(mpirun, tmp_path, protocol, seed):
    config = scenario(protocol, seed)
    job = mpirun(config, tmp_path)
    assert job.proc.returncode == 0, f"{config['failures']}\n{job.output}"
    r = job.results
    assert r["complete"] and r["oracle"]["ok"]
    v = r["mpi"]["verification"]
    assert v["bit_exact"] and v["numeric_ok"], job.output
    # A failure at a task count always happens; one at a time may come after the end of a short run.
    if "after_tasks" in config["failures"]["events"][0]:
        assert len(r["failures"]) == 1
    for failure in r["failures"]:
        assert failure["recovered_at"] >= failure["time"]
