"""trace.json opens right in a viewer, for every protocol (docs/results.md, trace.json): every flow arrow ends
inside a slice on the receiver's side (viewers bind an "f" event to the slice enclosing it, and drop or misplace the
arrow otherwise), slices on one lane never overlap (end points are rounded once), instant events have short names and
their details in args, and every lane is named."""
import collections
import json

import pytest

PROTOCOLS = {
    "none": {"type": "none"},
    "global": {"type": "global", "at": "cuts", "storage": "buddy"},
    "lineage": {"type": "lineage"},
    "buddy": {"type": "buddy"},
}


@pytest.fixture(scope="module", params=sorted(PROTOCOLS))
def trace(request, ftsim, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(request.param)
    document = {
        "name": f"rules-{request.param}",
        "application": {"type": "cholesky", "tiles": 8, "tile_size": 128},
        "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": 2,
                     "network": {"topology": "star", "bandwidth": "10Gbps", "latency": "5us"}},
        "checkpoints": {"count": 3, "buddy": "next"},
        "protocol": PROTOCOLS[request.param],
        "failures": {"model": "list", "events": [{"node": 1, "after_tasks": 12}], "downtime": "0.1ms"},
    }
    path = tmp / "config.json"
    path.write_text(json.dumps(document))
    result = ftsim("run", path, "-o", tmp / "out", "--trace")
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads((tmp / "out" / "trace.json").read_text())["traceEvents"]


def slices_by_lane(events):
    lanes = collections.defaultdict(list)
    for e in events:
        if e["ph"] == "X":
            lanes[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
    return lanes


def test_every_flow_ends_inside_a_slice_on_the_receiver(trace):
    lanes = slices_by_lane(trace)
    finishes = [e for e in trace if e["ph"] == "f"]
    assert finishes
    unbound = [f for f in finishes if not any(start <= f["ts"] <= end for start, end in lanes[(f["pid"], f["tid"])])]
    assert unbound == []
    starts = [e for e in trace if e["ph"] == "s"]
    assert all(any(a <= s["ts"] <= b for a, b in lanes[(s["pid"], s["tid"])]) for s in starts)


def test_task_slices_on_a_core_never_overlap(trace):
    for (pid, tid), spans in slices_by_lane(trace).items():
        if tid >= 10000:
            continue
        spans.sort()
        for (_, end), (start, _) in zip(spans, spans[1:]):
            assert start >= end - 1e-6, (pid, tid, end, start)  # microseconds: less than a nanosecond of float error


def test_instants_have_short_names_and_args(trace):
    instants = [e for e in trace if e["ph"] == "i"]
    assert any(e["name"] == "failure" for e in instants)
    for e in instants:
        assert len(e["name"]) <= 24 and " of node" not in e["name"], e
        assert isinstance(e.get("args"), dict) and e["args"], e


def test_every_lane_used_is_named(trace):
    named = {(e["pid"], e["tid"]) for e in trace if e["ph"] == "M" and e["name"] == "thread_name"}
    used = {(e["pid"], e["tid"]) for e in trace if e["ph"] in ("X", "i", "s", "f")}
    assert used - named == set()
