"""One rule on both backends for a message that reaches a rank naming another incarnation than
the one running (sim/world/rank_lifecycle.hpp, docs/mpi.md): kept for the replacement or a later
incarnation, dropped for a gone one. The simulation and the MPI rank process run the same
RankLifecycle; FTSIM_TEST_TRACE_LIFECYCLE=1 makes it write every message it keeps or drops, and
this test reads those lines from a simulation and from an MPI run of the same job."""
import json
import os
import re
import subprocess

import pytest

from conftest import BINARY, base_config, with_protocol

LINE = re.compile(r"ftsim lifecycle: rank (\d+) incarnation (\d+) (up|down): (kept|dropped) a message from (\d+) "
                  r"naming incarnation (any|\d+)")


def verdicts(output: str):
    found = []
    for match in LINE.finditer(output):
        rank, incarnation, state, verdict, _, named = match.groups()
        found.append((int(rank), int(incarnation), state, verdict, None if named == "any" else int(named)))
    return found


def assert_the_rule(found, output):
    for rank, incarnation, state, verdict, named in found:
        gone = named is not None and named < incarnation
        # A running host takes any or its own incarnation's: the rule is asked only about others.
        if state == "up":
            assert named is not None and named != incarnation, output
        assert verdict == ("dropped" if gone else "kept"), (rank, incarnation, state, verdict, named)


def lineage_job(name):
    # Node 1 fails twice; the survivors re-send its data to its replacement, addressed to the
    # incarnation they heard of (lineage), while it is down (detection well before the downtime ends).
    config = with_protocol(base_config("cholesky"), "lineage")
    config["name"] = name
    config["failures"]["events"] = [{"node": 1, "after_tasks": 3}, {"node": 1, "after_tasks": 8}]
    config["failures"]["detection"] = "1 ms"
    config["failures"]["downtime"] = "20 ms"
    config["run"] = {"wall_limit": "20 s"}
    return config


def test_simulation_and_mpi_keep_and_drop_by_the_same_rule(mpirun, tmp_path):
    config = lineage_job("stale-messages")
    path = tmp_path / "sim.json"
    path.write_text(json.dumps(config))
    sim = subprocess.run([str(BINARY), "run", str(path), "-o", str(tmp_path / "sim")], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ, FTSIM_TEST_TRACE_LIFECYCLE="1"))
    assert sim.returncode == 0, sim.stdout + sim.stderr
    simulated = verdicts(sim.stderr)
    # On MPI the victims take their fail orders late, as on a loaded machine: messages for a
    # later incarnation reach a victim that still runs.
    job = mpirun(config, tmp_path, env={"FTSIM_TEST_TRACE_LIFECYCLE": "1", "FTSIM_TEST_FAIL_ORDER_DELAY": "0.003"},
                 timeout=120)
    assert job.proc.returncode == 0, job.output
    assert job.results["complete"] and job.results["oracle"]["ok"], job.output
    executed = verdicts(job.output)
    for found, output in ((simulated, sim.stderr), (executed, job.output)):
        assert_the_rule(found, output)
        # Both backends kept messages for a replacement while its rank was down.
        assert any(state == "down" and verdict == "kept" for _, _, state, verdict, _ in found), output
    # The simulation is deterministic: there the survivors address the first replacement after it
    # failed too (before they hear of it), and those messages are dropped.
    assert any(verdict == "dropped" for _, _, _, verdict, _ in simulated), sim.stderr
