"""buddy's levels (/protocol/levels; docs/multilevel.md, "Levels in buddy"): every k-th checkpoint
also on the node's own storage or on stable storage, written as the data are produced; a restart
takes the newest checkpoint a surviving level holds, so a rack failure that takes nodes with their
buddies is recovered from stable storage, and a process failure from the node's own disk."""
import json

import pytest
from conftest import run_config as run

# 16 nodes, racks of 4, buddy (n + 1) mod 16: a rack failure takes 3 nodes with their buddies.
BASE = {
    "seed": 3,
    "application": {"type": "stencil", "tiles": [8, 8], "tile_size": 256, "iterations": 40},
    "platform": {"nodes": 16, "cores_per_node": 2, "core_gflops": 5, "group_size": 4,
                 "storage": {"hosts": 4, "bandwidth": "10GB/s"}, "local_storage": {"bandwidth": "2GB/s"}},
    "checkpoints": {"count": 8, "buddy": "next"},
}
STABLE = {"type": "buddy", "levels": [{"storage": "buddy"}, {"storage": "stable", "every": 2}]}
LOCAL = {"type": "buddy", "levels": [{"storage": "local", "every": 1}, {"storage": "buddy"}]}


def config_with(protocol, events=None):
    config = json.loads(json.dumps(BASE))
    config["name"] = "buddy-levels"
    config["protocol"] = protocol
    if events:
        config["failures"] = {"model": "list", "events": events, "downtime": "100us", "detection": "50us"}
    return config


def test_a_rack_failure_is_recovered_from_stable_storage(ftsim, tmp_path):
    rack = [{"time": "15ms", "node": 1, "class": "group"}]
    result, r, _ = run(ftsim, tmp_path, config_with({"type": "buddy"}, rack), "alone")
    assert result.returncode == 1 and "every one of its buddies had lost" in r["failure_reason"]
    result, r, _ = run(ftsim, tmp_path, config_with(STABLE, rack), "stable")
    assert result.returncode == 0, r["failure_reason"]
    assert r["oracle"]["ok"]
    points = {f["node"]: f["restart_point"] for f in r["failures"]}
    # Nodes 0, 1 and 2 lost their buddies (1, 2, 3) with them: stable storage; node 3's buddy (4) lives.
    assert [points[n] for n in (0, 1, 2)] == ["checkpoint 4 from stable storage"] * 3, points
    assert points[3].endswith("from a buddy") or points[3].endswith("from stable storage"), points
    assert r["bytes_sent"]["restore"] > 0


def test_a_process_failure_restores_from_the_nodes_own_disk(ftsim, tmp_path):
    result, r, _ = run(ftsim, tmp_path, config_with(LOCAL, [{"time": "15ms", "node": 1, "class": "process"}]), "process")
    assert result.returncode == 0 and r["oracle"]["ok"], r["failure_reason"]
    assert [f["restart_point"] for f in r["failures"]] == ["checkpoint 5 from local storage"]
    assert r["bytes_sent"]["restore"] == 0  # no network: the node's disk
    # A node failure wipes the disk: the buddy's copy.
    result, r, _ = run(ftsim, tmp_path, config_with(LOCAL, [{"time": "15ms", "node": 1, "class": "node"}]), "node")
    assert result.returncode == 0 and r["oracle"]["ok"], r["failure_reason"]
    assert [f["restart_point"] for f in r["failures"]] == ["checkpoint 5 from a buddy"]
    assert r["bytes_sent"]["restore"] > 0


def test_a_job_failure_restarts_every_node_from_stable_storage(ftsim, tmp_path):
    result, r, _ = run(ftsim, tmp_path, config_with(STABLE, [{"time": "15ms", "node": 1, "class": "job"}]), "job")
    assert result.returncode == 0 and r["oracle"]["ok"], r["failure_reason"]
    assert len(r["failures"]) == 16
    assert {f["restart_point"] for f in r["failures"]} == {"checkpoint 4 from stable storage"}


def test_a_level_writes_the_whole_state_at_every_kth_cut(ftsim, tmp_path):
    # Against the graph alone: stable every 2 of 8 checkpoints writes 4 times every datum (the
    # stencil modifies all of them between two cuts), plus 8-byte manifests.
    _, plain, _ = run(ftsim, tmp_path, config_with({"type": "buddy"}), "plain")
    _, levels, _ = run(ftsim, tmp_path, config_with(STABLE), "levels")
    path = tmp_path / "graph.json"
    (tmp_path / "c.json").write_text(json.dumps(config_with(STABLE)))
    assert ftsim("graph", tmp_path / "c.json", "--json", path).returncode == 0
    state = sum(d["bytes"] for d in json.loads(path.read_text())["data"])
    manifests = levels["bytes_sent"]["checkpoint"] - plain["bytes_sent"]["checkpoint"] - 4 * state
    # At least one per node and level checkpoint, another when an erasure changes its oldest kept.
    assert manifests % 8 == 0 and 4 * 16 <= manifests // 8 <= 2 * 4 * 16, manifests
    # Written in the background: the application's bytes and the checkpoints do not change.
    assert levels["bytes_sent"]["application"] == plain["bytes_sent"]["application"]
    assert [c["bytes"] for c in levels["checkpoints"]] == [c["bytes"] for c in plain["checkpoints"]]


@pytest.mark.parametrize("levels, path, words", [
    ([{"storage": "buddy"}, {"storage": "xor", "group": 4, "every": 1}], "/protocol/levels/1/storage", "global only"),
    ([{"storage": "stable", "every": 2}], "/protocol/levels", "\"buddy\" required"),
    ([{"storage": "buddy"}, {"storage": "local", "every": 1}], "/protocol/levels/1/storage", "in this order"),
    ([{"storage": "buddy"}, {"storage": "stable"}], "/protocol/levels/1", "every"),
    ([{"storage": "buddy", "every": 2}], "/protocol/levels/0/every", "every checkpoint"),
    (LOCAL["levels"], "/protocol/levels/0", "/platform/local_storage"),  # without local storage
])
def test_bad_levels_name_their_path(ftsim, tmp_path, levels, path, words):
    config = config_with({"type": "buddy", "levels": levels})
    if levels is LOCAL["levels"]:
        del config["platform"]["local_storage"]
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(config))
    result = ftsim("validate", file)
    assert result.returncode != 0
    assert path in result.stderr and words in result.stderr, result.stderr


def test_a_node_restored_from_its_buddy_rolls_back_to_its_level_checkpoint(ftsim, tmp_path):
    # Rack {4..7} fails: nodes 4, 5 and 6 restore checkpoint 4 from stable storage (their buddies are
    # in the rack), node 7 checkpoint 6 from its buddy 8. Node 6 needs a version node 7 wrote in
    # section 4 and replaced in section 5: node 7 rolls back to checkpoint 4, which holds it, from
    # stable storage. (Lion 2022 §3.5's bound, "before the version's writer", asked for checkpoint
    # 3, which no level kept: the run ended unrecoverable.)
    config = config_with({"type": "buddy", "levels": [{"storage": "buddy"}, {"storage": "stable", "every": 4}]},
                         [{"time": "17.857958ms", "node": 6, "class": "group"}])
    config["seed"] = 2026
    config["platform"]["storage"] = {"hosts": 4}
    del config["platform"]["local_storage"]
    result, r, out = run(ftsim, tmp_path, config, "cascade", "--log", "protocol")
    assert result.returncode == 0 and r["oracle"]["ok"], r["failure_reason"]
    log = (out / "events.log").read_text()
    assert "process 7    rolls back to checkpoint 4 or earlier: node 6 needs versions" in log
    assert "process 7    restarted from checkpoint 4 from stable storage" in log
