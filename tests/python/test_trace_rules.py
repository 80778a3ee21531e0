"""trace.json opens right in a viewer, for every protocol (docs/results.md, trace.json): every flow arrow ends
inside a slice on the receiver's side (viewers bind an "f" event to the slice enclosing it, and drop or misplace the
arrow otherwise), slices on one lane never overlap (end points are rounded once), instant events have short names and
their details in args, and every lane is named. Concurrent transfers and protocol spans get lanes of their own: no two
slices of one lane overlap partially (viewers mis-nest them), also on the quickstart under global and buddy."""
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


def partial_overlaps(events):
    """Pairs of "X" slices of one lane (pid, tid) that overlap without one containing the other, in integer
    nanoseconds (the writer rounds end points to the nanosecond; touching slices do not overlap)."""
    lanes = collections.defaultdict(list)
    for e in events:
        if e["ph"] == "X":
            start = round(e["ts"] * 1000)
            lanes[(e["pid"], e["tid"])].append((start, start + round(e["dur"] * 1000), e["name"]))
    found = []
    for lane, slices in lanes.items():
        slices.sort(key=lambda s: (s[0], -s[1]))  # a container before what it contains
        open_slices = []  # nested, outermost first
        for start, end, name in slices:
            while open_slices and open_slices[-1][1] <= start:
                open_slices.pop()
            if open_slices and open_slices[-1][1] < end:
                found.append((lane, open_slices[-1], (start, end, name)))
            open_slices.append((start, end, name))
    return found


def test_partial_overlaps_are_found():
    def x(ts, dur, tid=0):
        return {"ph": "X", "pid": 0, "tid": tid, "ts": ts, "dur": dur, "name": "s"}
    assert partial_overlaps([x(0.0, 2.0), x(1.0, 2.0)])  # [0, 2] and [1, 3]
    assert not partial_overlaps([x(0.0, 2.0), x(2.0, 1.0), x(0.5, 1.0), x(0.5, 0.0)])  # touching, nested
    assert not partial_overlaps([x(0.0, 2.0), x(1.0, 2.0, tid=1)])  # other lanes
    assert partial_overlaps([x(0.0, 4.0), x(1.0, 1.0), x(1.5, 1.0)])  # inside one slice, across another


def test_no_two_slices_of_a_lane_overlap_partially(trace):
    assert partial_overlaps(trace) == []


@pytest.fixture(scope="module", params=["global", "buddy"])
def quickstart_trace(request, ftsim, source_dir, tmp_path_factory):
    """The quickstart (configs/quickstart.json) under `global` (its own protocol) and `buddy`, without the
    reference runs."""
    tmp = tmp_path_factory.mktemp(f"quickstart-{request.param}")
    document = json.loads((source_dir / "configs" / "quickstart.json").read_text())
    document.pop("$schema")
    document["run"]["reference"] = False
    if request.param == "buddy":
        document["protocol"] = {"type": "buddy"}
        document["checkpoints"] = {"count": 3, "buddy": "next"}
    path = tmp / "config.json"
    path.write_text(json.dumps(document))
    result = ftsim("run", path, "-o", tmp / "out", "--trace")
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads((tmp / "out" / "trace.json").read_text())["traceEvents"]


def test_no_lane_of_the_quickstart_has_partial_overlaps(quickstart_trace):
    """Issue 39: concurrent sends were slices of one "sends" lane per node, about 300 partial overlaps per run."""
    assert partial_overlaps(quickstart_trace) == []
    lanes = {e["args"]["name"] for e in quickstart_trace if e["ph"] == "M" and e["name"] == "thread_name"}
    assert {"sends", "sends 2", "receives"} <= lanes  # concurrent sends are drawn side by side
    test_every_flow_ends_inside_a_slice_on_the_receiver(quickstart_trace)
    test_every_lane_used_is_named(quickstart_trace)


def test_every_flow_ends_inside_a_slice_on_the_receiver(trace):
    lanes = slices_by_lane(trace)
    finishes = [e for e in trace if e["ph"] == "f"]
    assert finishes
    # In exactly one slice: the arrow's end is not bound to another transfer's slice.
    unbound = [f for f in finishes if sum(start <= f["ts"] <= end for start, end in lanes[(f["pid"], f["tid"])]) != 1]
    assert unbound == []
    starts = [e for e in trace if e["ph"] == "s"]
    assert all(sum(a <= s["ts"] <= b for a, b in lanes[(s["pid"], s["tid"])]) == 1 for s in starts)


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
