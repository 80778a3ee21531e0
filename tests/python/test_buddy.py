"""The buddy protocol, failure-free part (Lion & Thibault 2020 §V, Lion 2022 §2.4-2.5): the timed
simulation saves exactly what the analytic volumes say, per node; checkpoints complete; a failure
ends the run with an explicit reason while the local restart is not built."""
import json
import random

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


APPS = {
    "cholesky": {"type": "cholesky", "tiles": 8, "tile_size": 128, "order": "column"},
    "stencil": {"type": "stencil", "tiles": [4, 4], "tile_size": [64, 64], "iterations": 10},
    "cg": {"type": "cg", "grid": 64, "blocks": 8, "iterations": 8},
}
# Reasons a run may end without recovering (exit 1), and only with two failures or more.
NOT_RECOVERABLE = ("unrecoverable: node",)


def small(app, **extra):
    config = {"name": f"buddy-{app}", "application": APPS[app],
              "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": {"default": 2}},
              "checkpoints": {"count": 3, "buddy": "next"}, "protocol": {"type": "buddy"}}
    config.update(extra)
    return config


def run_json(ftsim, tmp_path, config):
    path = write(tmp_path, config)
    run = ftsim("run", path, "-o", tmp_path / "out")
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    return run, results


@pytest.mark.parametrize("app", sorted(APPS))
def test_failure_campaign(ftsim, tmp_path, app):
    # 100 seeded scenarios per application: one to two failures at random times (up to 1.1 x the
    # failure-free makespan, the second often during the first's recovery), random detection and
    # downtime. Every run recovers with the digest oracle holding and no survivor re-executing
    # anything, or (two failures only) ends with exit 1 and one of the reasons above.
    _, free = run_json(ftsim, tmp_path, small(app))
    makespan = free["makespan"]
    recovered = 0
    for seed in range(100):
        rng = random.Random(seed)
        events = [{"node": rng.randrange(4), "time": f"{rng.uniform(0, 1.1 * makespan):.9f} s"}
                  for _ in range(rng.choice([1, 1, 1, 2]))]
        config = small(app, seed=seed, failures={
            "model": "list", "events": events,
            "detection": f"{rng.uniform(0, 0.05 * makespan):.9f} s", "downtime": f"{rng.uniform(0, 0.05 * makespan):.9f} s"})
        run, r = run_json(ftsim, tmp_path, config)
        where = f"{app} seed {seed} {events}"
        if not r["complete"]:
            assert run.returncode == 1, where
            assert len(events) == 2 and any(reason in r["failure_reason"] for reason in NOT_RECOVERABLE), \
                f"{where}: {r['failure_reason']} {r['stall_report']}"
            continue
        assert run.returncode == 0 and r["oracle"]["ok"], where
        failed = {f["node"] for f in r["failures"]}
        assert all(n["reexecutions"] == 0 for i, n in enumerate(r["nodes"]) if i not in failed), where
        assert all(f["recovered_at"] >= f["time"] for f in r["failures"]), where
        recovered += bool(r["failures"])
    assert recovered >= 60


def test_recovery_is_local_and_reported(ftsim, tmp_path):
    config = small("cholesky", failures={"model": "list", "events": [{"node": 1, "time": "20 ms"}],
                                         "detection": "1 ms", "downtime": "1 ms"})
    run, r = run_json(ftsim, tmp_path, config)
    assert run.returncode == 0 and r["oracle"]["ok"], run.stdout
    f = r["failures"][0]
    assert f["restart_point"].startswith("checkpoint ")
    assert f["processes_rolled_back"] == 1 and f["messages_replayed"] > 0 and f["bytes_replayed"] > 0
    assert r["nodes"][1]["reexecutions"] > 0
    assert [n["reexecutions"] for i, n in enumerate(r["nodes"]) if i != 1] == [0, 0, 0]
    assert r["nodes"][1]["restarts"] == 1
    assert sum(n["bytes_sent"]["restore"] for n in r["nodes"]) > 0
    # Traces: a span per checkpoint and node, a restore span on node 1, a replay span on survivors.
    run = ftsim("run", write(tmp_path, config), "-o", tmp_path / "traced", "--trace")
    trace = json.loads((tmp_path / "traced" / "trace.json").read_text())
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    spans = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("checkpoint", "recovery")]
    names = {e["name"] for e in spans}
    assert {"checkpoint 1", "checkpoint 2", "checkpoint 3", "replay to node 1"} <= names, names
    assert any(n.startswith("restore checkpoint ") for n in names), names
    assert all(e["dur"] > 0 for e in spans if e["name"] == "replay to node 1")


def test_a_node_and_its_only_buddy_is_unrecoverable_two_buddies_recover(ftsim, tmp_path):
    # Nodes 1 and 2 fail together; the buddy of node 1 is node 2.
    failures = {"model": "list", "events": [{"node": 1, "time": "20 ms"}, {"node": 2, "time": "20 ms"}],
                "detection": "1 ms", "downtime": "1 ms"}
    run, r = run_json(ftsim, tmp_path, small("cholesky", failures=failures))
    assert run.returncode == 1
    assert "unrecoverable: node 1" in r["failure_reason"] and "buddies" in r["failure_reason"]
    # With a second buddy (node 1 -> 2 and 3), node 3 still holds node 1's checkpoint.
    two = small("cholesky", failures=failures, checkpoints={"count": 3, "buddy": [[1, 2], [2, 3], [3, 0], [0, 1]]})
    run, r = run_json(ftsim, tmp_path, two)
    assert run.returncode == 0 and r["complete"] and r["oracle"]["ok"], r["failure_reason"]
    assert {f["node"] for f in r["failures"]} == {1, 2}


def test_a_replaced_buddy_is_protected_again(ftsim, tmp_path):
    # Node 2, the only buddy of node 1, fails first: its replacement holds nothing of node 1, and
    # node 1's later checkpoints are differential. Node 1 sends it the full state of a checkpoint
    # again; when node 1 fails later, it restarts from a checkpoint its replaced buddy sends back.
    failures = {"model": "list", "events": [{"node": 2, "time": "8 ms"}, {"node": 1, "time": "30 ms"}],
                "detection": "1 ms", "downtime": "1 ms"}
    run, r = run_json(ftsim, tmp_path, small("cholesky", failures=failures))
    assert run.returncode == 0 and r["complete"] and r["oracle"]["ok"], r["failure_reason"]
    second = r["failures"][1]
    assert second["node"] == 1 and second["restart_point"].startswith("checkpoint ")
    assert [n["reexecutions"] for n in (r["nodes"][0], r["nodes"][3])] == [0, 0]
    # The restore came from node 2, the replacement.
    assert r["nodes"][2]["bytes_sent"]["restore"] > 0


def test_the_log_is_collected_as_checkpoints_become_valid(ftsim, tmp_path):
    # Entries are dropped once their destination can no longer restart before their readers: the
    # peak is below the total. Cholesky sends only tiles it will not overwrite: no copy-on-write.
    run, r = run_json(ftsim, tmp_path, small("cholesky", checkpoints={"count": 6, "buddy": "next"}))
    assert run.returncode == 0
    for n in r["nodes"]:
        assert 0 < n["log_store"]["peak_bytes"] < n["log_store"]["total_bytes"]
        assert n["log_store"]["copies_peak_bytes"] == 0
    # A stencil overwrites the borders it sent: the log keeps those versions beside the new ones.
    run, r = run_json(ftsim, tmp_path, small("stencil"))
    assert run.returncode == 0 and r["log"]["copies_peak_bytes"] > 0


def test_options_cow_copy_cost_and_values(ftsim, tmp_path):
    _, base = run_json(ftsim, tmp_path, small("cholesky"))
    entries = base["starpu"]["CP_DATA_NORMAL_COUNT"] + base["starpu"]["CP_DATA_CACHED_COUNT"]
    busy = sum(n["busy_seconds"] for n in base["nodes"])
    # copy_cost: every entry a buddy receives (sent or cached) takes one of its cores that long.
    _, r = run_json(ftsim, tmp_path, small("cholesky", protocol={"type": "buddy", "copy_cost": "100us"}))
    assert sum(n["busy_seconds"] for n in r["nodes"]) == pytest.approx(busy + entries * 100e-6, rel=1e-9)
    assert r["makespan"] > base["makespan"]
    # value_bytes: one VALUE entry per checkpoint, node and buddy (4 nodes x 3 checkpoints).
    _, r = run_json(ftsim, tmp_path, small("cholesky", protocol={"type": "buddy", "value_bytes": "8B"}))
    assert r["starpu"]["CP_DATA_NORMAL_COUNT"] == base["starpu"]["CP_DATA_NORMAL_COUNT"] + 12
    assert r["starpu"]["CP_DATA_NORMAL_TOTAL_SIZE"] == base["starpu"]["CP_DATA_NORMAL_TOTAL_SIZE"] + 12 * 8
    # cow: the same saves, sent from a copy; with all three and failures, the oracle still holds.
    _, r = run_json(ftsim, tmp_path, small("cholesky", protocol={"type": "buddy", "cow": True}))
    assert r["starpu"]["CP_DATA_NORMAL_TOTAL_SIZE"] == base["starpu"]["CP_DATA_NORMAL_TOTAL_SIZE"]
    options = {"type": "buddy", "cow": True, "copy_cost": "20us", "value_bytes": "64B"}
    for app in APPS:
        _, free = run_json(ftsim, tmp_path, small(app, protocol=options))
        t = free["makespan"]
        failures = {"model": "list", "events": [{"node": 2, "time": f"{0.25 * t} s"}, {"node": 1, "time": f"{0.8 * t} s"}],
                    "detection": f"{0.01 * t} s", "downtime": f"{0.01 * t} s"}
        run, r = run_json(ftsim, tmp_path, small(app, failures=failures, protocol=options))
        assert run.returncode == 0 and r["oracle"]["ok"], (app, r["failure_reason"])
        assert len(r["failures"]) == 2 and all(f["recovered_at"] > 0 for f in r["failures"]), app


@pytest.mark.parametrize("option,value,message", [("cow", 1, "/protocol/cow"),
                                                  ("copy_cost", "-1 s", "/protocol/copy_cost"),
                                                  ("value_bytes", "lots", "/protocol/value_bytes"),
                                                  ("priority", "high", "/protocol")])
def test_bad_options_name_their_path(ftsim, tmp_path, option, value, message):
    config = small("cholesky", protocol={"type": "buddy", option: value})
    run = ftsim("run", write(tmp_path, config), "-o", tmp_path / "out")
    assert run.returncode == 2 and message in run.stderr, run.stderr


def test_the_cascade_rolls_back_a_restarted_producer(ftsim, tmp_path):
    # Lion 2022 §3.5, cascade rule: node 2 restarts at checkpoint 1, so its log before that cut is
    # gone; node 1 then fails before its first checkpoint and restarts from the job's input, which
    # needs versions node 2 wrote before its restart: node 2 rolls back too (2 processes rolled
    # back for the second failure) and its re-execution sends them again.
    failures = {"model": "list", "events": [{"node": 2, "time": "0.000618383 s"}, {"node": 1, "time": "0.000790970 s"}],
                "detection": "0.000031214 s", "downtime": "0.000034058 s"}
    run, r = run_json(ftsim, tmp_path, small("cg", seed=258, failures=failures))
    assert run.returncode == 0 and r["complete"] and r["oracle"]["ok"], r["failure_reason"]
    first, second = r["failures"]
    assert (first["node"], first["restart_point"], first["processes_rolled_back"]) == (2, "checkpoint 1", 1)
    assert (second["node"], second["restart_point"], second["processes_rolled_back"]) == (1, "from scratch", 2)
    assert [n["reexecutions"] for n in (r["nodes"][0], r["nodes"][3])] == [0, 0]


def test_three_restarts_at_once_end_at_once(ftsim, tmp_path):
    # Issue 19: three overlapping restarts livelocked (hundreds of MB of control messages). Nodes 0,
    # 1 and 3 fail at 0.2 ms, before any checkpoint is valid and before any log entry is dropped:
    # the exact ending is a restart of all three from the job's input (node 0's buddy 1 lost
    # nothing that a restart from the input needs), in well under a second.
    import time
    three = [{"node": 0, "time": "0.0002 s"}, {"node": 1, "time": "0.0002 s"}, {"node": 3, "time": "0.0002 s"}]
    start = time.monotonic()
    run, r = run_json(ftsim, tmp_path, small("cholesky", failures={"model": "list", "events": three}))
    assert time.monotonic() - start < 5
    assert run.returncode == 0 and r["complete"] and r["oracle"]["ok"], r["failure_reason"]
    assert [f["restart_point"] for f in r["failures"]] == ["from scratch"] * 3
    # Later, once checkpoints are valid and the logs collected, node 0 and its only buddy failing
    # together is unrecoverable: exit 1 at once, with the reason.
    late = [dict(e, time="25 ms") for e in three]
    start = time.monotonic()
    run, r = run_json(ftsim, tmp_path, small("cholesky", failures={"model": "list", "events": late}))
    assert time.monotonic() - start < 5
    assert run.returncode == 1, run.stdout
    reason = r["failure_reason"]  # node 0 (buddy 1) or node 3 (buddy 0), whichever decides first
    assert any(reason.startswith(f"unrecoverable: node {n} failed and every one of its buddies") for n in (0, 3)), reason
    # Sixteen nodes, three non-adjacent failures at once: recovered, oracle ok.
    sixteen = small("cholesky", failures={"model": "list", "events": [
        {"node": n, "time": "0.0002 s"} for n in (0, 5, 10)]})
    sixteen["platform"] = dict(sixteen["platform"], nodes=16)
    run, r = run_json(ftsim, tmp_path, sixteen)
    assert run.returncode == 0 and r["complete"] and r["oracle"]["ok"], r["failure_reason"]



def test_a_restore_keeps_no_stale_input_version(ftsim, tmp_path):
    # A restored checkpoint replaces the job's input of each datum it holds a newer version of
    # (issue 20: version 0 stayed beside it for the rest of the run, node 1's peak rose from
    # 1.70 MB to 2.62 MB). The restarted node holds at most its failure-free working set plus the
    # replayed versions, which may all arrive at once.
    _, free = run_json(ftsim, tmp_path, small("cholesky"))
    failures = {"model": "list", "events": [{"node": 1, "time": "20 ms"}], "detection": "1 ms", "downtime": "1 ms"}
    run, r = run_json(ftsim, tmp_path, small("cholesky", failures=failures))
    assert run.returncode == 0 and r["oracle"]["ok"], r["failure_reason"]
    assert r["failures"][0]["restart_point"].startswith("checkpoint ")
    bound = free["nodes"][1]["peak_memory_bytes"] + r["failures"][0]["bytes_replayed"]
    assert r["nodes"][1]["peak_memory_bytes"] <= bound, (r["nodes"][1]["peak_memory_bytes"], bound)
