"""The network contention models (/platform/network/contention, docs/configs.md#contention).

- A lone message costs the same under "nic" as under "flows" (LV08 and CM02 factors applied).
- Where contention is low (the small examples), the makespans of "nic" and "flows" agree within
  LOW_CONTENTION_TOLERANCE.
- Every example that "nic" accepts completes under "nic" with the oracle holding, failures and
  protocols included; those it refuses are refused naming the key.
- results.json and the summary say which model ran.
"""
import json
import os
import pathlib
import shutil

import pytest

SIMGRID_PRECISION = 1e-8
# Relative makespan difference observed on the examples below with LV08 (stencil-small -3.06%,
# cg-small -2.11%, spmd-halo2d -0.005%, spmd-ring -0.013%; with CM02 stencil-small -0.38%, cg-small
# -3.9%): nic delivers the first of simultaneous messages of a host earlier than fair sharing does.
LOW_CONTENTION_TOLERANCE = 0.05


def with_contention(source_dir, tmp_path, name, contention, edit=None):
    """The example with the given contention, written beside a copy of the examples (their graphs,
    traces and platform files are relative to the config)."""
    examples = tmp_path / "configs" / "examples"
    if not examples.exists():
        shutil.copytree(source_dir / "configs" / "examples", examples)
        (tmp_path / "tests").symlink_to(source_dir / "tests")  # ../../tests/data/... of some examples
    config = json.loads((examples / name).read_text())
    config.pop("$schema", None)
    config.setdefault("platform", {}).setdefault("network", {})["contention"] = contention
    if edit:
        edit(config)
    path = examples / f"{pathlib.Path(name).stem}-{contention}.json"
    path.write_text(json.dumps(config))
    return path


def run(ftsim, config, out):
    proc = ftsim("run", config, "-o", out, timeout=300)
    results = json.loads((out / "results.json").read_text()) if (out / "results.json").exists() else None
    return proc, results


@pytest.mark.parametrize("model, latency_factor, bandwidth_factor", [("CM02", 1, 1), ("LV08", 13.01, 0.97)])
def test_a_lone_message_costs_the_same_under_both(ftsim, source_dir, tmp_path, model, latency_factor, bandwidth_factor):
    makespans = {}
    for contention in ("flows", "nic"):
        config = with_contention(source_dir, tmp_path, "platform-cm02.json", contention,
                                 lambda c: c["platform"]["network"].update(model=model))
        proc, results = run(ftsim, config, tmp_path / contention)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert results["network_model"]["contention"] == contention
        assert ("contention nic (LogGP-style NIC queues)" in proc.stdout) == (contention == "nic")
        makespans[contention] = results["makespan"]
    expected = 1e9 / (1e9 * bandwidth_factor) + 2 * 10e-6 * latency_factor
    assert makespans["flows"] == pytest.approx(expected, abs=SIMGRID_PRECISION)
    assert makespans["nic"] == pytest.approx(expected, abs=SIMGRID_PRECISION)


@pytest.mark.parametrize("name", ["stencil-small.json", "cg-small.json", "spmd-halo2d.json", "spmd-ring.json"])
def test_low_contention_makespans_agree(ftsim, source_dir, tmp_path, name):
    makespans = {}
    for contention in ("flows", "nic"):
        # Failure-free, protocol none: only the network differs.
        def edit(config):
            config.pop("failures", None)
            config.pop("checkpoints", None)
            config["protocol"] = {"type": "none"}
        config = with_contention(source_dir, tmp_path, name, contention, edit)
        proc, results = run(ftsim, config, tmp_path / contention)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        makespans[contention] = results["makespan"]
    assert makespans["nic"] == pytest.approx(makespans["flows"], rel=LOW_CONTENTION_TOLERANCE), makespans


REFUSED = {  # examples whose network "nic" does not model
    "platform-fattree.json": "a fat-tree or torus routes messages over shared links",
    "platform-torus.json": "a fat-tree or torus routes messages over shared links",
    "platform-xml.json": "a platform file's routes may share links",
}
SOURCE = pathlib.Path(os.environ.get("FTSIM_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
EXAMPLES = sorted(p.name for p in (SOURCE / "configs" / "examples").glob("*.json"))


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_complete_under_nic(ftsim, source_dir, tmp_path, name):
    def timed(config):  # an example written for `ftsim validate` only gets kernel speeds
        if "core_gflops" not in config["platform"] and "kernel_models" not in config["platform"]:
            config["platform"]["core_gflops"] = 1
    config = with_contention(source_dir, tmp_path, name, "nic", timed)
    document = json.loads(config.read_text())
    network = document["platform"]["network"]
    proc, results = run(ftsim, config, tmp_path / "out")
    if name in REFUSED or network.get("model") in ("SMPI", "IB") or "backbone_bandwidth" in network:
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "/platform/network/contention: " in proc.stderr
        if name in REFUSED:
            assert REFUSED[name] in proc.stderr
        return
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert results["complete"] and results["oracle"]["ok"], results.get("failure_reason")
    assert results["network_model"]["contention"] == "nic"
