"""Proactive migration on predicted failures (/failures/prediction; docs/migration.md).

Every run is a tiled Cholesky of 10 x 10 tiles on 4 nodes of 2 cores (a few ms of simulation),
node 1 failing at FAILURE_TIME. The runs check what happens to an announced failure (avoided: no
failure record, no rollback, the oracle holds), a false alarm, a lead time shorter than the
evacuation (an ordinary failure), no spare left, every protocol, determinism and bad input.
"""
import copy
import json

import pytest

FAILURE_TIME = 0.09  # seconds: about half of the run (188 ms failure-free with global)
LEAD = "40ms"  # more than the evacuation (about 10 to 25 ms: 9 to 21 MB over 10 Gb/s, spawn 1 ms)
SPAWN = "1ms"


def config(protocol, prediction=None, spares=3, events=None, seed=3, storage=False, checkpoints=False):
    c = {
        "name": "migration",
        "seed": seed,
        "application": {"type": "cholesky", "tiles": 10, "tile_size": 256},
        "distribution": {"type": "block-cyclic", "P": 2, "Q": 2},
        "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": 10, "spares": spares},
        "failures": {"model": "list", "events": events or [{"time": FAILURE_TIME, "node": 1}], "downtime": "1ms"},
        "protocol": copy.deepcopy(protocol),
    }
    if storage:
        c["platform"]["storage"] = {"hosts": 2}
    if checkpoints:
        c["checkpoints"] = {"count": 4, "buddy": "next"}
    if prediction is not None:
        c["failures"]["prediction"] = dict({"spawn": SPAWN}, **prediction)
    return c


GLOBAL = {"type": "global", "period": "10ms", "storage": "buddy"}
PROTOCOLS = {  # protocol, storage servers, checkpoints at the graph's cuts
    "none": ({"type": "none"}, False, False),
    "global": (GLOBAL, False, False),
    "buddy": ({"type": "buddy"}, False, True),
    "lineage": ({"type": "lineage"}, False, False),
    "cck": ({"type": "cck", "period": "10ms"}, True, False),
    "uncoordinated": ({"type": "uncoordinated", "period": "10ms"}, True, False),
}


def run(ftsim, tmp_path, document, tag="run"):
    path = tmp_path / f"{tag}.json"
    path.write_text(json.dumps(document))
    out = tmp_path / f"out-{tag}"
    proc = ftsim("run", path, "-o", out)
    results = json.loads((out / "results.json").read_text()) if (out / "results.json").exists() else None
    return proc, results


def protocol_config(name, prediction=None, **kwargs):
    protocol, storage, checkpoints = PROTOCOLS[name]
    return config(protocol, prediction, storage=storage, checkpoints=checkpoints, **kwargs)


@pytest.mark.parametrize("name", list(PROTOCOLS))
def test_an_announced_failure_is_avoided(ftsim, tmp_path, name):
    proc, r = run(ftsim, tmp_path, protocol_config(name, {"lead_time": LEAD, "recall": 1, "precision": 1}))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert r["complete"] and r["oracle"]["ok"]
    m = r["migration"]
    assert (m["alarms"], m["true_alarms"], m["false_alarms"]) == (1, 1, 0)
    assert (m["migrations_done"], m["migrations_skipped"], m["migrations_interrupted"]) == (1, 0, 0)
    assert m["failures_avoided"] == 1
    # No failure reached the rank: nothing to recover, nothing re-executed or rolled back.
    assert r["failures"] == []
    assert r["reexecutions"] == 0
    assert all(n["restarts"] == 0 for n in r["nodes"])
    record = m["records"][0]
    assert record["node"] == 1 and record["true_alarm"] and record["outcome"] == "done"
    assert record["alarm"] == pytest.approx(FAILURE_TIME - 0.04)
    assert record["alarm"] <= record["safe_point"] < record["transfer_start"] <= record["end"] < FAILURE_TIME
    assert record["transfer_start"] - record["safe_point"] == pytest.approx(0.001)  # spawn
    # The state went over the network: at least the tiles node 1 holds, in 64 MiB chunks.
    assert record["state_bytes"] >= 256 * 256 * 8
    assert record["chunks"] >= 1
    assert m["bytes"] == record["state_bytes"] + record["forwarded_bytes"]
    assert m["seconds"] == pytest.approx(record["end"] - record["alarm"])


def test_migration_costs_time_but_less_than_the_failure(ftsim, tmp_path):
    free = config(GLOBAL, events=[{"time": 10.0, "node": 1}])  # after the run: failure-free
    _, reference = run(ftsim, tmp_path, free, "free")
    _, failed = run(ftsim, tmp_path, config(GLOBAL), "failed")
    _, migrated = run(ftsim, tmp_path, config(GLOBAL, {"lead_time": LEAD, "recall": 1, "precision": 1}), "migrated")
    assert reference["failures"] == [] and len(failed["failures"]) == 1
    assert reference["makespan"] < migrated["makespan"] < failed["makespan"]


def test_small_chunks_pipeline_the_state(ftsim, tmp_path):
    _, r = run(ftsim, tmp_path, config(GLOBAL, {"lead_time": LEAD, "recall": 1, "precision": 1, "chunk": "64KiB"}))
    record = r["migration"]["records"][0]
    assert record["chunks"] >= record["state_bytes"] // 65536
    assert r["complete"] and r["oracle"]["ok"] and r["migration"]["failures_avoided"] == 1


def test_a_false_alarm_costs_a_migration_and_a_spare(ftsim, tmp_path):
    # Precision 0.5 with one announced failure: exactly one false alarm (floor(1 + u)); with seed 7
    # it comes first, on node 2 (checked below: the draws are deterministic).
    prediction = {"lead_time": LEAD, "recall": 1, "precision": 0.5}
    proc, r = run(ftsim, tmp_path, config(GLOBAL, prediction, seed=7))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    m = r["migration"]
    assert (m["alarms"], m["true_alarms"], m["false_alarms"], m["migrations_done"]) == (2, 1, 1, 2)
    false, true = m["records"]
    assert (false["true_alarm"], false["node"], false["outcome"]) == (False, 2, "done")
    assert false["alarm"] < true["alarm"] and false["state_bytes"] > 0
    assert (true["node"], true["outcome"]) == (1, "done")
    assert m["failures_avoided"] == 1 and r["failures"] == []
    assert r["complete"] and r["oracle"]["ok"]
    _, precise = run(ftsim, tmp_path, config(GLOBAL, dict(prediction, precision=1), seed=7), "precise")
    assert precise["makespan"] < r["makespan"]  # the false alarm's migration cost time
    # With one spare, the false alarm takes it: the true alarm finds none, the failure ends the run.
    proc, alone = run(ftsim, tmp_path, config(GLOBAL, prediction, spares=1, seed=7), "one")
    assert proc.returncode == 1
    assert [x["outcome"] for x in alone["migration"]["records"]] == ["done", "no spare"]
    assert alone["migration"]["migrations_skipped"] == 1
    assert alone["complete"] is False and "no spare node is left" in alone["failure_reason"]


@pytest.mark.parametrize("name", ["global", "buddy"])
def test_a_lead_time_too_short_is_an_ordinary_failure(ftsim, tmp_path, name):
    # The alarm comes 0.5 ms ahead; spawn alone takes 1 ms: the failure hits during the migration.
    proc, r = run(ftsim, tmp_path, protocol_config(name, {"lead_time": "0.5ms", "recall": 1, "precision": 1}))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    m = r["migration"]
    assert (m["migrations_done"], m["migrations_interrupted"], m["failures_avoided"]) == (0, 1, 0)
    assert m["records"][0]["outcome"] == "failed" and m["records"][0]["end"] is None
    assert len(r["failures"]) == 1 and r["failures"][0]["node"] == 1
    assert r["failures"][0]["recovered_at"] is not None
    assert r["complete"] and r["oracle"]["ok"]


def test_no_spare_left_skips_the_migration(ftsim, tmp_path):
    # One spare, two announced failures on two nodes: the first migration takes the spare, the
    # second alarm finds none; its failure then has no spare either and ends the run.
    events = [{"time": FAILURE_TIME, "node": 1}, {"time": FAILURE_TIME + 0.01, "node": 2}]
    proc, r = run(ftsim, tmp_path, config(GLOBAL, {"lead_time": LEAD, "recall": 1, "precision": 1}, spares=1,
                                          events=events))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    m = r["migration"]
    assert [x["outcome"] for x in m["records"]] == ["done", "no spare"]
    assert (m["migrations_done"], m["migrations_skipped"], m["failures_avoided"]) == (1, 1, 1)
    assert "no spare node is left" in r["failure_reason"]
    # With two spares both are avoided.
    proc, r = run(ftsim, tmp_path, config(GLOBAL, {"lead_time": LEAD, "recall": 1, "precision": 1}, spares=2,
                                          events=events), "two")
    assert proc.returncode == 0 and r["migration"]["failures_avoided"] == 2 and r["failures"] == []


def test_recall_zero_changes_nothing_and_runs_are_deterministic(ftsim, tmp_path):
    _, plain = run(ftsim, tmp_path, config(GLOBAL), "plain")
    _, zero = run(ftsim, tmp_path, config(GLOBAL, {"lead_time": LEAD, "recall": 0, "precision": 0.5}), "zero")
    assert zero["makespan"] == plain["makespan"] and zero["migration"]["alarms"] == 0
    assert "migration" not in plain
    document = config(GLOBAL, {"lead_time": LEAD, "recall": 0.5, "precision": 0.5}, seed=11)
    _, a = run(ftsim, tmp_path, document, "a")
    _, b = run(ftsim, tmp_path, document, "b")
    assert a["migration"] == b["migration"] and a["makespan"] == b["makespan"]


def test_renewal_failures_with_prediction(ftsim, tmp_path):
    # Exponential failures, every one announced: the run completes and the avoided failures are
    # followed by new draws (renewal).
    stable = {"type": "global", "period": "10ms", "storage": "stable"}  # buddy storage cannot survive a failure of both
    document = config(stable, {"lead_time": LEAD, "recall": 1, "precision": 0.8}, spares=40, seed=5, storage=True)
    document["failures"] = {"model": "exponential", "mtbf": "150ms", "downtime": "1ms",
                            "prediction": document["failures"]["prediction"]}
    proc, r = run(ftsim, tmp_path, document)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    m = r["migration"]
    assert m["true_alarms"] >= 5 and m["false_alarms"] >= 1 and m["failures_avoided"] >= 5
    assert m["failures_avoided"] + len(r["failures"]) >= m["true_alarms"] - 4  # alarms of failures after the end
    assert r["complete"] and r["oracle"]["ok"]


@pytest.mark.parametrize("prediction, spares, path, message", [
    ({"lead_time": "1ms", "recall": 1.5, "precision": 1}, 3, "/failures/prediction/recall", "from 0 to 1"),
    ({"lead_time": "1ms", "recall": 1, "precision": 0}, 3, "/failures/prediction/precision", "greater than 0"),
    ({"lead_time": "-1ms", "recall": 1, "precision": 1}, 3, "/failures/prediction/lead_time", "duration"),
    ({"lead_time": "1ms", "recall": 1, "precision": 1, "chunk": 0}, 3, "/failures/prediction/chunk", "1 byte"),
    ({"lead_time": "1ms", "recall": 1, "precision": 1, "lead": 2}, 3, "/failures/prediction", "lead"),
    ({"recall": 1, "precision": 1}, 3, "/failures/prediction", "lead_time"),
    ({"lead_time": "1ms", "recall": 1, "precision": 1}, None, "/failures/prediction", "/platform/spares"),
])
def test_bad_prediction_input(ftsim, tmp_path, prediction, spares, path, message):
    document = config(GLOBAL, prediction)
    if spares is None:
        del document["platform"]["spares"]
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(document))
    proc = ftsim("validate", file)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{file}: {path}" in proc.stderr and message in proc.stderr, proc.stderr


# --- what the trace and the event log say of migrations (issue 26) ---------------------------

def run_recorded(ftsim, tmp_path, document, tag, log="migration,failure"):
    path = tmp_path / f"{tag}.json"
    path.write_text(json.dumps(document))
    out = tmp_path / f"out-{tag}"
    proc = ftsim("run", path, "-o", out, "--trace", "--log", log)
    results = json.loads((out / "results.json").read_text())
    trace = json.loads((out / "trace.json").read_text())["traceEvents"]
    log_lines = (out / "events.log").read_text().splitlines()
    return proc, results, trace, log_lines


def migration_lane(trace, node):
    return [e for e in trace if e.get("pid") == node and e.get("tid") == 10003 and e["ph"] != "M"]


def test_an_avoided_failure_is_in_the_trace_and_the_log(ftsim, tmp_path):
    document = protocol_config("global", {"lead_time": LEAD, "recall": 1, "precision": 1})
    proc, r, trace, lines = run_recorded(ftsim, tmp_path, document, "avoided")
    assert proc.returncode == 0, proc.stderr
    record = r["migration"]["records"][0]
    # A lane "migration" on every node; node 1's holds the alarm, the span and the avoided failure.
    names = {(e["pid"], e["args"]["name"]) for e in trace if e["ph"] == "M" and e.get("tid") == 10003}
    assert names == {(n, "migration") for n in range(4)}
    events = migration_lane(trace, 1)
    [alarm] = [e for e in events if e["ph"] == "i" and e["name"].startswith("alarm")]
    assert alarm["name"] == "alarm (true)" and alarm["args"]["true_alarm"] is True
    assert alarm["ts"] == pytest.approx(record["alarm"] * 1e6, abs=1e-3)
    assert alarm["args"]["predicted_failure"] == pytest.approx(FAILURE_TIME)
    [span] = [e for e in events if e["ph"] == "X"]
    assert span["name"] == "migration" and span["cat"] == "migration"
    # From the safe point to the switch, with what moved.
    assert span["ts"] == pytest.approx(record["safe_point"] * 1e6, abs=1e-3)
    assert span["ts"] + span["dur"] == pytest.approx(record["end"] * 1e6, abs=2e-3)
    args = span["args"]
    assert args["outcome"] == "done"
    assert args["bytes"] == record["state_bytes"] + record["forwarded_bytes"] == r["migration"]["bytes"]
    assert args["chunks"] == record["chunks"] and args["state_bytes"] == record["state_bytes"]
    [avoided] = [e for e in events if e["ph"] == "i" and e["name"] == "failure avoided"]
    assert avoided["ts"] == pytest.approx(FAILURE_TIME * 1e6, abs=1e-3)
    assert not any(e for n in (0, 2, 3) for e in migration_lane(trace, n))
    # No failure marker: the failure hit a host the rank had left.
    assert not [e for e in trace if e.get("name") == "failure"]
    # The event log, category "migration": alarm, start, safe point, transfer, switch, avoided.
    mine = [l for l in lines if " migration process 1 " in l]
    expected = ["true alarm: failure predicted at 0.090000000 s", "migration to a spare starts",
                "migration: safe point", "migration: the spare is up", "migration: switch, runs on the spare",
                "failure avoided: it hits the host the rank left"]
    assert len(mine) == len(expected)
    for line, text in zip(mine, expected):
        assert text in line, (line, text)
    assert f"{record['state_bytes']} B of state + {record['forwarded_bytes']} B forwarded" in mine[4]
    assert not [l for l in lines if "] failure " in l]


def test_an_interrupted_and_a_skipped_migration_are_in_the_trace_and_the_log(ftsim, tmp_path):
    short = protocol_config("global", {"lead_time": "5ms", "recall": 1, "precision": 1})
    proc, r, trace, lines = run_recorded(ftsim, tmp_path, short, "short")
    assert proc.returncode == 0, proc.stderr
    [span] = [e for e in migration_lane(trace, 1) if e["ph"] == "X"]
    assert span["args"]["outcome"] == "interrupted"
    assert span["ts"] + span["dur"] == pytest.approx(FAILURE_TIME * 1e6, abs=1e-3)
    assert [l for l in lines if "migration interrupted: the node fails before the switch" in l]
    assert [l for l in lines if "node 1 fails (incarnation 0)" in l]

    none_left = protocol_config("global", {"lead_time": LEAD, "recall": 1, "precision": 1}, spares=1,
                                events=[{"time": 0.03, "node": 2}, {"time": FAILURE_TIME, "node": 1}])
    proc, r, trace, lines = run_recorded(ftsim, tmp_path, none_left, "none-left")
    outcomes = {rec["node"]: rec["outcome"] for rec in r["migration"]["records"]}
    assert outcomes == {2: "done", 1: "no spare"}
    [span] = [e for e in migration_lane(trace, 1) if e["ph"] == "X"]
    assert span["args"]["outcome"] == "skipped" and span["args"]["reason"] == "no spare" and span["dur"] == 0
    assert [l for l in lines if " migration process 1 " in l and "alarm skipped: no spare left" in l]


def test_a_false_alarm_is_marked_as_such(ftsim, tmp_path):
    document = protocol_config("global", {"lead_time": LEAD, "recall": 1, "precision": 0.5}, seed=5)
    proc, r, trace, lines = run_recorded(ftsim, tmp_path, document, "false")
    assert proc.returncode == 0, proc.stderr
    false_records = [rec for rec in r["migration"]["records"] if not rec["true_alarm"]]
    assert false_records
    markers = [e for e in trace if e.get("tid") == 10003 and e["ph"] == "i" and e["name"] == "alarm (false)"]
    assert len(markers) == len(false_records)
    assert sorted((e["pid"], round(e["ts"], 3)) for e in markers) == \
        sorted((rec["node"], round(rec["alarm"] * 1e6, 3)) for rec in false_records)
    assert sum("false alarm: failure predicted at" in l for l in lines) == len(false_records)


def test_the_trace_and_the_log_change_no_result(ftsim, tmp_path):
    document = protocol_config("global", {"lead_time": LEAD, "recall": 1, "precision": 0.5}, seed=5)
    _, plain = run(ftsim, tmp_path, document, "plain")
    _, recorded, _, _ = run_recorded(ftsim, tmp_path, document, "recorded", log="all")
    for key in ("makespan", "events", "migration", "failures", "bytes_sent"):
        assert plain.get(key) == recorded.get(key), key


def test_runs_without_prediction_have_no_migration_lane(ftsim, tmp_path):
    proc, _, trace, _ = run_recorded(ftsim, tmp_path, protocol_config("global"), "no-prediction")
    assert proc.returncode == 0, proc.stderr
    assert not [e for e in trace if e.get("tid") == 10003]


def test_the_migration_log_category_is_validated(ftsim, tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(protocol_config("global")))
    proc = ftsim("run", path, "-o", tmp_path / "o", "--log", "migrations")
    assert proc.returncode == 2 and "migrations" in proc.stderr and "migration or all" in proc.stderr
