"""`ftsim run CONFIG --checkpoint-trace FILE`: the run's data messages and local checkpoints per node, up to the
first failure, in the ftsim-trace format that `ftsim analyze` reads (docs/trace-format.md), for every protocol."""
import json

import pytest

PROTOCOLS = {
    "none": {"type": "none"},
    "global": {"type": "global", "at": "cuts", "storage": "buddy"},
    "lineage": {"type": "lineage"},
    "buddy": {"type": "buddy"},
}


def config(protocol, failure=True, after_tasks=30):
    document = {
        "name": f"trace-{protocol}",
        "application": {"type": "stencil", "tiles": [4, 4], "tile_size": 64, "iterations": 12},
        "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": 2,
                     "network": {"topology": "star", "bandwidth": "10Gbps", "latency": "5us"}},
        "checkpoints": {"count": 3, "buddy": "next"},
        "protocol": PROTOCOLS[protocol],
    }
    if failure:
        document["failures"] = {"model": "list", "events": [{"node": 2, "after_tasks": after_tasks}]}
    return document


def run_with_trace(ftsim, tmp_path, document):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(document))
    trace = tmp_path / "trace.json"
    result = ftsim("run", path, "-o", tmp_path / "out", "--checkpoint-trace", trace)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(trace.read_text()), trace


@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
def test_every_protocol_writes_a_trace_that_analyze_reads(ftsim, tmp_path, protocol):
    trace, path = run_with_trace(ftsim, tmp_path, config(protocol))
    assert trace["format"] == "ftsim-trace" and trace["version"] == 1
    assert len(trace["processes"]) == 4
    assert trace["metadata"]["failed"] == [2]
    assert trace["metadata"]["protocol"] == protocol
    sends = [e for p in trace["processes"] for e in p["events"] if "send" in e]
    receives = [e for p in trace["processes"] for e in p["events"] if "receive" in e]
    assert sends and receives and len(receives) <= len(sends)
    # Nothing after the first failure.
    times = [e["time"] for p in trace["processes"] for e in p["events"]]
    assert max(times) <= trace["metadata"]["failure_time"]
    analysis = ftsim("analyze", path, "--failed", "2", "--determinism", "send", "--json", tmp_path / "line.json")
    assert analysis.returncode == 0, analysis.stdout + analysis.stderr
    line = json.loads((tmp_path / "line.json").read_text())
    assert len(line["recovery_line"]) == 4
    assert line["recovery_line"][2] is not None  # the failed node restarts from one of its checkpoints


def test_a_coordinated_checkpoint_is_a_consistent_cut(ftsim, tmp_path):
    # global flushes the channels before every node saves: checkpoint k of every node together
    # is consistent, so when the failed node restarts from its last complete one, no survivor
    # must roll back beyond that checkpoint.
    trace, path = run_with_trace(ftsim, tmp_path, config("global", after_tasks=40))
    counts = [sum(1 for e in p["events"] if "checkpoint" in e) for p in trace["processes"]]
    assert min(counts) >= 1 and max(counts) - min(counts) <= 1, counts
    analysis = ftsim("analyze", path, "--failed", "2", "--determinism", "piecewise", "--json", tmp_path / "line.json")
    assert analysis.returncode == 0, analysis.stderr
    line = json.loads((tmp_path / "line.json").read_text())["recovery_line"]
    complete = min(counts)
    assert line[2] is not None and line[2] >= complete - 1
    for restart in line:
        assert restart is None or restart >= complete - 1, line


def test_buddy_messages_are_logged_and_a_run_without_failure_is_whole(ftsim, tmp_path):
    trace, _ = run_with_trace(ftsim, tmp_path, config("buddy", failure=False))
    assert trace["metadata"]["failed"] == [] and trace["metadata"]["failure_time"] is None
    sends = [e for p in trace["processes"] for e in p["events"] if "send" in e]
    assert sends and all(e.get("logged") for e in sends)  # buddy logs every application message (Lion 2022 §3.3)
    assert all(sum(1 for e in p["events"] if "checkpoint" in e) == 3 for p in trace["processes"])


def test_the_mpi_backend_refuses_it(ftsim, tmp_path, source_dir):
    result = ftsim("run", source_dir / "configs" / "mpi" / "cholesky-global.json", "--backend", "mpi",
                   "--checkpoint-trace", tmp_path / "t.json")
    assert result.returncode != 0
