"""Recovery without spares (/platform/on_no_spare: "shrink", docs/shrink.md): the config errors, the
placement rule on a hand-checked run, what results.json reports, and determinism."""
import json

import pytest

CONFIG = {
    "name": "shrink-small", "seed": 3,
    "application": {"type": "cholesky", "tiles": 8, "tile_size": 128},
    "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": {"default": 2.0},
                 "network": {"topology": "star", "bandwidth": "10Gbps", "latency": "5us"},
                 "storage": {"hosts": 1, "bandwidth": "1GB/s"},
                 "spares": 0, "on_no_spare": "shrink"},
    "protocol": {"type": "global", "period": 0.005, "storage": "stable"},
    "failures": {"model": "list", "events": [{"node": 1, "time": 0.015}], "downtime": 0.001, "detection": 0.001},
}


# Every protocol that supports a shrink, with what it needs to run on CONFIG.
EVERY_PROTOCOL = [
    {"type": "buddy"}, {"type": "lineage"}, {"type": "cck", "period": 0.005},
    {"type": "global", "period": 0.005, "storage": "buddy"}, {"type": "uncoordinated", "period": 0.005},
    {"type": "none"}]


def with_platform(**changes):
    config = json.loads(json.dumps(CONFIG))
    config["platform"].update(changes)
    return config


def run(ftsim, tmp_path, config, name="run"):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(config))
    out = tmp_path / name
    done = ftsim("run", path, "-o", out)
    results = json.loads((out / "results.json").read_text()) if (out / "results.json").exists() else None
    return done, results


@pytest.mark.parametrize("change,message", [
    ({"on_no_spare": "grow"}, "/platform/on_no_spare"),
    ({"on_no_spare": 1}, "/platform/on_no_spare"),
])
def test_bad_values_name_the_path(ftsim, tmp_path, change, message):
    done, _ = run(ftsim, tmp_path, with_platform(**change))
    assert done.returncode == 2
    assert message in done.stderr and "abort" in done.stderr and "shrink" in done.stderr


def test_shrink_needs_a_spare_count(ftsim, tmp_path):
    config = with_platform()
    del config["platform"]["spares"]
    done, _ = run(ftsim, tmp_path, config)
    assert done.returncode == 2
    assert "/platform/on_no_spare" in done.stderr and "/platform/spares" in done.stderr




def test_abort_stays_the_default(ftsim, tmp_path):
    config = with_platform()
    del config["platform"]["on_no_spare"]
    done, results = run(ftsim, tmp_path, config)
    assert done.returncode == 1
    assert results["failure_reason"].startswith("node 1 failed and no spare node is left")
    assert "shrink" not in results


def test_one_failure_moves_the_rank_to_the_next_machine(ftsim, tmp_path):
    done, results = run(ftsim, tmp_path, CONFIG)
    assert done.returncode == 0, done.stderr
    assert results["complete"] and results["oracle"]["ok"]
    shrink = results["shrink"]
    assert shrink["nodes_at_start"] == 4 and shrink["nodes_at_end"] == 3
    [moved] = shrink["redistributions"]
    # Every machine runs one rank: the first after node 1's own machine takes it.
    assert moved["node"] == 1 and moved["on_machine_of"] == 2
    assert moved["time"] == pytest.approx(0.015 + 0.001)
    assert moved["recovered_at"] >= moved["time"]
    assert moved["seconds"] == pytest.approx(moved["recovered_at"] - moved["time"])
    # global on stable storage: the only state that moves is node 1's checkpoint, read back from
    # the server by the re-hosted rank (the survivors restore their local copies).
    assert moved["bytes"] > 0
    assert moved["bytes"] == results["nodes"][1]["bytes_sent"]["restore"]
    assert shrink["redistribution_bytes"] == moved["bytes"]
    assert results["failures"][0]["restart_point"].startswith("checkpoint")


def test_a_shared_machine_fails_with_both_ranks(ftsim, tmp_path):
    config = with_platform()
    config["failures"]["events"] = [{"node": 1, "time": 0.015}, {"node": 2, "time": 0.03}]
    done, results = run(ftsim, tmp_path, config)
    assert done.returncode == 0, done.stderr
    assert results["oracle"]["ok"]
    # Node 2's machine ran ranks 2 and 1: its failure takes both (three failure records).
    assert [f["node"] for f in results["failures"]] == [1, 2, 1]
    shrink = results["shrink"]
    assert shrink["nodes_at_end"] == 2
    # Machines 0 and 3 run one rank each: rank 2 goes to the first after its machine (3), then
    # rank 1 (on machine 2 too) to the one with fewer ranks (0).
    assert [(r["node"], r["on_machine_of"]) for r in shrink["redistributions"]] == [(1, 2), (2, 3), (1, 0)]
    assert all(r["recovered_at"] is not None and r["bytes"] > 0 for r in shrink["redistributions"][1:])


@pytest.mark.parametrize("protocol", EVERY_PROTOCOL)
def test_every_supported_protocol_completes_on_fewer_machines(ftsim, tmp_path, protocol):
    config = with_platform()
    config["protocol"] = protocol
    config["checkpoints"] = {"count": 3, "buddy": "next"}
    # With buddies n + 1, rank 1 goes to machine 3 (machines 0 and 2 run a buddy of it or a rank it
    # is the buddy of); rank 2 then to machine 0 (the least loaded).
    config["failures"]["events"] = [{"node": 1, "time": 0.015}, {"node": 2, "time": 0.03}]
    done, results = run(ftsim, tmp_path, config)
    assert done.returncode == 0, done.stderr + json.dumps(results and results["failure_reason"])
    assert results["oracle"]["ok"]
    assert results["shrink"]["nodes_at_end"] == 2
    assert [(r["node"], r["on_machine_of"]) for r in results["shrink"]["redistributions"]] == [(1, 3), (2, 0)]
    # none restarts every rank from the job's input: nothing of the failed rank's state moves.
    assert (results["shrink"]["redistribution_bytes"] > 0) == (protocol["type"] != "none")


def test_the_survivor_is_slower_with_two_ranks(ftsim, tmp_path):
    # lineage, one early failure: with a spare the job keeps its 4 machines; with shrink, one
    # machine runs two ranks on its 2 cores for the rest of the run.
    shrink_config = with_platform()
    shrink_config["protocol"] = {"type": "lineage"}
    shrink_config["failures"]["events"] = [{"node": 1, "time": 0.005}]
    spare_config = json.loads(json.dumps(shrink_config))
    spare_config["platform"]["spares"] = 1
    _, shrunk = run(ftsim, tmp_path, shrink_config, "shrunk")
    _, spared = run(ftsim, tmp_path, spare_config, "spared")
    assert shrunk["oracle"]["ok"] and spared["oracle"]["ok"]
    assert spared["shrink"]["nodes_at_end"] == 4 and spared["shrink"]["redistributions"] == []
    assert shrunk["shrink"]["nodes_at_end"] == 3
    assert shrunk["makespan"] > 1.05 * spared["makespan"]


def test_deterministic(ftsim, tmp_path):
    _, first = run(ftsim, tmp_path, CONFIG, "first")
    _, second = run(ftsim, tmp_path, CONFIG, "second")
    for results in (first, second):
        results.pop("wall", None)
        results.pop("config_file")  # the two files' names
    assert first == second


# --- what the event log and the trace say of a shrink (issue 26) -----------------------------

def run_recorded(ftsim, tmp_path, config, name):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(config))
    out = tmp_path / name
    done = ftsim("run", path, "-o", out, "--trace", "--log", "failure,protocol")
    results = json.loads((out / "results.json").read_text())
    lines = (out / "events.log").read_text().splitlines()
    trace = json.loads((out / "trace.json").read_text())["traceEvents"]
    return done, results, lines, trace


def test_the_log_and_the_trace_name_the_survivor(ftsim, tmp_path):
    config = with_platform()
    config["failures"]["events"] = [{"node": 1, "time": 0.015}, {"node": 2, "time": 0.03}]
    done, results, lines, trace = run_recorded(ftsim, tmp_path, config, "logged")
    assert done.returncode == 0, done.stderr
    failure_lines = [l for l in lines if "] failure " in l]
    # No spare in this run: the log never says one takes a rank.
    assert not [l for l in lines if "spare takes" in l]
    rehosts = [l.split("driver", 1)[1].strip() for l in failure_lines if "restarts on surviving machine" in l]
    assert rehosts == [
        "shrink: no spare left, node 1 (incarnation 1) restarts on surviving machine 2, which now runs 2 ranks (nodes 2, 1); 3 machines up",
        "shrink: no spare left, node 2 (incarnation 1) restarts on surviving machine 3, which now runs 2 ranks (nodes 3, 2); 2 machines up",
        "shrink: no spare left, node 1 (incarnation 2) restarts on surviving machine 0, which now runs 2 ranks (nodes 0, 1); 2 machines up",
    ]
    # The same as results.json's redistributions, at the same times.
    times = [float(l[1:l.index("]")]) for l in failure_lines if "restarts on surviving machine" in l]
    assert times == pytest.approx([r["time"] for r in results["shrink"]["redistributions"]])
    # The trace: a "shrink" marker per re-hosting instead of "replacement".
    assert not [e for e in trace if e.get("name") == "replacement"]
    markers = [e["args"] for e in trace if e.get("name") == "shrink" and e["ph"] == "i"]
    assert markers == [
        {"node": 1, "incarnation": 1, "machine": 2, "machine_ranks": [2, 1], "machines_up": 3},
        {"node": 2, "incarnation": 1, "machine": 3, "machine_ranks": [3, 2], "machines_up": 2},
        {"node": 1, "incarnation": 2, "machine": 0, "machine_ranks": [0, 1], "machines_up": 2},
    ]


def test_the_log_says_spare_only_when_a_spare_is_used(ftsim, tmp_path):
    # One spare: the first failure takes it (spare machine 4), the second shrinks.
    config = with_platform(spares=1)
    config["failures"]["events"] = [{"node": 1, "time": 0.015}, {"node": 2, "time": 0.03}]
    done, results, lines, trace = run_recorded(ftsim, tmp_path, config, "one-spare")
    assert done.returncode == 0, done.stderr
    spare = [l for l in lines if "spare takes" in l]
    assert len(spare) == 1 and "a spare takes node 1 (incarnation 1) on spare machine 4" in spare[0]
    rehost = [l for l in lines if "restarts on surviving machine" in l]
    assert len(rehost) == 1
    assert "node 2 (incarnation 1) restarts on surviving machine 3, which now runs 2 ranks (nodes 3, 2); 3 machines up" in rehost[0]
    assert [r["node"] for r in results["shrink"]["redistributions"]] == [2]
    assert [e["args"]["node"] for e in trace if e.get("name") == "replacement"] == [1]
    assert [e["args"]["node"] for e in trace if e.get("name") == "shrink"] == [2]


def test_the_log_and_the_trace_change_no_result(ftsim, tmp_path):
    config = with_platform()
    config["failures"]["events"] = [{"node": 1, "time": 0.015}, {"node": 2, "time": 0.03}]
    _, plain = run(ftsim, tmp_path, config, "plain")
    _, recorded, _, _ = run_recorded(ftsim, tmp_path, config, "recorded")
    for key in ("makespan", "events", "shrink", "failures", "bytes_sent"):
        assert plain.get(key) == recorded.get(key), key


# --- several ranks per machine: the failed machine's ranks spread over the survivors ----------

SPREAD = json.loads(json.dumps(CONFIG))
SPREAD["platform"].update({"nodes": 8, "ranks_per_machine": 2})
# Machine 1 runs ranks 2 and 3: a failure naming rank 2 takes both.
SPREAD["failures"]["events"] = [{"node": 2, "time": 0.015}]


@pytest.mark.parametrize("value,message", [
    (3, "a divisor of /platform/nodes"),
    (0, "/platform/ranks_per_machine"),
    ("2", "/platform/ranks_per_machine"),
])
def test_ranks_per_machine_must_divide_the_nodes(ftsim, tmp_path, value, message):
    config = json.loads(json.dumps(SPREAD))
    config["platform"]["ranks_per_machine"] = value
    done, _ = run(ftsim, tmp_path, config)
    assert done.returncode == 2, done.stderr
    assert "/platform/ranks_per_machine" in done.stderr and message in done.stderr


def test_a_buddy_on_the_same_machine_is_refused(ftsim, tmp_path):
    config = json.loads(json.dumps(SPREAD))
    # Explicit buddies n ^ 1: ranks 0 and 1 keep each other's data on machine 0.
    config["checkpoints"] = {"count": 3, "buddy": [n ^ 1 for n in range(8)]}
    done, _ = run(ftsim, tmp_path, config)
    assert done.returncode == 2
    assert "/checkpoints/buddy" in done.stderr and "same machine" in done.stderr


# The MPI backend's refusal: tests/mpi/test_mpi_errors.py (it runs under mpirun).


def test_a_failed_machine_spreads_its_ranks_over_two_survivors(ftsim, tmp_path):
    done, results = run(ftsim, tmp_path, SPREAD)
    assert done.returncode == 0, done.stderr
    assert results["complete"] and results["oracle"]["ok"]
    # One failure record per rank of machine 1.
    assert sorted(f["node"] for f in results["failures"]) == [2, 3]
    shrink = results["shrink"]
    assert shrink["ranks_per_machine"] == 2
    assert shrink["nodes_at_start"] == 4 and shrink["nodes_at_end"] == 3
    moved = {r["node"]: r for r in shrink["redistributions"]}
    assert sorted(moved) == [2, 3]
    # Every survivor runs 2 ranks: rank 2 goes to the first after machine 1 (machine 2, ranks 4
    # and 5); machine 2 then runs 3, so rank 3 goes to the next least loaded, machine 3.
    assert (moved[2]["machine"], moved[2]["on_machine_of"], moved[2]["from_machine"]) == (2, 4, 1)
    assert (moved[3]["machine"], moved[3]["on_machine_of"], moved[3]["from_machine"]) == (3, 6, 1)
    for r in moved.values():
        assert r["time"] == pytest.approx(0.015 + 0.001)
        assert r["bytes"] > 0 and r["recovered_at"] >= r["time"]
        assert r["bytes"] == results["nodes"][r["node"]]["bytes_sent"]["restore"]


def test_the_log_names_the_two_survivors(ftsim, tmp_path):
    done, results, lines, trace = run_recorded(ftsim, tmp_path, SPREAD, "spread")
    assert done.returncode == 0, done.stderr
    rehosts = [l.split("driver", 1)[1].strip() for l in lines if "restarts on surviving machine" in l]
    assert rehosts == [
        "shrink: no spare left, node 2 (incarnation 1) restarts on surviving machine 2, which now runs 3 ranks (nodes 4, 5, 2); 3 machines up",
        "shrink: no spare left, node 3 (incarnation 1) restarts on surviving machine 3, which now runs 3 ranks (nodes 6, 7, 3); 3 machines up",
    ]
    markers = [e["args"]["machine"] for e in trace if e.get("name") == "shrink" and e["ph"] == "i"]
    assert markers == [2, 3]


def test_buddies_are_the_next_machine_and_kept_apart(ftsim, tmp_path):
    # buddy protocol, "next" = the same rank of the next machine (n + 2): rank 2's buddy is 4
    # (machine 2), rank 0's is 2: rank 2 goes to machine 3, the only one of the least loaded that
    # runs no buddy of it and no rank it keeps data for. Rank 3 (buddy 5 on machine 2; rank 1 on
    # machine 0 keeps its data with 3): machines 2 and 0 both conflict and machine 3 runs three
    # ranks: the load comes first, then the cyclic order: machine 2.
    config = json.loads(json.dumps(SPREAD))
    config["protocol"] = {"type": "buddy"}
    config["checkpoints"] = {"count": 3, "buddy": "next"}
    done, results = run(ftsim, tmp_path, config)
    assert done.returncode == 0, done.stderr
    assert results["oracle"]["ok"]
    assert [(r["node"], r["machine"]) for r in results["shrink"]["redistributions"]] == [(2, 3), (3, 2)]
    assert results["shrink"]["redistribution_bytes"] > 0


@pytest.mark.parametrize("protocol", EVERY_PROTOCOL)
def test_every_protocol_completes_after_spreading(ftsim, tmp_path, protocol):
    config = json.loads(json.dumps(SPREAD))
    config["protocol"] = protocol
    config["checkpoints"] = {"count": 3, "buddy": "next"}
    config["failures"]["events"] = [{"node": 2, "time": 0.015}, {"node": 7, "time": 0.03}]
    done, results = run(ftsim, tmp_path, config)
    assert done.returncode == 0, done.stderr + json.dumps(results and results["failure_reason"])
    assert results["oracle"]["ok"]
    shrink = results["shrink"]
    assert shrink["nodes_at_end"] == 2
    # Each failed machine's two ranks land on two different machines.
    by_failure = {}
    for r in shrink["redistributions"]:
        by_failure.setdefault(r["from_machine"], set()).add(r["machine"])
    assert all(len(machines) == 2 for machines in by_failure.values()), shrink["redistributions"]


def test_a_spare_machine_takes_every_rank_of_the_failed_one(ftsim, tmp_path):
    config = json.loads(json.dumps(SPREAD))
    config["platform"]["spares"] = 1
    done, results, lines, _ = run_recorded(ftsim, tmp_path, config, "spare")
    assert done.returncode == 0, done.stderr
    assert results["oracle"]["ok"]
    assert results["shrink"]["nodes_at_end"] == 4 and results["shrink"]["redistributions"] == []
    spare = [l.split("driver", 1)[1].strip() for l in lines if "spare takes" in l]
    assert spare == ["a spare takes node 2 (incarnation 1) on spare machine 4",
                     "a spare takes node 3 (incarnation 1) on spare machine 4"]


def test_abort_without_spare_and_unlimited_spares_with_several_ranks(ftsim, tmp_path):
    config = json.loads(json.dumps(SPREAD))
    del config["platform"]["on_no_spare"]
    done, results = run(ftsim, tmp_path, config, "abort")
    assert done.returncode == 1
    assert results["failure_reason"].startswith("node 2 failed and no spare node is left")
    del config["platform"]["spares"]
    done, results = run(ftsim, tmp_path, config, "unlimited")
    assert done.returncode == 0, done.stderr
    assert results["oracle"]["ok"] and sorted(f["node"] for f in results["failures"]) == [2, 3]


def test_the_ranks_of_a_machine_share_its_cores(ftsim, tmp_path):
    # cores_per_node is a machine's: 8 ranks on 4 one-core machines have 4 cores, 8 ranks on 8
    # machines have 8. Failure-free.
    base = json.loads(json.dumps(SPREAD))
    base["failures"] = {"model": "none"}
    base["platform"]["cores_per_node"] = 1
    base["protocol"] = {"type": "none"}
    eight = json.loads(json.dumps(base))
    eight["platform"]["ranks_per_machine"] = 1
    _, shared = run(ftsim, tmp_path, base, "k2")
    _, alone = run(ftsim, tmp_path, eight, "k1")
    assert shared["oracle"]["ok"] and alone["oracle"]["ok"]
    work = sum(n["busy_seconds"] for n in alone["nodes"])  # core-seconds of the tasks
    # 4 cores cannot do it faster than work / 4 (with 8 cores it takes less than that).
    assert alone["makespan"] < work / 4
    assert shared["makespan"] >= work / 4
    assert shared["makespan"] > 1.3 * alone["makespan"]


def test_renewal_failures_are_per_machine(ftsim, tmp_path):
    # An exponential MTBF is a machine's: 8 ranks on 4 machines draw 4 first failures, each
    # naming a machine's first rank (even), and taking both of its ranks.
    config = json.loads(json.dumps(SPREAD))
    config["platform"]["spares"] = 2
    config["failures"] = {"model": "exponential", "mtbf": 0.05, "max_failures": 4, "downtime": 0.001,
                          "detection": 0.001}
    done, results = run(ftsim, tmp_path, config)
    assert results is not None, done.stderr
    failures = results["failures"]
    assert failures
    times = {}
    for f in failures:
        times.setdefault(f["time"], []).append(f["node"])
    for nodes in times.values():
        # The machine's two ranks at the same instant: 2m and 2m + 1.
        assert len(nodes) == 2 and min(nodes) % 2 == 0 and max(nodes) == min(nodes) + 1, times
