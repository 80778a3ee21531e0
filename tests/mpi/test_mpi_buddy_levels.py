"""buddy's levels on the MPI backend (docs/multilevel.md, "Levels in buddy"): every checkpoint also
written, datum by datum, to the rank's local-storage files and to the driver's storage files; one
failure of each class restored from the level that survived it, bit-exact against the failure-free
MPI run on every application. Racks of 2 ranks ({0, 1}, {2, 3}), buddy n + 1: a rack failure takes
rank 0 with its buddy 1, or rank 2 with its buddy 3."""
import pytest

from conftest import APPS, base_config, with_protocol

LEVELS = [{"storage": "local", "every": 1}, {"storage": "buddy"}, {"storage": "stable", "every": 1}]


def with_buddy_levels(app: str, failure_class: str) -> dict:
    config = with_protocol(base_config(app), "buddy")
    config["name"] += f"-levels-{failure_class}"
    config["protocol"]["levels"] = LEVELS
    config["platform"]["storage"] = {"hosts": 1}
    config["platform"]["local_storage"] = {"bandwidth": "2GB/s"}
    config["platform"]["group_size"] = 2
    for event in config["failures"]["events"]:
        event["class"] = failure_class
    return config


def restart_points(job, failure_class: str, ranks: int) -> dict:
    assert job.proc.returncode == 0, job.output
    r = job.results
    assert r["complete"] and r["oracle"]["ok"], job.output
    assert len(r["failures"]) == ranks and {f["class"] for f in r["failures"]} == {failure_class}, r["failures"]
    v = r["mpi"]["verification"]
    assert v["bit_exact"] and v["mismatches"] == 0 and v["numeric_ok"], job.output
    return {f["node"]: f["restart_point"] for f in r["failures"]}


@pytest.mark.parametrize("app", APPS)
def test_each_failure_class_restores_from_the_level_that_survived_it(mpirun, tmp_path, app):
    # A process failure: the rank's own files (the only restore message is the stable manifest read).
    job = mpirun(with_buddy_levels(app, "process"), tmp_path)
    points = restart_points(job, "process", 1)
    assert all(p.endswith("from local storage") for p in points.values()), points
    assert job.results["messages_sent"]["restore"] == 1, job.results["messages_sent"]
    # A node failure wipes its files: its buddy's memory.
    points = restart_points(mpirun(with_buddy_levels(app, "node"), tmp_path), "node", 1)
    assert all(p.endswith("from a buddy") for p in points.values()), points
    # A rack failure takes the first rank of the rack with its buddy: it reads the driver's files.
    points = restart_points(mpirun(with_buddy_levels(app, "group"), tmp_path), "group", 2)
    assert points[min(points)].endswith("from stable storage"), points
    # A job failure: every rank from the driver's files, or from the job's input if its first level
    # checkpoint was not complete yet (on Cholesky, rank 3's tasks before the first cut run late).
    points = restart_points(mpirun(with_buddy_levels(app, "job"), tmp_path), "job", 4)
    assert all(p.endswith("from stable storage") or p == "from scratch" for p in points.values()), points
    assert sum(p.endswith("from stable storage") for p in points.values()) >= 2, points
