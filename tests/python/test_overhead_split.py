"""The overhead split (docs/results.md, reference): with /run/reference, a run with failures also runs its protocol
without them, and reports what checkpointing costs and what the failures cost; the two add up to the overhead."""
import json

import pytest


def buddy_config(failures=True):
    document = {
        "name": "split",
        "application": {"type": "stencil", "tiles": [4, 4], "tile_size": 256, "iterations": 12},
        "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": 2,
                     "network": {"topology": "star", "bandwidth": "10Gbps", "latency": "5us"}},
        "checkpoints": {"count": 3, "buddy": "next"},
        "protocol": {"type": "buddy"},
        "run": {"reference": True},
    }
    if failures:
        document["failures"] = {"model": "list", "events": [{"node": 2, "after_tasks": 30}, {"node": 0, "after_tasks": 70}]}
    return document


def run(ftsim, tmp_path, document, name):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(document))
    result = ftsim("run", path, "-o", tmp_path / name)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads((tmp_path / name / "results.json").read_text()), result.stdout


def test_checkpointing_and_failures_add_up_to_the_overhead(ftsim, tmp_path):
    results, summary = run(ftsim, tmp_path, buddy_config(), "with")
    reference = results["reference"]
    assert len(results["failures"]) == 2
    assert reference["checkpointing"] + reference["failures"] == pytest.approx(reference["overhead"], abs=1e-9)
    assert reference["failures"] > 0 and reference["checkpointing"] > 0
    # checkpointing is the overhead of the same config without failures.
    without, _ = run(ftsim, tmp_path, buddy_config(failures=False), "without")
    assert reference["protocol_makespan"] == without["makespan"]
    assert reference["checkpointing"] == pytest.approx(without["reference"]["overhead"], abs=1e-12)
    assert without["reference"]["failures"] == 0
    assert without["reference"]["checkpointing"] == pytest.approx(without["reference"]["overhead"], abs=1e-12)
    assert "overhead: checkpointing" in summary and "overhead: failures" in summary


def test_under_none_the_protocol_run_is_the_reference(ftsim, tmp_path):
    document = buddy_config()
    document["protocol"] = {"type": "none"}
    results, _ = run(ftsim, tmp_path, document, "none")
    reference = results["reference"]
    assert reference["protocol_makespan"] == reference["makespan"]
    assert reference["checkpointing"] == 0 and reference["failures"] == pytest.approx(reference["overhead"])


def test_without_reference_there_is_no_split(ftsim, tmp_path):
    document = buddy_config()
    del document["run"]
    results, summary = run(ftsim, tmp_path, document, "plain")
    assert results["reference"] is None
    assert "/run/reference splits the overhead" in summary


@pytest.mark.parametrize("protocol", [{"type": "none"}, {"type": "global", "period": "20ms", "storage": "stable"}])
def test_failures_after_the_end_change_nothing(ftsim, tmp_path, source_dir, protocol):
    # A failure scheduled after the job ends must not change the run: the split then says that the
    # failures cost exactly 0. (SimGrid's timer heap used to break ties between simultaneous task
    # ends by its structure, which one more timer changed: 0.02% on this config, 0.19% with
    # exponential failures after the end.)
    document = json.loads((source_dir / "configs" / "quickstart.json").read_text())
    document["protocol"] = protocol
    document["platform"]["storage"] = {"hosts": 1, "bandwidth": "10GB/s"}
    document["failures"] = {"model": "list", "events": [{"node": 1, "time": "100 s"}]}
    results, _ = run(ftsim, tmp_path, document, "late")
    assert results["failures"] == []
    assert results["makespan"] == results["reference"]["protocol_makespan"]
    assert results["reference"]["failures"] == 0.0
