"""The uncoordinated protocol (Guermouche 2011) on the MPI backend: each logging mode on 4 ranks
(configs/mpi/cholesky-uncoordinated.json) and on 8 (configs/mpi/stencil-uncoordinated-8.json), one
injected failure, bit-exact against the failure-free MPI run; and failure-free parity with SimGrid."""
import copy
import json

import pytest

from conftest import SOURCE_DIR, run_simgrid

CONFIGS = {4: "cholesky-uncoordinated.json", 8: "stencil-uncoordinated-8.json"}
MODES = ["send-deterministic", "none", "all"]


def config(nodes: int, logging: str) -> dict:
    c = json.loads((SOURCE_DIR / "configs" / "mpi" / CONFIGS[nodes]).read_text())
    c.pop("$schema", None)
    c["protocol"]["logging"] = logging
    c["name"] = f"{c['name']}-{logging}"
    return c


@pytest.mark.parametrize("nodes", sorted(CONFIGS))
@pytest.mark.parametrize("logging", MODES)
def test_one_failure_recovers_bit_exact(mpirun, tmp_path, nodes, logging):
    job = mpirun(config(nodes, logging), tmp_path)
    assert job.proc.returncode == 0, job.output
    r = job.results
    assert r["backend"] == "mpi" and r["complete"] and r["oracle"]["ok"], job.output
    assert len(r["failures"]) == 1
    failure = r["failures"][0]
    assert failure["recovered_at"] >= failure["time"] and failure["processes_rolled_back"] >= 1, failure
    v = r["mpi"]["verification"]
    assert v["bit_exact"] and v["mismatches"] == 0, job.output
    metrics = r["protocol_metrics"]
    assert metrics["recoveries"] >= 1 and metrics["data_messages"] > 0
    if logging == "all":  # only the failed node rolls back
        assert failure["processes_rolled_back"] == 1
        assert metrics["messages_logged"] == metrics["data_messages"]
    if logging == "none":
        assert metrics["messages_logged"] == 0


# Checkpoints come at wall-clock times on MPI and at simulated times in a simulation: the parity runs
# have a period longer than the run (no checkpoint; epochs stay where they start), so that what the
# hosts count does not depend on time.
PARITY_FIELDS = ["executions", "reexecutions", "messages_sent", "bytes_sent", "duplicates_received",
                 "orphans_dropped", "log_store", "restarts"]


@pytest.mark.parametrize("nodes", sorted(CONFIGS))
@pytest.mark.parametrize("logging", MODES)
def test_backend_parity_failure_free(mpirun, tmp_path, nodes, logging):
    c = config(nodes, logging)
    c.pop("failures")
    c["protocol"]["period"] = "1000 s"
    c["name"] += "-parity"
    sim = run_simgrid(copy.deepcopy(c), tmp_path)
    job = mpirun(c, tmp_path, extra=["--no-verify"])
    assert job.proc.returncode == 0, job.output
    real = job.results
    for node, (s, m) in enumerate(zip(sim["nodes"], real["nodes"])):
        for peak in ("peak_bytes", "copies_peak_bytes"):  # when acknowledgements come depends on the backend
            s["log_store"].pop(peak, None)
            m["log_store"].pop(peak, None)
        for field in PARITY_FIELDS:
            assert s[field] == m[field], f"node {node}: {field}: simgrid {s[field]} vs mpi {m[field]}"
    for name in ("data_messages", "messages_logged", "logged_bytes", "piggybacked_bytes", "acks", "checkpoints"):
        assert sim["protocol_metrics"][name] == real["protocol_metrics"][name], name
    assert sim["oracle"]["ok"] and real["oracle"]["ok"]
