"""`ftsim calibrate --backend mpi` (issue 41, item 5; docs/mpi.md#calibration): it measures this machine
on the ranks of a run and writes the config with that platform, which `ftsim run` takes as it is; wrong
job shapes are refused with the reason."""
import json
import os
import subprocess

from conftest import BINARY, SOURCE_DIR, base_config


def calibrate(config: dict, tmp, ranks: int, *extra):
    path = tmp / "in.json"
    path.write_text(json.dumps(config))
    command = ["mpirun", "--oversubscribe", "-np", str(ranks)]
    if os.geteuid() == 0:
        command.insert(1, "--allow-run-as-root")
    command += [str(BINARY), "calibrate", "--backend", "mpi", str(path), "-o", str(tmp / "calibrated.json"), *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def two_nodes(app: str) -> dict:
    c = base_config(app)
    c.pop("$schema", None)
    c["platform"]["nodes"] = 2
    if c["distribution"]["type"] == "block-cyclic":
        c["distribution"].update(P=1, Q=2)
    c["failures"]["events"] = [dict(e, node=1) for e in c["failures"]["events"]]
    return c


def test_calibrate_writes_a_runnable_config_with_the_measured_platform(tmp_path):
    config = two_nodes("cholesky")
    proc = calibrate(config, tmp_path, 3, "--json", str(tmp_path / "raw.json"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "latency" in proc.stdout and "GEMM" in proc.stdout
    calibrated = json.loads((tmp_path / "calibrated.json").read_text())
    speeds = calibrated["platform"]["core_gflops"]
    assert set(speeds) == {"POTRF", "TRSM", "SYRK", "GEMM"} and all(v > 0 for v in speeds.values())
    network = calibrated["platform"]["network"]
    assert network["model"] == "CM02" and network["bandwidth"] > 0 and network["latency"] > 0
    # Everything else is the input's: application, protocol, failures.
    for key in ("application", "protocol", "failures", "checkpoints", "distribution"):
        assert calibrated[key] == config[key], key
    raw = json.loads((tmp_path / "raw.json").read_text())
    assert raw["run_busy_seconds"] > 0 and raw["run_scale"] > 0
    assert [p["bytes"] for p in raw["ping_pong"]][0] == 8 and len(raw["ping_pong"]) == 8
    # The simulation takes it as it is.
    sim = subprocess.run([str(BINARY), "run", str(tmp_path / "calibrated.json"), "-o", str(tmp_path / "sim")],
                         capture_output=True, text=True, timeout=120)
    assert sim.returncode == 0, sim.stdout + sim.stderr


def test_calibrate_needs_the_ranks_of_a_run(tmp_path):
    proc = calibrate(two_nodes("stencil"), tmp_path, 2)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "/platform/nodes" in proc.stderr and "mpirun -np 3" in proc.stderr


def test_calibrate_without_a_backend_is_refused():
    proc = subprocess.run([str(BINARY), "calibrate", str(SOURCE_DIR / "configs" / "mpi" / "cg-global.json")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--backend" in proc.stderr
