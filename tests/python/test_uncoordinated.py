"""The uncoordinated protocol (Guermouche et al. 2011) from the command line: the domino effect of
classic uncoordinated checkpointing (configs/examples/uncoordinated-domino.json), the same seed under
the send-deterministic logging and under pessimistic logging, and a run's checkpoint trace that
`ftsim analyze` reads into the recovery line the protocol chose (the campaign checks that on 306 runs:
tests/campaign/uncoordinated_campaign_test.cpp)."""
import json

import pytest

DOMINO = "configs/examples/uncoordinated-domino.json"


def run_mode(ftsim, tmp_path, source_dir, logging, trace=False):
    config = json.loads((source_dir / DOMINO).read_text())
    config["protocol"]["logging"] = logging
    path = tmp_path / f"{logging}.json"
    path.write_text(json.dumps(config))
    out = tmp_path / f"out-{logging}"
    args = ["run", path, "-o", out, "--log", "protocol"]
    if trace:
        args += ["--checkpoint-trace", tmp_path / f"{logging}-trace.json"]
    result = ftsim(*args)
    assert result.returncode == 0, result.stdout + result.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["complete"] and results["oracle"]["ok"]
    line = next(l for l in (out / "events.log").read_text().splitlines() if "recovery line round" in l)
    restarts = line.split(" checkpoints ")[1].split()
    return results, restarts


def test_the_domino_effect_without_logging(ftsim, tmp_path, source_dir):
    results, restarts = run_mode(ftsim, tmp_path, source_dir, "none")
    # Every process back to its start (checkpoint 0), and the run still ends right.
    assert restarts == ["0"] * 16
    failure = results["failures"][0]
    assert failure["processes_rolled_back"] == 16 and failure["restart_point"] == "from scratch"
    assert results["protocol_metrics"]["messages_logged"] == 0


def test_send_deterministic_logging_rolls_back_only_part(ftsim, tmp_path, source_dir):
    results, restarts = run_mode(ftsim, tmp_path, source_dir, "send-deterministic")
    rolled_back = [r for r in restarts if r != "-"]
    assert 1 <= len(rolled_back) < 16, restarts
    assert any(r != "0" for r in rolled_back), "the failed node restarts from a checkpoint, not from its start"
    assert results["failures"][0]["processes_rolled_back"] == len(rolled_back)
    metrics = results["protocol_metrics"]
    assert 0 < metrics["messages_logged"] < metrics["data_messages"]


def test_pessimistic_logging_rolls_back_the_failed_node_only(ftsim, tmp_path, source_dir):
    results, restarts = run_mode(ftsim, tmp_path, source_dir, "all")
    failed = results["failures"][0]["node"]
    assert [i for i, r in enumerate(restarts) if r != "-"] == [failed]
    metrics = results["protocol_metrics"]
    assert metrics["messages_logged"] == metrics["data_messages"]
    survivors = [n["reexecutions"] for i, n in enumerate(results["nodes"]) if i != failed]
    assert survivors == [0] * 15


@pytest.mark.parametrize("logging,rule", [("send-deterministic", "send"), ("none", "piecewise"), ("all", "send")])
def test_analyze_recomputes_the_protocols_line_from_its_trace(ftsim, tmp_path, source_dir, logging, rule):
    _, restarts = run_mode(ftsim, tmp_path, source_dir, logging, trace=True)
    trace_path = tmp_path / f"{logging}-trace.json"
    trace = json.loads(trace_path.read_text())
    assert trace["metadata"]["protocol"] == "uncoordinated" and trace["metadata"]["failed"] == [5]
    out = tmp_path / f"{logging}-line.json"
    result = ftsim("analyze", trace_path, "--failed", "5", "--determinism", rule, "--json", out)
    assert result.returncode == 0, result.stderr
    offline = json.loads(out.read_text())["recovery_line"]
    assert offline == [None if r == "-" else int(r) for r in restarts]
