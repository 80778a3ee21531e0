"""global's checkpoint levels on the MPI backend, with the applications' real data: a replacement
restores from its buddy's memory, or rebuilds its checkpoint by a real XOR of the other members'
checkpoints and parity blocks (docs/multilevel.md); either way bit-exact against the failure-free
MPI run. Stable storage (the driver's memory) is covered by test_mpi_backend.py."""
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
