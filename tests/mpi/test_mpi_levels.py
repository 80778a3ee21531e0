"""global's checkpoint levels on the MPI backend, with the applications' real data: a replacement
restores from its buddy's memory, or rebuilds its checkpoint by a real XOR of the other members'
checkpoints and parity blocks (docs/multilevel.md); either way bit-exact against the failure-free
MPI run. A rack failure (two ranks at once) is rebuilt across racks, a job failure restored from stable
storage, on every application. Stable storage (the driver's memory) is covered by test_mpi_backend.py."""
import pytest

from conftest import APPS, base_config, with_protocol


def with_levels(app: str, levels: list) -> dict:
    config = with_protocol(base_config(app), "global")
    config["name"] += "-levels"
    config["protocol"] = {"type": "global", "at": "cuts", "levels": levels}
    config["platform"]["storage"] = {"hosts": 1}
    return config


def check_bit_exact(job):
    assert job.proc.returncode == 0, job.output
    r = job.results
    assert r["complete"] and r["oracle"]["ok"], job.output
    assert len(r["failures"]) == 1 and r["failures"][0]["restart_point"].startswith("checkpoint"), r["failures"]
    v = r["mpi"]["verification"]
    assert v["bit_exact"] and v["mismatches"] == 0 and v["numeric_ok"], job.output
    return r


@pytest.mark.parametrize("app", APPS)
def test_a_replacement_rebuilds_its_checkpoint_from_the_xor_set(mpirun, tmp_path, app):
    # One set of the 4 node ranks; checkpoints on the XOR level only between the stable ones.
    job = mpirun(with_levels(app, [{"storage": "xor", "group": 4}, {"storage": "stable", "every": 64}]), tmp_path)
    r = check_bit_exact(job)
    # The rebuild: one answer from each of the 3 other members (their checkpoint and parity block).
    assert r["messages_sent"]["restore"] == 3, r["messages_sent"]
    assert r["bytes_sent"]["restore"] > 0


def test_a_replacement_restores_from_its_buddy_before_the_xor_set(mpirun, tmp_path):
    job = mpirun(with_levels("stencil", [{"storage": "buddy"}, {"storage": "xor", "group": 2, "every": 1}]), tmp_path)
    r = check_bit_exact(job)
    # The buddy's copy, then the block of the other member of its set (of 2) for its parity block.
    assert r["messages_sent"]["restore"] == 2, r["messages_sent"]


def with_failure_class(app: str, levels: list, failure_class: str) -> dict:
    # Racks of 2 ranks ({0, 1}, {2, 3}); the configured failure (a rank at a task count) takes its
    # whole rack or the whole job at the same instant.
    config = with_levels(app, levels)
    config["name"] += f"-{failure_class}"
    config["platform"]["group_size"] = 2
    for event in config["failures"]["events"]:
        event["class"] = failure_class
    return config


def check_class(job, failure_class: str, ranks: int):
    assert job.proc.returncode == 0, job.output
    r = job.results
    assert r["complete"] and r["oracle"]["ok"], job.output
    assert r["failure_events"][failure_class] == 1, r["failure_events"]
    assert len(r["failures"]) == ranks and {f["class"] for f in r["failures"]} == {failure_class}, r["failures"]
    v = r["mpi"]["verification"]
    assert v["bit_exact"] and v["mismatches"] == 0 and v["numeric_ok"], job.output
    return r


@pytest.mark.parametrize("app", APPS)
def test_a_rack_failure_is_rebuilt_from_the_xor_set_across_racks(mpirun, tmp_path, app):
    # Buddy n + 1: rank 2's buddy (3) is in its rack, so rank 2 rebuilds from its XOR set ({0, 2});
    # rank 3's buddy (0) survives.
    levels = [{"storage": "buddy"}, {"storage": "xor", "group": 2, "every": 1}, {"storage": "stable", "every": 64}]
    r = check_class(mpirun(with_failure_class(app, levels, "group"), tmp_path), "group", 2)
    origin = {f["origin"] for f in r["failures"]}
    assert len(origin) == 1 and {f["node"] // 2 for f in r["failures"]} == {next(iter(origin)) // 2}
    assert all(f["restart_point"].startswith("checkpoint") for f in r["failures"]), r["failures"]
    # The XOR piece of the other member for one, the buddy's copy for the other, and the blocks of the
    # parity the one restored from its buddy must keep.
    assert r["messages_sent"]["restore"] == 3, r["messages_sent"]


@pytest.mark.parametrize("app", APPS)
def test_a_job_failure_restores_from_stable_storage(mpirun, tmp_path, app):
    levels = [{"storage": "buddy"}, {"storage": "stable", "every": 1}]
    r = check_class(mpirun(with_failure_class(app, levels, "job"), tmp_path), "job", 4)
    assert all(f["restart_point"].startswith("checkpoint") for f in r["failures"]), r["failures"]
    assert r["messages_sent"]["restore"] == 4, r["messages_sent"]  # each rank reads its own from the driver


def with_local_level(app: str, failure_class: str, tmp_path) -> dict:
    config = with_failure_class(app, [{"storage": "local"}, {"storage": "buddy", "every": 1},
                                      {"storage": "stable", "every": 64}], failure_class)
    config["platform"]["local_storage"] = {"bandwidth": "2GB/s"}
    return config


@pytest.mark.parametrize("app", APPS)
def test_a_process_failure_restores_from_the_files_of_its_local_storage(mpirun, tmp_path, app):
    disks = tmp_path / "disks"
    disks.mkdir()
    job = mpirun(with_local_level(app, "process", tmp_path), tmp_path, env={"FTSIM_LOCAL_STORAGE_DIR": str(disks)})
    r = check_class(job, "process", 1)
    assert r["failures"][0]["restart_point"].startswith("checkpoint"), r["failures"]
    # Read back from its own disk: no message (a node failure asks its buddy: one).
    assert r["messages_sent"]["restore"] == 0, r["messages_sent"]
    assert list(disks.iterdir()) == []  # every rank's directory removed at the end


@pytest.mark.parametrize("app", APPS)
def test_a_node_failure_wipes_the_local_storage_and_asks_the_buddy(mpirun, tmp_path, app):
    r = check_class(mpirun(with_local_level(app, "node", tmp_path), tmp_path), "node", 1)
    assert r["failures"][0]["restart_point"].startswith("checkpoint"), r["failures"]
    assert r["messages_sent"]["restore"] == 1, r["messages_sent"]


def test_local_storage_that_cannot_be_written_ends_the_run_with_its_path(mpirun, tmp_path):
    not_a_dir = tmp_path / "a-file"
    not_a_dir.write_text("")
    job = mpirun(with_local_level("stencil", "process", tmp_path), tmp_path, env={"FTSIM_LOCAL_STORAGE_DIR": str(not_a_dir)})
    assert job.proc.returncode == 1, job.output
    assert "node-local storage" in job.results["failure_reason"] and str(not_a_dir) in job.results["failure_reason"]


def test_stable_storage_is_files_of_the_driver_rank(mpirun, tmp_path):
    # The storage servers are a directory per server on the driver's machine: one that cannot be
    # created ends the run naming it; a writable one is used and removed at the end.
    levels = [{"storage": "buddy"}, {"storage": "stable", "every": 1}]
    not_a_dir = tmp_path / "a-file"
    not_a_dir.write_text("")
    for run in ("bad", "good"):
        (tmp_path / run).mkdir()
    job = mpirun(with_failure_class("stencil", levels, "job"), tmp_path / "bad", env={"FTSIM_STABLE_STORAGE_DIR": str(not_a_dir)})
    assert job.proc.returncode == 1, job.output
    assert "stable storage: cannot create" in job.results["failure_reason"] and str(not_a_dir) in job.results["failure_reason"]
    pfs = tmp_path / "pfs"
    pfs.mkdir()
    check_class(mpirun(with_failure_class("stencil", levels, "job"), tmp_path / "good", env={"FTSIM_STABLE_STORAGE_DIR": str(pfs)}), "job", 4)
    assert list(pfs.iterdir()) == []


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_failures_drawn_in_their_classes(mpirun, tmp_path, seed):
    # Exponential failures (wall-clock on MPI: how many strike depends on the machine), each a node
    # or a rack failure; every checkpoint on all three levels, so that any mix is recoverable.
    levels = [{"storage": "buddy"}, {"storage": "xor", "group": 2, "every": 1}, {"storage": "stable", "every": 1}]
    config = with_failure_class("stencil", levels, "node")
    config["seed"] = seed
    config["failures"] = {"model": "exponential", "mtbf": "150ms", "max_failures": 3, "detection": "1 ms",
                          "downtime": "2 ms", "classes": {"node": 0.5, "group": 0.5}}
    job = mpirun(config, tmp_path)
    assert job.proc.returncode == 0, job.output
    r = job.results
    assert r["complete"] and r["oracle"]["ok"], job.output
    assert r["mpi"]["verification"]["bit_exact"], job.output
    events = r["failure_events"]
    assert events["node"] + events["group"] <= 3 and events["job"] == 0 and events["process"] == 0
    # A record per rank taken down: one per node failure, one per live rank of the rack for a group one.
    origins = {(f["origin"], f["time"]) for f in r["failures"]}
    assert len(origins) == events["node"] + events["group"], r["failures"]
    for f in r["failures"]:
        if f["class"] == "node":
            assert f["node"] == f["origin"], f
        else:
            assert f["class"] == "group" and f["node"] // 2 == f["origin"] // 2, f  # racks of 2


def test_a_burst_strikes_the_rack_mate(mpirun, tmp_path):
    # A raised rate a million times the normal one: after a failure its rack mate fails at once.
    levels = [{"storage": "buddy"}, {"storage": "xor", "group": 2, "every": 1}, {"storage": "stable", "every": 1}]
    config = with_failure_class("stencil", levels, "node")
    config["failures"] = {"model": "exponential", "mtbf": "30ms", "max_failures": 4, "detection": "1 ms",
                          "downtime": "2 ms", "burst": {"factor": 1e6, "window": "5ms"}}
    job = mpirun(config, tmp_path)
    assert job.proc.returncode == 0, job.output
    r = job.results
    assert r["complete"] and r["oracle"]["ok"] and r["mpi"]["verification"]["bit_exact"], job.output
    bursts = [f for f in r["failures"] if f["burst"]]
    assert r["failure_events"]["burst"] == len(bursts) >= 1, r["failures"]
    for f in bursts:  # its rack mate failed shortly before it
        assert any(g["node"] == f["node"] ^ 1 and 0 <= f["time"] - g["time"] <= 0.005 for g in r["failures"]), f
