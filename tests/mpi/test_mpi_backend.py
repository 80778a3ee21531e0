"""The MPI backend: the same node hosts and protocols on MPI ranks, real kernels, one emulated
fail-stop failure per run, verified bit-exact against a failure-free MPI run and numerically."""
import pytest

from conftest import APPS, PROTOCOLS, base_config, with_protocol, run_simgrid

# Buddy checkpoints become valid asynchronously, in wall-clock time: a failure before the first one
# is valid restarts the failed node from the job's input ("from scratch"), still locally.
EXPECTED_RESTART = {"none": ("from scratch",), "global": ("checkpoint",), "lineage": ("lineage",),
                    "buddy": ("checkpoint", "from scratch"), "cck": ("checkpoint",)}


@pytest.mark.parametrize("app", APPS)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_one_failure_recovers_bit_exact(mpirun, tmp_path, app, protocol):
    job = mpirun(with_protocol(base_config(app), protocol), tmp_path)
    assert job.proc.returncode == 0, job.output
    r = job.results
    assert r["backend"] == "mpi"
    assert r["complete"] and r["oracle"]["ok"], job.output
    assert len(r["failures"]) == 1, job.output
    failure = r["failures"][0]
    assert failure["recovered_at"] >= failure["replaced_at"] >= failure["time"], failure
    assert failure["restart_point"].startswith(EXPECTED_RESTART[protocol]), failure
    assert sum(n["restarts"] for n in r["nodes"]) == 1
    v = r["mpi"]["verification"]
    assert v["bit_exact"] and v["mismatches"] == 0, job.output
    assert v["numeric_ok"] and v["numeric_checks"], job.output
    assert all(c["ok"] for c in v["numeric_checks"])
    assert "bit-exact" in job.proc.stdout
    if protocol == "buddy":  # local restart: survivors re-execute nothing
        assert [n["reexecutions"] for i, n in enumerate(r["nodes"]) if i != failure["node"]] == [0, 0, 0]
    if protocol == "cck":  # the failed node restored its checkpoint; survivors re-executed only what they planned
        m = r["protocol_metrics"]
        assert m["restarts"] == 1 and m["checkpoints_validated"] >= 1, m
        assert m["survivor_reexecutions"] == m["planned_reexecutions"], m
        assert [n["reexecutions"] for i, n in enumerate(r["nodes"]) if i != failure["node"]] == \
            [n["protocol_metrics"]["survivor_reexecutions"] for i, n in enumerate(r["nodes"]) if i != failure["node"]]
    if protocol == "global":
        assert any(c["committed"] >= 0 for c in r["checkpoints"])
        assert sum(n["bytes_sent"]["checkpoint"] for n in r["nodes"]) > 0


# Failure-free runs of the same config: what the hosts count must not depend on the backend.
PARITY_FIELDS = ["executions", "reexecutions", "messages_sent", "bytes_sent", "duplicates_received",
                 "orphans_dropped", "checkpoint_store", "log_store", "restarts"]


@pytest.mark.parametrize("app,protocol", [("cholesky", "global"), ("stencil", "global"), ("cg", "global"),
                                          ("cholesky", "lineage"), ("stencil", "none"),
                                          ("cholesky", "buddy"), ("stencil", "buddy"), ("cg", "buddy"),
                                          ("cholesky", "cck"), ("stencil", "cck"), ("cg", "cck")])
def test_backend_parity_failure_free(mpirun, tmp_path, app, protocol):
    config = with_protocol(base_config(app), protocol)
    config.pop("failures")
    config["name"] += "-parity"
    sim = run_simgrid(config, tmp_path)
    job = mpirun(config, tmp_path, extra=["--no-verify"])
    assert job.proc.returncode == 0, job.output
    real = job.results
    assert set(sim) == set(real), "results.json has one schema for both backends"
    assert sim["mpi"] is None and real["mpi"]["ranks"] == 5
    assert len(sim["nodes"]) == len(real["nodes"])
    for node, (s, m) in enumerate(zip(sim["nodes"], real["nodes"])):
        if protocol == "buddy":
            # Log entries are dropped when a reader's validation arrives, and an older checkpoint
            # when the buddy acknowledges the next: the peaks depend on how messages interleave in
            # time, which differs between the backends; the totals do not (a CI run saw the
            # checkpoint store's peak differ on stencil).
            for peak in ("peak_bytes", "copies_peak_bytes"):
                s["log_store"].pop(peak)
                m["log_store"].pop(peak)
            s["checkpoint_store"].pop("peak_bytes")
            m["checkpoint_store"].pop("peak_bytes")
        for field in PARITY_FIELDS + ["protocol_metrics"]:
            assert s[field] == m[field], f"node {node}: {field}: simgrid {s[field]} vs mpi {m[field]}"
    assert sim["starpu"] == real["starpu"]
    # The protocol's named metrics, but times (wall-clock on MPI).
    counts = [name for name, unit in sim["protocol_metric_units"].items() if unit != "us"]
    assert {k: sim["protocol_metrics"][k] for k in counts} == {k: real["protocol_metrics"][k] for k in counts}
    assert [c["bytes"] for c in sim["checkpoints"]] == [c["bytes"] for c in real["checkpoints"]]
    assert sim["oracle"]["ok"] and real["oracle"]["ok"]


def test_wrong_number_of_ranks_is_bad_input(mpirun, tmp_path):
    job = mpirun(with_protocol(base_config("cholesky"), "none"), tmp_path, ranks=3)
    assert job.proc.returncode == 2, job.output
    assert "mpirun -np 5" in job.output and "this job has 3 ranks" in job.output


def test_single_precision_is_refused(mpirun, tmp_path):
    config = with_protocol(base_config("cholesky"), "none")
    config["application"]["precision"] = "single"
    job = mpirun(config, tmp_path)
    assert job.proc.returncode == 2, job.output
    assert "/application" in job.output and "double precision only" in job.output


def test_a_rank_that_crashes_ends_the_job_naming_it(mpirun, tmp_path):
    job = mpirun(with_protocol(base_config("cholesky"), "global"), tmp_path, env={"FTSIM_TEST_CRASH_RANK": "2"}, timeout=120)
    assert job.proc.returncode != 0
    assert "rank 2" in job.output, job.output


def test_wall_limit_ends_the_run_with_its_results(mpirun, tmp_path):
    config = with_protocol(base_config("cg"), "lineage")
    config["run"] = {"wall_limit": "1 ms"}
    job = mpirun(config, tmp_path, extra=["--no-verify"])
    assert job.proc.returncode == 1, job.output
    assert not job.results["complete"]
    assert "wall time limit" in job.results["failure_reason"]


def test_spmd_with_stable_storage_and_two_failures(mpirun, tmp_path):
    # Real payloads from the synthetic kernel; checkpoints to the driver's stable storage.
    config = {"name": "mpi-spmd-stable", "seed": 4,
              "application": {"type": "spmd", "pattern": "halo2d", "iterations": 10, "message_size": "64KB",
                              "state_size": "256KB", "flops": 2e6},
              "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": {"default": 1}, "storage": {"hosts": 1}},
              "checkpoints": {"count": 3}, "protocol": {"type": "global", "at": "cuts", "storage": "stable"},
              "failures": {"model": "list", "events": [{"node": 0, "after_tasks": 5}, {"node": 2, "after_tasks": 12}],
                           "detection": "1 ms", "downtime": "1 ms"}}
    job = mpirun(config, tmp_path)
    assert job.proc.returncode == 0, job.output
    r = job.results
    assert len(r["failures"]) == 2 and all(f["recovered_at"] >= 0 for f in r["failures"])
    assert r["mpi"]["verification"]["bit_exact"]
    assert sum(n["bytes_sent"]["checkpoint"] for n in r["nodes"]) > 0


def test_a_user_graph_file_under_lineage(mpirun, tmp_path, ):
    # A json graph (Lion 2020 Fig. 2, 2 nodes: 3 ranks) with the synthetic kernel.
    from conftest import SOURCE_DIR
    config = {"name": "mpi-fig2-lineage", "application": {"type": "json", "file": str(SOURCE_DIR / "configs/examples/graphs/lion2020-fig2.json")},
              "platform": {"nodes": 2, "cores_per_node": 1, "core_gflops": {"default": 1000}},
              "protocol": {"type": "lineage"},
              "failures": {"model": "list", "events": [{"node": 1, "after_tasks": 2}], "detection": "1 ms", "downtime": "1 ms"}}
    job = mpirun(config, tmp_path)
    assert job.proc.returncode == 0, job.output
    assert len(job.results["failures"]) == 1
    assert job.results["mpi"]["verification"]["bit_exact"]


# CCK on 8 node ranks (9 ranks with the driver), one failure per application: bit-exact, and only
# the failed node restored (Besseron 2006 §3.5).
@pytest.mark.parametrize("app", APPS)
def test_cck_on_eight_ranks_recovers_bit_exact(mpirun, tmp_path, app):
    import json
    from conftest import SOURCE_DIR
    config = json.loads((SOURCE_DIR / "configs" / "mpi" / f"{app}-cck.json").read_text())
    config.pop("$schema")
    config["name"] += "-8"
    config["platform"]["nodes"] = 8
    if config["distribution"]["type"] == "block-cyclic":
        config["distribution"] = {"type": "block-cyclic", "P": 2, "Q": 4}
    if app == "cholesky":
        config["application"]["tiles"] = 8
    # Half the tasks per node: fail halfway through as on 4 nodes, after a valid checkpoint.
    config["failures"]["events"][0]["after_tasks"] = {"cholesky": 9, "stencil": 25, "cg": 75}[app]
    job = mpirun(config, tmp_path)
    assert job.proc.returncode == 0, job.output
    r = job.results
    assert r["complete"] and r["oracle"]["ok"], job.output
    assert len(r["failures"]) == 1 and r["failures"][0]["restart_point"].startswith("checkpoint"), r["failures"]
    assert r["protocol_metrics"]["restarts"] == 1
    v = r["mpi"]["verification"]
    assert v["bit_exact"] and v["mismatches"] == 0 and v["numeric_ok"], job.output


# CCK's coordinator on node 0 ("coordinator": 0), and node 0 fails: its replacement reads the
# coordinator's record back from checkpoint server 0 and opens the restart round.
@pytest.mark.parametrize("app", APPS)
def test_cck_coordinator_on_a_failing_node(mpirun, tmp_path, app):
    import json
    from conftest import SOURCE_DIR
    config = json.loads((SOURCE_DIR / "configs" / "mpi" / f"{app}-cck.json").read_text())
    config.pop("$schema")
    config["name"] += "-coordinator-0"
    config["protocol"]["coordinator"] = 0
    config["failures"]["events"][0]["node"] = 0
    job = mpirun(config, tmp_path)
    assert job.proc.returncode == 0, job.output
    r = job.results
    assert r["complete"] and r["oracle"]["ok"], job.output
    assert len(r["failures"]) == 1 and r["failures"][0]["node"] == 0 and r["failures"][0]["recovered_at"] >= 0
    assert r["protocol_metrics"]["restarts"] == 1
    v = r["mpi"]["verification"]
    assert v["bit_exact"] and v["mismatches"] == 0 and v["numeric_ok"], job.output
