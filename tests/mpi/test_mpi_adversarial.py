"""Adversarial scenarios for the MPI backend: short global periods, repeated and overlapping
failures, no spare left, extreme detection/downtime, 8 nodes, large tiles, parity on spmd and
graph files, bad inputs. Each job is a few seconds at most."""
import copy
import re

import pytest

from conftest import SOURCE_DIR, base_config, with_protocol, run_simgrid

PARITY_FIELDS = ["executions", "reexecutions", "messages_sent", "bytes_sent", "duplicates_received",
                 "orphans_dropped", "checkpoint_store", "log_store", "restarts"]


def spmd(name, pattern, protocol, events=None):
    c = {"name": name, "seed": 3,
         "application": {"type": "spmd", "pattern": pattern, "iterations": 8, "message_size": "32KB",
                         "state_size": "64KB", "flops": 1e6},
         "platform": {"nodes": 4, "cores_per_node": 1, "core_gflops": {"default": 1}},
         "run": {"wall_limit": "10 s"}}
    if protocol == "global-period":
        c["protocol"] = {"type": "global", "period": "2 ms", "storage": "buddy"}
    elif protocol == "global-stable":
        c["protocol"] = {"type": "global", "at": "cuts", "storage": "stable"}
        c["checkpoints"] = {"count": 3}
        c["platform"]["storage"] = {"hosts": 1}
    else:
        c["protocol"] = {"type": protocol}
    if events is not None:
        c["failures"] = {"model": "list", "events": events, "detection": "1 ms", "downtime": "1 ms"}
    return c


def assert_verified(job, failures=None):
    assert job.proc.returncode == 0, job.output
    r = job.results
    assert r["complete"] and r["oracle"]["ok"], job.output
    v = r["mpi"]["verification"]
    if v is not None:
        assert v["bit_exact"] and v["mismatches"] == 0, job.output
        assert v["numeric_ok"], job.output
    if failures is not None:
        assert len(r["failures"]) == failures, r["failures"]
        assert all(f["recovered_at"] >= f["replaced_at"] >= f["time"] for f in r["failures"]), r["failures"]


# Bug (fixed): with a global period shorter than the termination rounds' quiet time, the
# coordinator kept starting checkpoints after the last task, the counts never stayed the same
# for two rounds, and the job ran until /run/wall_limit (1 h by default) then failed.
@pytest.mark.parametrize("period", ["2 ms", "500 us"])
def test_global_period_shorter_than_rounds_terminates_failure_free(mpirun, tmp_path, period):
    config = spmd(f"adv-period-ff-{period.replace(' ', '')}", "ring", "global-period")
    config["protocol"]["period"] = period
    job = mpirun(config, tmp_path, extra=["--no-verify"], timeout=60)
    assert_verified(job)
    assert job.results["makespan"] < 5, job.results["makespan"]


@pytest.mark.parametrize("pattern", ["halo2d", "tree"])
def test_global_period_with_a_failure_terminates(mpirun, tmp_path, pattern):
    job = mpirun(spmd(f"adv-period-{pattern}", pattern, "global-period", [{"node": 1, "after_tasks": 3}]),
                 tmp_path, timeout=60)
    assert_verified(job, failures=1)


def test_global_period_on_cg_with_stable_storage_and_two_failures(mpirun, tmp_path):
    config = with_protocol(base_config("cg"), "global")
    config["name"] = "adv-period-cg-stable"
    config.pop("checkpoints")
    config["protocol"] = {"type": "global", "period": "1 ms", "storage": "stable"}
    config["platform"]["storage"] = {"hosts": 1}
    config["failures"]["events"] = [{"node": 0, "after_tasks": 5}, {"node": 2, "time": "20 ms"}]
    config["run"] = {"wall_limit": "10 s"}
    job = mpirun(config, tmp_path, timeout=60)
    assert_verified(job, failures=2)


@pytest.mark.parametrize("protocol", ["none", "global", "lineage"])
def test_same_node_fails_again_during_and_after_recovery(mpirun, tmp_path, protocol):
    config = with_protocol(base_config("cholesky"), protocol)
    config["name"] = f"adv-same-node-{protocol}"
    config["platform"]["cores_per_node"] = 2
    # Node 1 at its 3rd task, node 2 at its 6th, node 1 again at its 10th (counted over incarnations).
    config["failures"]["events"] = [{"node": 1, "after_tasks": 3}, {"node": 2, "after_tasks": 6},
                                    {"node": 1, "after_tasks": 10}]
    job = mpirun(config, tmp_path, timeout=60)
    assert_verified(job, failures=3)
    assert sum(n["restarts"] for n in job.results["nodes"]) == 3


# Bug (fixed): on MPI a victim runs on until its fail order arrives, and lineage survivors sent
# data for it to whichever incarnation held the rank: a transfer the recovery plan counted on to
# reach the replacement (its writer had not run at the inventory) could reach the victim and die
# with it, a stall (about once in 150 runs under load). FTSIM_TEST_FAIL_ORDER_DELAY makes every
# victim that late; before the fix each of these jobs stalled in about 4 runs out of 5.
@pytest.mark.parametrize("second,third", [((2, 6), 7), ((3, 8), 6)])
def test_lineage_data_sent_to_a_victim_still_running(mpirun, tmp_path, second, third):
    config = with_protocol(base_config("cholesky"), "lineage")
    config["name"] = f"adv-late-fail-order-{second[0]}-{third}"
    config["platform"]["cores_per_node"] = 2
    config["failures"]["events"] = [{"node": 1, "after_tasks": 3}, {"node": second[0], "after_tasks": second[1]},
                                    {"node": 1, "after_tasks": third}]
    config["run"] = {"wall_limit": "10 s"}
    job = mpirun(config, tmp_path, env={"FTSIM_TEST_FAIL_ORDER_DELAY": "0.003"}, timeout=60)
    # (The third failure needs node 1's replacements to run enough tasks, which timing decides.)
    assert_verified(job, failures=len(job.results["failures"]) if job.results else None)


@pytest.mark.parametrize("detection,downtime", [("0 s", "0 s"), ("20 ms", "1 ms"), ("1 ms", "20 ms")])
def test_detection_and_downtime_extremes(mpirun, tmp_path, detection, downtime):
    config = with_protocol(base_config("cholesky"), "global")
    config["name"] = f"adv-det-{detection.replace(' ', '')}-{downtime.replace(' ', '')}"
    config["failures"]["events"] = [{"node": 0, "after_tasks": 2}, {"node": 3, "after_tasks": 2}]
    config["failures"]["detection"] = detection
    config["failures"]["downtime"] = downtime
    job = mpirun(config, tmp_path, timeout=60)
    assert_verified(job, failures=2)


@pytest.mark.parametrize("spares,events", [(0, [{"node": 1, "after_tasks": 6}]),
                                           (1, [{"node": 1, "after_tasks": 3}, {"node": 2, "after_tasks": 5}])])
def test_no_spare_left_fails_with_a_reason(mpirun, tmp_path, spares, events):
    config = with_protocol(base_config("cholesky"), "global")
    config["name"] = f"adv-spares-{spares}"
    config["platform"]["spares"] = spares
    config["failures"]["events"] = events
    job = mpirun(config, tmp_path, timeout=60)
    assert job.proc.returncode == 1, job.output
    r = job.results
    assert not r["complete"]
    assert "no spare node is left" in r["failure_reason"], r["failure_reason"]
    assert not r["mpi"]["verification"]["bit_exact"]


def test_time_failure_after_the_end_never_happens(mpirun, tmp_path):
    config = with_protocol(base_config("stencil"), "lineage")
    config["name"] = "adv-after-end"
    config["failures"]["events"] = [{"node": 1, "time": "100 s"}, {"node": 2, "after_tasks": 100000}]
    job = mpirun(config, tmp_path, timeout=60)
    assert_verified(job, failures=0)


@pytest.mark.parametrize("protocol", ["lineage", "global-stable"])
def test_eight_nodes_three_failures(mpirun, tmp_path, protocol):
    config = with_protocol(base_config("cholesky"), "global" if protocol == "global-stable" else protocol)
    config["name"] = f"adv-8n-{protocol}"
    config["platform"]["nodes"] = 8
    config["distribution"] = {"type": "block-cyclic", "P": 2, "Q": 4}
    config["application"]["tiles"] = 8
    if protocol == "global-stable":
        config["protocol"] = {"type": "global", "at": "cuts", "storage": "stable"}
        config["platform"]["storage"] = {"hosts": 1}
    config["failures"]["events"] = [{"node": 7, "after_tasks": 2}, {"node": 3, "after_tasks": 5},
                                    {"node": 0, "after_tasks": 8}]
    job = mpirun(config, tmp_path, timeout=60)
    assert_verified(job, failures=3)


@pytest.mark.parametrize("protocol", ["global", "lineage"])
def test_large_tiles(mpirun, tmp_path, protocol):
    config = with_protocol(base_config("cholesky"), protocol)
    config["name"] = f"adv-tiles512-{protocol}"
    config["application"]["tiles"] = 4
    config["application"]["tile_size"] = 512
    if protocol == "global":
        config["checkpoints"]["count"] = 2
    config["failures"]["events"] = [{"node": 3, "after_tasks": 3}]
    job = mpirun(config, tmp_path, timeout=60)
    assert_verified(job, failures=1)


# Bug (fixed, issue 39): the CG check demanded a true residual below the initial one, but an
# unconverged CG's residual 2-norm can grow (CG minimises the A-norm of the error): on a 64 x 64
# mesh after 20 iterations ||b - A x|| / ||b|| is 2.2 and right, and the job exited 1 ("FAILED").
# The result is now checked against a sequential CG's.
@pytest.mark.parametrize("failure", [False, True])
def test_unconverged_cg_whose_residual_grew_passes(mpirun, tmp_path, failure):
    config = base_config("cg")
    config.pop("$schema", None)
    config["name"] = f"adv-cg64-{'failure' if failure else 'failure-free'}"
    config["application"].update({"grid": 64, "blocks": 8, "iterations": 20})
    if not failure:
        config.pop("failures")
    job = mpirun(config, tmp_path, timeout=120)
    assert_verified(job, failures=1 if failure else 0)
    checks = job.results["mpi"]["verification"]["numeric_checks"]
    residual = re.search(r"true residual \|\|b - A x\|\| / \|\|b\|\| = ([0-9.e+-]+)", checks[0]["detail"])
    assert residual and float(residual.group(1)) > 1, checks  # the case of the issue: the residual grew


@pytest.mark.parametrize("pattern,protocol", [("alltoall", "global-stable"), ("tree", "lineage"), ("halo2d", "none")])
def test_spmd_parity_failure_free(mpirun, tmp_path, pattern, protocol):
    config = spmd(f"adv-parity-{pattern}-{protocol}", pattern, protocol)
    sim = run_simgrid(config, tmp_path)
    job = mpirun(config, tmp_path, extra=["--no-verify"], timeout=60)
    assert_verified(job)
    real = job.results
    for node, (s, m) in enumerate(zip(sim["nodes"], real["nodes"])):
        for field in PARITY_FIELDS:
            assert s[field] == m[field], f"node {node}: {field}: simgrid {s[field]} vs mpi {m[field]}"
    assert sim["starpu"] == real["starpu"]
    assert [c["bytes"] for c in sim["checkpoints"]] == [c["bytes"] for c in real["checkpoints"]]


def test_bad_failure_node_and_trace_are_bad_input(mpirun, tmp_path):
    config = with_protocol(base_config("cholesky"), "none")
    config["name"] = "adv-bad-node"
    config["failures"]["events"] = [{"node": 9, "after_tasks": 1}]
    job = mpirun(config, tmp_path, timeout=60)
    assert job.proc.returncode == 2, job.output
    assert "/failures/events/0/node" in job.output
    good = with_protocol(base_config("cholesky"), "none")
    job = mpirun(good, tmp_path, extra=["--trace"], timeout=60)
    assert job.proc.returncode == 2, job.output
    assert "--trace, --log and --checkpoint-trace are not available" in job.output
