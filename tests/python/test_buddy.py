"""The buddy protocol, failure-free part (Lion & Thibault 2020 §V, Lion 2022 §2.4-2.5): the timed
simulation saves exactly what the analytic volumes say, per node; checkpoints complete; a failure
ends the run with an explicit reason while the local restart is not built."""
import json

import pytest

CONFIG = {
    "name": "buddy-small", "seed": 7,
    "application": {"type": "cholesky", "tiles": 8, "tile_size": 256, "order": "column"},
    "distribution": {"type": "block-cyclic", "P": 2, "Q": 2},
    "platform": {"nodes": 4, "cores_per_node": 4, "core_gflops": {"POTRF": 10, "TRSM": 20, "SYRK": 25, "GEMM": 30}},
    "checkpoints": {"count": 3, "buddy": "next"},
    "protocol": {"type": "buddy"},
}


def write(tmp_path, config):
    path = tmp_path / f"{config['name']}.json"
    path.write_text(json.dumps(config))
    return path


@pytest.mark.parametrize("buddy,count", [("next", 3), ("next-in-row", 3), ("next", 6), ("next-in-column", 1)])
def test_saves_match_the_analytic_volumes(ftsim, tmp_path, buddy, count):
    config = dict(CONFIG, checkpoints={"count": count, "buddy": buddy})
    path = write(tmp_path, config)
    run = ftsim("run", path, "-o", tmp_path / "out")
    assert run.returncode == 0, run.stdout + run.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    volumes = ftsim("volumes", path, "--json", tmp_path / "v.json")
    assert volumes.returncode == 0, volumes.stderr
    placement = json.loads((tmp_path / "v.json").read_text())["placements"][0]
    starpu = results["starpu"]
    # Sent saves = the cached-any column (a save is free when the buddy receives the version for
    # its computation at all); sent + spared by the cache = the differential column.
    assert starpu["CP_DATA_NORMAL_TOTAL_SIZE"] == placement["cached_any"]["total"]
    assert starpu["CP_DATA_NORMAL_TOTAL_SIZE"] + starpu["CP_DATA_CACHED_SIZE"] == placement["differential"]["total"]
    assert starpu["CP_DATA_NORMAL_COUNT"] + starpu["CP_DATA_CACHED_COUNT"] == placement["saves"]
    assert starpu["CP_DATA_CACHED_COUNT"] >= placement["saves_spared_by_cache"]
    # Per node, the checkpoint traffic is the node's sent saves (plus 32-byte envelopes).
    for node, sent in enumerate(placement["cached_any"]["per_node"]):
        got = results["nodes"][node]["bytes_sent"]["checkpoint"]
        assert sent <= got <= sent + 64 * results["nodes"][node]["messages_sent"]["checkpoint"]
    # Every checkpoint completes, in order, and the oracle holds.
    assert results["complete"] and results["oracle"]["ok"]
    assert [c["id"] for c in results["checkpoints"]] == list(range(1, count + 1))
    assert all(c["started"] <= c["saved"] <= c["committed"] for c in results["checkpoints"])
    assert results["starpu"]["IN_MEM_CP_DATA_TOTAL"] == placement["differential"]["total"]


def test_buddy_needs_checkpoints(ftsim, tmp_path):
    config = {k: v for k, v in CONFIG.items() if k != "checkpoints"}
    run = ftsim("validate", write(tmp_path, config))
    assert run.returncode == 2
    assert "/protocol" in run.stderr and "/checkpoints" in run.stderr


def test_a_failure_ends_the_run_with_the_reason(ftsim, tmp_path):
    config = dict(CONFIG, failures={"model": "list", "events": [{"node": 1, "time": "5 ms"}], "detection": "1 ms"})
    run = ftsim("run", write(tmp_path, config), "-o", tmp_path / "out")
    assert run.returncode == 1
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert "local restart" in results["failure_reason"] and "not built" in results["failure_reason"]
