"""/checkpoint_data on the MPI backend (docs/checkpoint-data.md): zero-block exclusion, incremental
checkpoints and zstd run for real on the real buffers of every config of configs/mpi/, each with one
failure; the replacement restores from its chain of images (the last full one and the incrementals
after it), and the run is verified bit-exact against the failure-free MPI run and numerically. The
bytes written are measured: results.json has them beside the bytes without the section."""
import copy
import json

import pytest

from conftest import SOURCE_DIR

CONFIGS = sorted(p.name for p in (SOURCE_DIR / "configs" / "mpi").glob("*.json"))
DATA = {"zero_blocks": True, "incremental": {"block_size": "1KiB", "full_every": 3}, "compression": "zstd", "level": 3}


def config_of(name: str) -> dict:
    c = json.loads((SOURCE_DIR / "configs" / "mpi" / name).read_text())
    c.pop("$schema", None)
    c["name"] = c["name"] + "-data"
    c["checkpoint_data"] = copy.deepcopy(DATA)
    if "failures" not in c:  # cholesky-none: one failure too
        c["failures"] = {"model": "list", "events": [{"node": 1, "after_tasks": 6}], "detection": "1 ms", "downtime": "2 ms"}
    return c


@pytest.mark.parametrize("name", CONFIGS)
def test_real_images_restore_bit_exact(mpirun, tmp_path, name):
    config = config_of(name)
    job = mpirun(config, tmp_path)
    assert job.proc.returncode == 0, job.output
    r = job.results
    assert r["complete"] and r["oracle"]["ok"], job.output
    assert len(r["failures"]) == 1, job.output
    v = r["mpi"]["verification"]
    assert v["bit_exact"] and v["mismatches"] == 0, job.output
    assert v["numeric_ok"], job.output
    data = r["checkpoint_data"]
    if config.get("protocol", {}).get("type", "none") == "none":
        assert data["status"].startswith("ignored"), data["status"]
        return
    assert data["status"] == "applied"
    # Measured, not modelled: real blocks hashed and compressed, fewer bytes written than the
    # checkpoints hold.
    assert data["full"]["images"] > 0, data
    assert data["blocks"] > 0 and data["stored_blocks"] > 0
    assert 0 < data["stored_bytes"] < data["logical_bytes"], data
    assert data["hash_seconds"] > 0 and data["compress_seconds"] > 0
    # What the protocol saved is what the images store (uncoordinated adds its tables).
    assert r["starpu"]["CP_DATA_NORMAL_TOTAL_SIZE"] >= data["stored_bytes"]
    # A replacement restarting from a checkpoint read its chain back (global from its buddy, cck
    # and uncoordinated from storage).
    if any(f["restart_point"].startswith("checkpoint") for f in r["failures"]):
        assert data["restores"] >= 1 and data["restore_images"] >= 1, data
    assert "checkpoint data: stored / without" in job.proc.stdout


def test_cg_on_the_box_matrix(mpirun, tmp_path):
    """CG on the stored box matrix (/application/matrix, the matrix of configs/papers/cores2015-table2.json):
    the incremental images leave the read-only matrix out; bit-exact and numerically right."""
    config = config_of("cg-global.json")
    config["name"] = "cg-box-data"
    config["application"]["matrix"] = {"type": "box", "radius": 3}
    job = mpirun(config, tmp_path)
    assert job.proc.returncode == 0, job.output
    r = job.results
    v = r["mpi"]["verification"]
    assert r["complete"] and v["bit_exact"] and v["numeric_ok"], job.output
    data = r["checkpoint_data"]
    # The matrix dominates each node's data and an incremental image leaves it out.
    assert data["incremental"]["stored_bytes"] < 0.2 * data["incremental"]["logical_bytes"], data
