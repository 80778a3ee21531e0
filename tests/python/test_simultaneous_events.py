"""Scheduling under core contention against a hand computation (docs/runtime.md, "Simultaneous events").

Node 0 runs `produce`, which writes X and Y (1 MB each); both are sent to node 1 at once and,
sharing node 0's up link and node 1's down link, arrive at the same instant. Node 1 has one core and
two ready tasks then: `low` (priority 0, reads X) and `high` (priority 10, reads Y), whose output H
feeds `tail` on node 0. Which one starts decides the makespan:

- high first (the priority scheduler seeing both): high ends at a + 1, H reaches node 0 after one
  transfer time m, tail ends at a + 2 + m; low ends at a + 2. Makespan a + 2 + m.
- low first (a dispatch at the first delivery, before the second is known): a + 3 + m.

With CM02 (no latency or bandwidth factors), 1 GFlop/s cores and 1e9-flop tasks, 8 Gb/s (1e9 B/s)
and 10 us links, every message 1 MB + the 32-byte envelope, a route crossing two links:
a = 1 + 2 x 1,000,032 / 1e9 + 2 x 10 us (two messages share the links) and m = 1,000,032 / 1e9 + 2 x 10 us.
"""
import json

import pytest

ENVELOPE = 32
MB = 1_000_000
BANDWIDTH = 1e9  # bytes per second
LATENCY = 10e-6
ARRIVAL = 1 + 2 * (MB + ENVELOPE) / BANDWIDTH + 2 * LATENCY
TRANSFER = (MB + ENVELOPE) / BANDWIDTH + 2 * LATENCY
HIGH_FIRST = ARRIVAL + 2 + TRANSFER


def graph(swap_data_order: bool):
    data = [{"name": "X", "bytes": MB, "owner": 0}, {"name": "Y", "bytes": MB, "owner": 0}]
    writes = [["W", "X"], ["W", "Y"]]
    if swap_data_order:  # other handle ids, other send order: the same schedule must come out
        data.reverse()
        writes.reverse()
    return {
        "format": "ftsim-graph", "version": 1, "nodes": 2,
        "kernels": [{"name": "produce", "flops": 1e9}, {"name": "work", "flops": 1e9}],
        "data": data + [{"name": n, "bytes": MB, "owner": o} for n, o in (("L", 1), ("H", 1), ("T", 0))],
        "submission": [
            {"kernel": "produce", "node": 0, "access": writes},
            {"kernel": "work", "node": 1, "access": [["R", "X"], ["W", "L"]], "priority": 0},
            {"kernel": "work", "node": 1, "access": [["R", "Y"], ["W", "H"]], "priority": 10},
            {"kernel": "work", "node": 0, "access": [["R", "H"], ["W", "T"]], "priority": 10},
        ],
    }


def run(ftsim, tmp_path, swap: bool, contention: str = "flows", solver: str | None = None):
    name = f"{'swapped' if swap else 'plain'}-{contention}-{solver}"
    (tmp_path / f"{name}.graph.json").write_text(json.dumps(graph(swap)))
    config = {
        "name": name,
        "application": {"type": "json", "file": f"{name}.graph.json"},
        "platform": {"nodes": 2, "cores_per_node": 1, "core_gflops": 1,
                     "network": {"topology": "star", "model": "CM02", "contention": contention,
                                 "bandwidth": "8Gbps", "latency": "10us"}},
    }
    if solver:
        config["platform"]["network"]["solver"] = solver
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(config))
    result = ftsim("run", path, "-o", tmp_path / name, "--trace")
    assert result.returncode == 0, result.stdout + result.stderr
    results = json.loads((tmp_path / name / "results.json").read_text())
    starts = {}
    for event in json.loads((tmp_path / name / "trace.json").read_text())["traceEvents"]:
        if event.get("ph") == "X" and event.get("cat") == "work" and event.get("pid") == 1:
            starts[event["ts"]] = event["name"]
    return results["makespan"], [starts[t] for t in sorted(starts)]


@pytest.mark.parametrize("swap", [False, True])
def test_simultaneous_arrivals_start_the_highest_priority_task(ftsim, tmp_path, swap):
    makespan, order_on_node_1 = run(ftsim, tmp_path, swap)
    assert makespan == pytest.approx(HIGH_FIRST, rel=1e-9)
    assert len(order_on_node_1) == 2 and order_on_node_1[0] != order_on_node_1[1]
    # The task that reads Y (high) ran first, whatever the order of the data and of the sends.
    assert order_on_node_1[0].startswith("work") and makespan < ARRIVAL + 3 + TRANSFER - 0.5

