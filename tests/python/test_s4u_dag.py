"""bench/s4u_dag, the baseline of bench/engine_speed.py (issue 40): the same graph as an S4U
activity DAG must give ftsim's makespan bit for bit when no host runs more tasks than it has cores,
so that the engine-speed ratio compares the same work and cannot drift silently."""
import json
import subprocess

import pytest

from conftest import BINARY

S4U_DAG = BINARY.parent / "bench" / "s4u_dag"

CHOLESKY = {
    "name": "s4u-dag-cholesky",
    "application": {"type": "cholesky", "tiles": 6, "tile_size": 320, "precision": "single"},
    "distribution": {"type": "block-cyclic", "P": 2, "Q": 2},
    "platform": {"nodes": 4, "cores_per_node": 24, "core_gflops": {"default": 60.2},
                 "network": {"topology": "cluster", "bandwidth": 5e9, "latency": 1e-6}},
}
# A speed per kernel (the hosts then run at 1 GFlop/s) and a backbone every transfer crosses.
CHOLESKY_KERNEL_SPEEDS = {
    "name": "s4u-dag-kernel-speeds",
    "application": {"type": "cholesky", "tiles": 8, "tile_size": 256, "precision": "double", "order": "column",
                    "priorities": "critical-path"},
    "distribution": {"type": "block-cyclic", "P": 2, "Q": 2},
    "platform": {"nodes": 4, "cores_per_node": 16, "core_gflops": {"POTRF": 10, "TRSM": 20, "SYRK": 25, "GEMM": 30},
                 "network": {"topology": "cluster", "bandwidth": 1.25e9, "latency": 1e-6,
                             "backbone_bandwidth": 2e9, "backbone_latency": 2e-6}},
}
# Node 0 writes A and sends it to node 1, then overwrites A at once (W): the overwrite must wait
# until the send has left (StarPU's read access on data under transfer). C's initial value goes
# from its owner to node 1 at time 0 and holds node 0's write of C back the same way.
HELD_WRITES_GRAPH = {
    "format": "ftsim-graph", "version": 1, "nodes": 2,
    "kernels": [{"name": "write", "flops": 2e7}, {"name": "read", "flops": 1e6}],
    "data": [{"name": "A", "bytes": 100000000, "owner": 0}, {"name": "C", "bytes": 50000000, "owner": 0}],
    "submission": [
        {"kernel": "write", "node": 0, "access": [["RW", "A"]]},
        {"kernel": "read", "node": 1, "access": [["R", "A"], ["R", "C"]]},
        {"kernel": "write", "node": 0, "access": [["W", "A"]]},
        {"kernel": "write", "node": 0, "access": [["W", "C"]]},
    ],
}
HELD_WRITES = {
    "name": "s4u-dag-held-writes",
    "application": {"type": "json", "file": "graph.json"},
    "platform": {"nodes": 2, "cores_per_node": 4, "core_gflops": 1,
                 "network": {"bandwidth": 1.25e9, "latency": 1e-6}},
}


def s4u_dag_arguments(config: dict) -> list:
    platform = config["platform"]
    network = platform["network"]
    arguments = ["--cores", platform["cores_per_node"], "--bandwidth", repr(network["bandwidth"]),
                 "--latency", repr(network["latency"])]
    if "backbone_bandwidth" in network:
        arguments += ["--backbone-bandwidth", repr(network["backbone_bandwidth"]),
                      "--backbone-latency", repr(network["backbone_latency"])]
    speeds = platform["core_gflops"]
    for kernel, gflops in (speeds.items() if isinstance(speeds, dict) else [("default", speeds)]):
        arguments += ["--gflops", repr(gflops) if kernel == "default" else f"{kernel}={gflops!r}"]
    return [str(a) for a in arguments]


def both(tmp_path, ftsim, config: dict) -> tuple:
    """(ftsim's results.json, s4u_dag's output) on the graph of `config`."""
    if not S4U_DAG.exists():
        pytest.fail(f"{S4U_DAG} not found; build first (make test does)")
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    graph = tmp_path / "exported.json"
    exported = ftsim("graph", path, "--json", graph)
    assert exported.returncode == 0, exported.stderr
    # SimGrid's own solver on both sides: the same sharing computed the same way (the default,
    # "grouped", computes it in another order: within rounding, checked below).
    ran = ftsim("run", path, "-o", tmp_path / "out", "--set", "platform.network.solver=lazy")
    assert ran.returncode == 0, ran.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    grouped = ftsim("run", path, "-o", tmp_path / "grouped")
    assert grouped.returncode == 0, grouped.stderr
    grouped_makespan = json.loads((tmp_path / "grouped" / "results.json").read_text())["makespan"]
    assert grouped_makespan == pytest.approx(results["makespan"], rel=1e-12)
    dag = subprocess.run([str(S4U_DAG), str(graph), *s4u_dag_arguments(config)], capture_output=True, text=True,
                         timeout=60)
    assert dag.returncode == 0, dag.stderr
    return results, json.loads(dag.stdout)


@pytest.mark.parametrize("config", [CHOLESKY, CHOLESKY_KERNEL_SPEEDS], ids=["one-speed", "kernel-speeds"])
def test_s4u_dag_makespan_equals_ftsim(tmp_path, ftsim, config):
    results, dag = both(tmp_path, ftsim, config)
    assert not dag["cores_shared"], dag
    assert dag["fifo_overtakes"] == 0
    assert dag["activities"] == results["events"]  # task ends + message deliveries
    assert dag["transfers"] > 0
    assert dag["makespan"] == results["makespan"]  # bit for bit


def test_s4u_dag_writes_wait_for_sends(tmp_path, ftsim):
    (tmp_path / "graph.json").write_text(json.dumps(HELD_WRITES_GRAPH))
    results, dag = both(tmp_path, ftsim, HELD_WRITES)
    assert dag["transfers"] == 2
    assert dag["makespan"] == results["makespan"]
    # The overwrite of A ends a write (20 ms) after the 100 MB message has left (at 20 ms, over 80 ms
    # at 1.25 GB/s), not at 40 ms; without the hold the run would end with node 1's read at 0.104 s.
    assert results["makespan"] > 0.02 + 0.08 + 0.02


def test_s4u_dag_reports_shared_cores(tmp_path, ftsim):
    config = json.loads(json.dumps(CHOLESKY))
    config["platform"]["cores_per_node"] = 1
    results, dag = both(tmp_path, ftsim, config)
    assert dag["cores_shared"] and dag["most_execs_at_once"] > 1
    assert dag["activities"] == results["events"]


def test_s4u_dag_bad_graph(tmp_path):
    graph = tmp_path / "bad.json"
    graph.write_text(json.dumps({"nodes": 2, "kernels": [{"name": "k", "flops": 1}], "data": [],
                                 "submission": [{"kernel": "k", "node": 0, "access": [["R", 3]]}]}))
    ran = subprocess.run([str(S4U_DAG), str(graph), "--cores", "1", "--bandwidth", "1e9", "--latency", "0",
                          "--gflops", "1"], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 2
    assert f"{graph}: /submission/0/access/0/1: expected a data index below 0" in ran.stderr
    ran = subprocess.run([str(S4U_DAG), str(graph), "--cores", "1", "--bandwidth", "fast"], capture_output=True,
                         text=True, timeout=60)
    assert ran.returncode == 2 and "option --bandwidth" in ran.stderr
