"""CCK checkpoints after a recovery save what they saved before it (Besseron 2006 Definition 2: a
checkpoint is the tasks and their inputs). A survivor re-executes T^p (§3.5.4) only to send the lost
data again (C_total^p): the versions those re-executions produce again had already been overwritten
on the node by newer ones. They are no task's input any more and must not be saved: checkpoint c,
taken at the graph cut c, holds the same state whether or not a failure came before it. (The bug:
every checkpoint after a recovery was larger, about +16 MB per failure on this stencil, and slower,
for the rest of the run.)"""
import json

import pytest

CONFIG = {
    "name": "cck-checkpoint-size",
    "application": {"type": "stencil", "tiles": [8, 8], "tile_size": 256, "iterations": 200},
    "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": 5, "storage": {"hosts": 1, "bandwidth": "2GB/s"}},
    "checkpoints": {"every": 4, "buddy": "next"},
    "protocol": {"type": "cck", "at": "cuts"},
}

ONE_FAILURE = [{"time": 0.759, "node": 2}]
THREE_FAILURES = [{"time": 0.3, "node": 1}, {"time": 0.5, "node": 3}, {"time": 0.759, "node": 2}]


def run(ftsim, tmp_path, name, config):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(dict(config, name=name)))
    out = tmp_path / name
    result = ftsim("run", path, "-o", out)
    assert result.returncode == 0, result.stdout + result.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["complete"] and results["oracle"]["ok"], results["failure_reason"]
    return results


@pytest.mark.parametrize("events", [ONE_FAILURE, THREE_FAILURES], ids=["one-failure", "three-failures"])
@pytest.mark.parametrize("protocol", [
    {"type": "cck", "at": "cuts"},
    {"type": "cck", "at": "cuts", "flush": "all"},
    {"type": "cck", "at": "cuts", "reexecution": {"keep_in_memory": True}},
], ids=["neighbours", "flush-all", "keep-in-memory"])
def test_checkpoints_after_a_recovery_are_no_larger(ftsim, tmp_path, events, protocol):
    base = dict(CONFIG, protocol=protocol)
    reference = run(ftsim, tmp_path, "failure-free", base)
    expected = {c["id"]: c["bytes"] for c in reference["checkpoints"]}
    assert len(expected) == 49 and len(set(expected.values())) == 1  # the stencil's state is the same size at every cut

    failed = run(ftsim, tmp_path, "failures", dict(base, failures={"model": "list", "events": events, "downtime": "1ms"}))
    metrics = failed["protocol_metrics"]
    assert metrics["restarts"] == len(events)
    assert metrics["planned_reexecutions"] > 0  # the survivors did re-execute tasks
    last_failure = max(e["time"] for e in events)
    validated = [c for c in failed["checkpoints"] if not c["aborted"]]
    after = [c for c in validated if c["started"] > last_failure]
    assert len(after) >= 5
    # At the graph cut c the state is the failure-free run's: the same bytes, before and after the failures.
    assert {c["id"]: c["bytes"] for c in validated} == {c["id"]: expected[c["id"]] for c in validated}
    # So every checkpoint after the recovery takes as long as one before the failures.
    durations = [b["committed"] - a["committed"] for a, b in zip(after, after[1:])]
    reference_period = max(b["committed"] - a["committed"]
                           for a, b in zip(reference["checkpoints"], reference["checkpoints"][1:]))
    assert max(durations) <= reference_period * 1.01
    # And no node saves more in the run than without the failures.
    for node, reference_node in zip(failed["nodes"], reference["nodes"]):
        assert node["bytes_sent"]["checkpoint"] <= reference_node["bytes_sent"]["checkpoint"]
