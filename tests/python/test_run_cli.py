"""`ftsim run`: determinism, the fields of results.json, exit codes, the trace, and `--help`.

Every run is a tiled Cholesky of 10 x 10 tiles (220 tasks) on 4 nodes of 2 cores, written to
tmp_path; one run takes a few milliseconds of simulation. Field meanings: docs/results.md.
"""
import collections
import copy
import json
import re

import pytest

NODES, CORES, TILES = 4, 2, 10
TASKS = TILES + TILES * (TILES - 1) + TILES * (TILES - 1) * (TILES - 2) // 6  # 220
HANDLES = TILES * (TILES + 1) // 2  # the lower triangle
TILE_BYTES = 256 * 256 * 8
TRAFFIC = {"application", "recovery", "checkpoint", "restore", "control"}
SEND_LANE, PROTOCOL_LANE = 10000, 10001  # sim/world/trace_writer.hpp

GLOBAL_STABLE = {"type": "global", "period": "10ms", "storage": "stable"}
GLOBAL_BUDDY = {"type": "global", "period": "10ms", "storage": "buddy"}  # buddy of n: (n + 1) mod 4

TOP_LEVEL = {
    "complete", "failure_reason", "makespan", "executions", "reexecutions", "bytes_sent", "messages_sent",
    "starpu", "log", "protocol_metrics", "protocol_metric_units", "failures", "checkpoints", "nodes", "oracle",
    "stall_report", "events",
    "ftsim_version", "backend", "network_model", "name", "config_file", "config", "seed", "protocol", "graph",
    "reference", "wall", "mpi", "checkpoint_data", "failure_condition", "failure_events",
}
STARPU = {
    "CP_DATA_NORMAL_COUNT", "CP_DATA_NORMAL_TOTAL_SIZE", "CP_DATA_CACHED_COUNT", "CP_DATA_CACHED_SIZE",
    "FT_SERVICE_MSGS_COUNT", "FT_SERVICE_MSGS_TOTAL_SIZE", "IN_MEM_CP_DATA_TOTAL", "IN_MEM_CP_DATA_MAX_AT_T",
}
FAILURE = {
    "time", "node", "class", "origin", "burst", "detected_at", "replaced_at", "recovered_at", "recovery_time", "restart_point",
    "tasks_reexecuted", "work_lost_seconds", "processes_rolled_back", "messages_replayed", "bytes_replayed",
}
CHECKPOINT = {"id", "process", "started", "saved", "committed", "bytes", "aborted"}
NODE = {
    "executions", "reexecutions", "busy_seconds", "lost_seconds", "bytes_sent", "messages_sent",
    "duplicates_received", "orphans_dropped", "sends_suppressed", "inputs_missing_at_start", "checkpoint_store",
    "log_store",
    "peak_memory_bytes", "restarts", "protocol_metrics",
}


def cholesky(name, **sections):
    """A config document: Cholesky 10 x 10 tiles of 256 x 256 doubles, 2 x 2 block-cyclic."""
    config = {
        "name": name,
        "seed": 3,
        "application": {"type": "cholesky", "tiles": TILES, "tile_size": 256},
        "distribution": {"type": "block-cyclic", "P": 2, "Q": 2},
        "platform": {"nodes": NODES, "cores_per_node": CORES, "core_gflops": 10, "storage": {"hosts": 2}},
    }
    config.update(copy.deepcopy(sections))
    return config


def failures(*events, downtime="1ms", detection=0):
    """A "list" failure model: events are (time in seconds, node)."""
    return {"model": "list", "events": [{"time": t, "node": n} for t, n in events],
            "downtime": downtime, "detection": detection}


Run = collections.namedtuple("Run", "code stdout stderr results dir config_file")


@pytest.fixture(scope="module")
def run(ftsim, tmp_path_factory):
    """Writes a config document to a file and runs `ftsim run` on it, each run in its own directory."""
    root = tmp_path_factory.mktemp("run")
    counter = iter(range(1_000_000))

    def go(config, *extra):
        path = root / f"{config['name']}.json"
        path.write_text(json.dumps(config, indent=2))
        out = root / f"out{next(counter)}-{config['name']}"
        proc = ftsim("run", path, "-o", out, *extra, timeout=120)
        results_file = out / "results.json"
        results = json.loads(results_file.read_text()) if results_file.exists() else None
        return Run(proc.returncode, proc.stdout, proc.stderr, results, out, str(path))

    return go


def checkpoint_window(run, config):
    """A time after checkpoint 1 of this (failure-free) config commits and before checkpoint 2 starts."""
    r = run(config)
    assert r.code == 0, r.stdout + r.stderr
    first, second = r.results["checkpoints"][:2]
    assert first["committed"] < second["started"]
    return (first["committed"] + second["started"]) / 2


@pytest.fixture(scope="module")
def buddy_window(run):
    return checkpoint_window(run, cholesky("buddy-window", protocol=GLOBAL_BUDDY))


@pytest.fixture(scope="module")
def stable_window(run):
    return checkpoint_window(run, cholesky("stable-window", protocol=GLOBAL_STABLE))


def trace_events(r):
    document = json.loads((r.dir / "trace.json").read_text())
    assert isinstance(document["traceEvents"], list)
    return document["traceEvents"]


def task_events(events):
    return [e for e in events if e["ph"] == "X" and e["tid"] < SEND_LANE]


# ---------------------------------------------------------------------------------- determinism


@pytest.mark.parametrize("protocol", [{"type": "none"}, GLOBAL_STABLE, {"type": "lineage"}],
                         ids=["none", "global", "lineage"])
def test_same_config_and_seed_give_identical_results(run, protocol):
    config = cholesky("determinism-" + protocol["type"], protocol=protocol,
                      failures={"model": "exponential", "mtbf": "150ms", "downtime": "1ms", "detection": "100us"})
    first, second = run(config), run(config)
    assert first.code == second.code == 0, first.stdout + first.stderr
    assert first.results["failures"], "the exponential model should inject failures in this run"
    for r in (first, second):
        del r.results["wall"]  # wall-clock timings are the only non-deterministic part
    assert first.results == second.results


def test_different_seed_gives_different_failures(run):
    model = {"model": "exponential", "mtbf": "100ms", "downtime": "1ms", "detection": "100us"}
    a = run(cholesky("seed-a", seed=3, protocol={"type": "lineage"}, failures=model))
    b = run(cholesky("seed-b", seed=7, protocol={"type": "lineage"}, failures=model))
    assert a.code == b.code == 0, a.stdout + b.stdout
    fa = [(f["time"], f["node"]) for f in a.results["failures"]]
    fb = [(f["time"], f["node"]) for f in b.results["failures"]]
    assert fa and fb
    assert fa != fb
    assert a.results["seed"] == 3 and b.results["seed"] == 7


# ---------------------------------------------------------------------------------- results.json


def test_results_fields_of_a_recovered_run(run, ftsim, stable_window):
    t = stable_window
    config = cholesky("fields", protocol=GLOBAL_STABLE,
                      failures=failures((t, 1), downtime="2ms", detection="0.5ms"), run={"reference": True})
    r = run(config)
    assert r.code == 0, r.stdout + r.stderr
    res = r.results
    assert set(res) == TOP_LEVEL

    # Outcome.
    assert res["complete"] is True
    assert res["failure_reason"] is None
    assert res["oracle"] == {"ok": True, "missing": [], "wrong": []}
    assert res["stall_report"] == []
    assert res["events"] > 0
    assert set(res["log"]) == {"bytes", "peak_bytes", "copies_peak_bytes"}

    # Identification and the echo of the config.
    assert res["backend"] == "simgrid"
    assert res["name"] == "fields"
    assert res["config_file"] == r.config_file
    assert res["config"] == config
    assert res["seed"] == 3
    assert res["protocol"] == "global"
    version = ftsim("--version")
    assert version.returncode == 0 and res["ftsim_version"] in version.stdout
    assert res["graph"] == {"tasks": TASKS, "edges": res["graph"]["edges"], "handles": HANDLES,
                            "data_bytes": HANDLES * TILE_BYTES, "transfers": res["graph"]["transfers"]}
    assert set(res["wall"]) == {"simulation_seconds", "reference_seconds", "events_per_second", "simulation_cpu_seconds",
                                "graph_seconds", "setup_seconds"}
    assert res["wall"]["simulation_seconds"] > 0 and res["wall"]["reference_seconds"] > 0

    # The failure-free reference (protocol none, no failure).
    ref = res["reference"]
    assert set(ref) == {"makespan", "overhead", "complete", "protocol_makespan", "protocol_complete", "checkpointing",
                        "failures"}
    assert ref["complete"] is True
    assert 0 < ref["makespan"] < res["makespan"]
    assert ref["overhead"] == pytest.approx(res["makespan"] / ref["makespan"] - 1)

    # Per node, and the totals as their sums.
    nodes = res["nodes"]
    assert len(nodes) == NODES
    for n in nodes:
        assert set(n) == NODE
        assert set(n["bytes_sent"]) == set(n["messages_sent"]) == TRAFFIC
        assert 0 < n["busy_seconds"] and n["peak_memory_bytes"] > 0
    assert [n["restarts"] for n in nodes] == [0, 1, 0, 0]
    assert res["executions"] == sum(n["executions"] for n in nodes)
    assert res["reexecutions"] == sum(n["reexecutions"] for n in nodes)
    assert res["executions"] == TASKS + res["reexecutions"]
    for kind in TRAFFIC:
        assert res["bytes_sent"][kind] == sum(n["bytes_sent"][kind] for n in nodes)
        assert res["messages_sent"][kind] == sum(n["messages_sent"][kind] for n in nodes)
    # No schedule can beat the total core time spread over every core.
    busy = sum(n["busy_seconds"] for n in nodes)
    assert res["makespan"] >= busy / (NODES * CORES)

    # The failure record.
    (f,) = res["failures"]
    assert set(f) == FAILURE
    assert f["node"] == 1
    assert f["time"] == pytest.approx(t)
    assert f["detected_at"] == pytest.approx(t + 0.0005)
    assert f["replaced_at"] == pytest.approx(t + 0.002)
    assert f["recovered_at"] >= f["replaced_at"]
    assert f["recovery_time"] == pytest.approx(f["recovered_at"] - f["time"])
    assert f["restart_point"] == "checkpoint 1"
    assert f["processes_rolled_back"] == NODES
    assert f["tasks_reexecuted"] == res["reexecutions"] > 0
    assert f["work_lost_seconds"] > 0
    assert f["messages_replayed"] == f["bytes_replayed"] == 0  # global rollback replays no message

    # Checkpoints and the StarPU counters (stable storage: saves are storage writes).
    checkpoints = res["checkpoints"]
    assert len(checkpoints) >= 2
    for c in checkpoints:
        assert set(c) == CHECKPOINT
        assert c["aborted"] is False
        assert c["started"] <= c["saved"] <= c["committed"]
        assert c["bytes"] > 0
    assert [c["id"] for c in checkpoints] == list(range(1, len(checkpoints) + 1))
    starpu = res["starpu"]
    assert set(starpu) == STARPU
    assert starpu["CP_DATA_NORMAL_COUNT"] == NODES * len(checkpoints)
    assert starpu["CP_DATA_NORMAL_TOTAL_SIZE"] == sum(c["bytes"] for c in checkpoints)
    assert starpu["CP_DATA_NORMAL_TOTAL_SIZE"] == res["bytes_sent"]["checkpoint"]
    assert starpu["IN_MEM_CP_DATA_TOTAL"] == starpu["IN_MEM_CP_DATA_MAX_AT_T"] == 0
    assert starpu["FT_SERVICE_MSGS_COUNT"] > 0
    # A service message is its encoded content (at least checkpoint id and epoch) plus the 32-byte envelope.
    assert starpu["FT_SERVICE_MSGS_TOTAL_SIZE"] >= (32 + 8) * starpu["FT_SERVICE_MSGS_COUNT"]
    assert res["bytes_sent"]["restore"] > 0  # every node read checkpoint 1 back


def test_buddy_storage_counts_checkpoint_data_held_in_memory(run):
    r = run(cholesky("buddy-counters", protocol=GLOBAL_BUDDY))
    assert r.code == 0, r.stdout + r.stderr
    starpu, checkpoints = r.results["starpu"], r.results["checkpoints"]
    assert checkpoints and all(c["committed"] is not None for c in checkpoints)
    assert starpu["CP_DATA_NORMAL_COUNT"] == NODES * len(checkpoints)
    assert starpu["IN_MEM_CP_DATA_TOTAL"] == starpu["CP_DATA_NORMAL_TOTAL_SIZE"]
    # What travels is the data plus the encoded description of the snapshot and the envelope.
    sent = r.results["bytes_sent"]["checkpoint"]
    assert starpu["CP_DATA_NORMAL_TOTAL_SIZE"] < sent < 1.01 * starpu["CP_DATA_NORMAL_TOTAL_SIZE"]
    assert 0 < starpu["IN_MEM_CP_DATA_MAX_AT_T"] <= starpu["IN_MEM_CP_DATA_TOTAL"]


def test_reference_is_null_without_run_reference(run):
    r = run(cholesky("no-reference"))
    assert r.code == 0, r.stdout + r.stderr
    assert r.results["reference"] is None
    assert r.results["protocol"] == "none"
    assert r.results["failures"] == [] and r.results["checkpoints"] == []
    assert r.results["reexecutions"] == 0 and r.results["executions"] == TASKS
    assert r.results["wall"]["reference_seconds"] == 0


# ---------------------------------------------------------------------------------- exit codes


def assert_failed_run(r, reason):
    """Exit code 1, results.json written, with the reason."""
    assert r.code == 1, r.stdout + r.stderr
    assert r.results is not None, "results.json must be written for a failed run"
    assert r.results["complete"] is False
    assert reason in r.results["failure_reason"]
    assert reason in r.stdout  # the summary says why


def test_exit_code_0_for_a_complete_run(run):
    r = run(cholesky("complete", protocol={"type": "lineage"}, failures=failures((0.03, 2))))
    assert r.code == 0, r.stdout + r.stderr
    assert r.results["complete"] is True and r.results["oracle"]["ok"] is True
    assert "complete, oracle ok" in r.stdout


def test_buddy_storage_node_and_buddy_failing_together_is_unrecoverable(run, buddy_window):
    # Node 1 keeps its checkpoint in node 2's memory; both fail after checkpoint 1 is committed.
    # The replacement of node 1 finds its buddy failed since the commit (rollback_protocol.cpp).
    t = buddy_window
    r = run(cholesky("buddy-both", protocol=GLOBAL_BUDDY, failures=failures((t, 1), (t, 2))))
    assert_failed_run(r, "unrecoverable")
    assert "node 1 and its buddy node 2" in r.results["failure_reason"]
    assert [f["node"] for f in r.results["failures"]] == [1, 2]


def test_buddy_storage_buddy_failing_first_then_node_is_unrecoverable(run, buddy_window):
    # Node 2 fails and recovers; node 1 fails before a new checkpoint: node 2's replacement never
    # held node 1's copy of checkpoint 1, so node 1's replacement has nothing to restore.
    t = buddy_window
    first = run(cholesky("buddy-first", protocol=GLOBAL_BUDDY, failures=failures((t, 2))))
    assert first.code == 0, first.stdout + first.stderr
    recovered = first.results["failures"][0]["recovered_at"]
    r = run(cholesky("buddy-then-node", protocol=GLOBAL_BUDDY,
                     failures=failures((t, 2), (recovered + 0.001, 1))))
    assert_failed_run(r, "unrecoverable")
    assert len([c for c in r.results["checkpoints"] if c["committed"] is not None]) == 1


def test_buddy_storage_other_node_failing_is_recoverable(run, buddy_window):
    # Nodes 1 and 3 are not each other's buddy: both checkpoints survive.
    t = buddy_window
    r = run(cholesky("buddy-not-buddies", protocol=GLOBAL_BUDDY, failures=failures((t, 1), (t, 3))))
    assert r.code == 0, r.stdout + r.stderr
    assert all(f["recovered_at"] is not None for f in r.results["failures"])


def test_buddy_fails_while_sending_the_checkpoint_back_is_unrecoverable(run, buddy_window):
    t = buddy_window
    alone = run(cholesky("buddy-restore", protocol=GLOBAL_BUDDY, failures=failures((t, 1), downtime=0)))
    if alone.code != 0 or alone.results["failures"][0]["recovered_at"] < t + 0.002:
        pytest.fail("precondition: node 1's restore from its buddy should take more than 2 ms")
    r = run(cholesky("buddy-restore-lost", protocol=GLOBAL_BUDDY,
                     failures=failures((t, 1), (t + 0.001, 2), downtime=0)))
    if r.results is None or [f["node"] for f in r.results["failures"]] != [1, 2]:
        pytest.fail("precondition: nodes 1 and 2 should both fail")
    assert r.code == 1
    assert "unrecoverable" in (r.results["failure_reason"] or "")


def test_simultaneous_failures_resume_only_after_the_replacements(run):
    r = run(cholesky("two-at-once", protocol={"type": "none"},
                     failures=failures((0.03, 1), (0.03, 2), downtime="5ms")), "--trace")
    if r.code != 0 or len(r.results["failures"]) != 2:
        pytest.fail("precondition: a complete run with two failures")
    replaced = max(f["replaced_at"] for f in r.results["failures"])
    early = [e for e in task_events(trace_events(r)) if 0.03 * 1e6 <= e["ts"] < replaced * 1e6]
    assert all(f["recovered_at"] >= f["replaced_at"] for f in r.results["failures"])
    assert early == []


def test_no_spare_left_fails_the_run(run):
    config = cholesky("no-spare", protocol=GLOBAL_STABLE, failures=failures((0.03, 1)))
    config["platform"]["spares"] = 0
    r = run(config)
    assert_failed_run(r, "no spare")
    assert r.results["makespan"] == pytest.approx(0.03)
    assert r.results["failures"][0]["replaced_at"] is None
    assert r.results["failures"][0]["recovered_at"] is None
    assert r.results["failures"][0]["recovery_time"] is None


def test_time_limit_fails_the_run(run):
    r = run(cholesky("time-limit", run={"time_limit": "20ms"}))
    assert_failed_run(r, "time limit")
    assert r.results["makespan"] == pytest.approx(0.02)
    assert r.results["stall_report"] and all(line.startswith("node ") for line in r.results["stall_report"])
    assert r.results["executions"] < TASKS


@pytest.mark.parametrize("text, message", [
    ('{"name": "broken", ', "invalid JSON"),
    (json.dumps(cholesky("typo", protocl={"type": "none"})), "unknown key"),
    (json.dumps(cholesky("no-speeds", platform={"nodes": NODES, "cores_per_node": CORES})), "core_gflops"),
], ids=["invalid-json", "unknown-key", "no-kernel-speeds"])
def test_exit_code_2_for_a_bad_config(ftsim, tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    proc = ftsim("run", path, "-o", tmp_path / "out")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr and "bad.json" in proc.stderr
    assert not (tmp_path / "out" / "results.json").exists()


def test_exit_code_2_for_a_missing_config(ftsim, tmp_path):
    proc = ftsim("run", tmp_path / "missing.json", "-o", tmp_path / "out")
    assert proc.returncode == 2
    assert "cannot open" in proc.stderr


# ---------------------------------------------------------------------------------- trace


def owner(m, n):
    return (m % 2) * 2 + n % 2  # 2 x 2 block-cyclic


def node_of_task(name):
    """The node of a Cholesky task from its name (owner computes on the tile it writes)."""
    kernel, indices = re.fullmatch(r"(\w+)\(([\d,]+)\)", name).groups()
    i = [int(x) for x in indices.split(",")]
    return {"POTRF": lambda: owner(i[0], i[0]), "TRSM": lambda: owner(i[0], i[1]),
            "SYRK": lambda: owner(i[0], i[0]), "GEMM": lambda: owner(i[0], i[1])}[kernel]()


def test_trace_of_a_failure_free_run(run, ftsim):
    config = cholesky("trace")
    r = run(config, "--trace")
    assert r.code == 0, r.stdout + r.stderr
    assert str(r.dir / "trace.json") in r.stdout
    events = trace_events(r)
    assert {e["ph"] for e in events} == {"M", "X", "s", "f"}  # no failure: no instant event

    # Metadata: a process per node and one for the coordinator; a lane per core.
    meta = [e for e in events if e["ph"] == "M"]
    processes = {e["pid"]: e["args"]["name"] for e in meta if e["name"] == "process_name"}
    assert processes == {**{n: f"node {n}" for n in range(NODES)}, NODES: "coordinator"}
    lanes = {(e["pid"], e["tid"]): e["args"]["name"] for e in meta if e["name"] == "thread_name"}
    for n in range(NODES):
        for c in range(CORES):
            assert lanes[(n, c)] == f"core {c}"
        assert lanes[(n, SEND_LANE)] == "sends" and lanes[(n, PROTOCOL_LANE)] == "protocol"
        assert lanes[(n, SEND_LANE + 2)] == "receives"

    # Tasks: every task of the graph once, on its node (pid) and a core (tid), never two at once on a core.
    stats = ftsim("graph", r.config_file, "--stats")
    assert stats.returncode == 0
    graph_tasks = int(re.search(r"^tasks (\d+)", stats.stdout, re.M).group(1))
    assert graph_tasks == r.results["graph"]["tasks"] == TASKS
    tasks = task_events(events)
    assert len(tasks) == TASKS
    assert len({e["name"] for e in tasks}) == TASKS
    per_lane = collections.defaultdict(list)
    for e in tasks:
        assert e["pid"] == node_of_task(e["name"]), e
        assert 0 <= e["tid"] < CORES
        assert e["cat"] == e["name"].split("(")[0]  # the kernel; no re-execution
        assert e["dur"] > 0
        per_lane[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
    for spans in per_lane.values():
        spans.sort()
        for (_, end), (start, _) in zip(spans, spans[1:]):
            assert start >= end - 1e-6  # end points rounded once: back-to-back slices touch, never overlap
    assert max(e["ts"] + e["dur"] for e in tasks) == pytest.approx(r.results["makespan"] * 1e6, abs=0.01)

    # Transfers: a send span on the sender's send lane and a flow arrow s -> f to the receiver.
    # Concurrent sends of a node are on lanes "sends", "sends 2", ... (tid 10000 and above 1000000).
    send_lanes = {lane for lane, name in lanes.items() if name.split()[0] == "sends"}
    sends = [e for e in events if e["ph"] == "X" and (e["pid"], e["tid"]) in send_lanes]
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    finishes = {e["id"]: e for e in events if e["ph"] == "f"}
    assert len(sends) == len(starts) == len(finishes) > 0
    assert set(starts) == set(finishes)
    for send, flow_id in zip(sends, sorted(starts)):
        s, f = starts[flow_id], finishes[flow_id]
        assert s["pid"] == send["pid"] != f["pid"] == send["args"]["to"]
        assert s["cat"] == f["cat"] == send["cat"]
        assert f["ts"] >= s["ts"]
    application = [e for e in sends if e["cat"] == "application"]
    assert len(application) == r.results["graph"]["transfers"] == r.results["messages_sent"]["application"]
    assert sum(e["args"]["bytes"] for e in application) == r.results["bytes_sent"]["application"]


def test_trace_of_a_run_with_a_failure(run, stable_window):
    t = stable_window
    r = run(cholesky("trace-failure", protocol=GLOBAL_STABLE, failures=failures((t, 1), downtime="2ms")), "--trace")
    assert r.code == 0, r.stdout + r.stderr
    events = trace_events(r)
    instants = [e for e in events if e["ph"] == "i"]
    (failure,) = [e for e in instants if e["name"] == "failure" and e["args"]["node"] == 1]
    assert failure["pid"] == 1 and failure["tid"] == PROTOCOL_LANE
    assert failure["ts"] == pytest.approx(t * 1e6, abs=0.01)
    (replacement,) = [e for e in instants if e["name"] == "replacement" and e["args"]["node"] == 1]
    assert replacement["ts"] == pytest.approx(r.results["failures"][0]["replaced_at"] * 1e6, abs=0.01)
    tasks = task_events(events)
    assert len(tasks) == r.results["executions"]
    reexecuted = [e for e in tasks if e["cat"].endswith(",reexecution")]
    assert len(reexecuted) == r.results["reexecutions"] > 0
    assert {e["cat"] for e in events if e["ph"] == "X" and e["tid"] == SEND_LANE} >= {"application", "control"}


# ---------------------------------------------------------------------------------- --help


@pytest.mark.parametrize("verb", ["validate", "graph", "volumes", "run"])
def test_help_of_every_verb(ftsim, verb):
    proc = ftsim(verb, "--help")
    assert proc.returncode == 0, proc.stderr
    assert "Usage" in proc.stdout and verb in proc.stdout
    assert "CONFIG" in proc.stdout


def test_help_lists_every_verb(ftsim):
    proc = ftsim("--help")
    assert proc.returncode == 0
    for verb in ["validate", "graph", "volumes", "run"]:
        assert verb in proc.stdout


def test_node_and_buddy_failing_just_before_a_commit_is_unrecoverable(ftsim, tmp_path):
    # Regression (issue "one node, one process"): node 1 and its buddy node 2 fail together while a
    # checkpoint is being committed. The old engine compared failure times with the commit time and
    # restored node 1 from a shared copy that no process held any more: exit 0. Now node 1's
    # replacement asks its buddy, whose replacement holds nothing and says so.
    config = {"application": {"type": "cholesky", "tiles": 6, "tile_size": 128},
              "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": 2, "storage": {"hosts": 1}},
              "protocol": {"type": "global", "period": "2ms", "storage": "buddy"},
              "failures": {"model": "list", "events": [{"time": 0.00979, "node": 1}, {"time": 0.00979, "node": 2}],
                           "downtime": "0.2ms", "detection": "0.01ms"}}
    path = tmp_path / "pair.json"
    path.write_text(json.dumps(config))
    result = ftsim("run", path, "-o", tmp_path, timeout=60)
    assert result.returncode == 1, result.stdout + result.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["complete"] is False
    assert "unrecoverable: node 1 and its buddy node 2 both lost checkpoint" in results["failure_reason"]


def test_validate_prints_what_the_config_resolves_to(ftsim, source_dir):
    result = ftsim("validate", source_dir / "configs" / "quickstart.json")
    assert result.returncode == 0, result.stderr
    lines = result.stdout
    assert re.search(r"protocol\s+global \{.*\"period\":\"0.25s\"", lines)
    assert re.search(r"schedule\s+a checkpoint every 250 ms of work: at least [1-9]\d* over the run", lines)
    assert re.search(r"failures\s+1 failure\(s\) listed, downtime 50 ms, detection 10 ms", lines)
    assert re.search(r"defaults\s+.*network model", lines)
    assert re.search(r"defaults\s+.*network contention flows", lines)


def test_volumes_takes_counts_and_prints_fitting_units(ftsim, source_dir):
    plain = ftsim("volumes", source_dir / "configs" / "quickstart.json")
    assert plain.returncode == 2 and "--count" in plain.stderr
    result = ftsim("volumes", source_dir / "configs" / "quickstart.json", "--count", "2,4")
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if re.match(r"^[24]\s+next", line)]
    assert len(rows) == 2
    assert all(re.search(r"\d MB", row) for row in rows) and "0.0" not in rows[0].split()[2]
