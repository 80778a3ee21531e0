"""Platform presets (docs/platforms.md): a preset stands for its keys, the config's own keys win
(objects merged key by key), an unknown preset names its JSON path, and the schema knows them."""
import json

import jsonschema

BASE = {"name": "presets", "application": {"type": "stencil", "tiles": [4, 4], "tile_size": 256, "iterations": 6},
        "platform": {"preset": "infiniband-cluster", "nodes": 4, "core_gflops": {"JACOBI": 3},
                     "storage": {"preset": "pfs", "bandwidth": "10GB/s"}},
        "checkpoints": {"every": 2}, "protocol": {"type": "global", "at": "cuts", "storage": "stable"}}


def write(tmp_path, document):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(document))
    return path


def test_a_preset_stands_for_its_keys_under_the_given_ones(ftsim, tmp_path, source_dir):
    path = write(tmp_path, BASE)
    shown = ftsim("validate", path)
    assert shown.returncode == 0, shown.stderr
    assert "4 nodes x 64 cores" in shown.stdout
    run = ftsim("run", path, "-o", tmp_path / "r")
    assert run.returncode == 0, run.stderr
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert results["config"]["platform"]["preset"] == "infiniband-cluster"  # echoed as written
    # The same run with the preset written out: the same makespan.
    explicit = json.loads(json.dumps(BASE))
    explicit["platform"] = {"nodes": 4, "cores_per_node": 64, "core_gflops": {"default": 20, "JACOBI": 3},
                            "network": {"topology": "cluster", "bandwidth": "200Gbps", "latency": "1us"},
                            "storage": {"hosts": 1, "bandwidth": "10GB/s", "latency": "1ms"}}
    run2 = ftsim("run", write(tmp_path, explicit), "-o", tmp_path / "r2")
    assert run2.returncode == 0, run2.stderr
    assert json.loads((tmp_path / "r2" / "results.json").read_text())["makespan"] == results["makespan"]
    schema = json.loads((source_dir / "configs/schema/ftsim.schema.json").read_text())
    jsonschema.validate(BASE, schema)


def test_an_unknown_preset_names_its_path(ftsim, tmp_path):
    bad = json.loads(json.dumps(BASE))
    bad["platform"]["preset"] = "gpu-cluster"
    result = ftsim("validate", write(tmp_path, bad))
    assert result.returncode == 2
    assert "/platform/preset" in result.stderr and "infiniband-cluster" in result.stderr
    bad = json.loads(json.dumps(BASE))
    bad["platform"]["storage"]["preset"] = 3
    result = ftsim("validate", write(tmp_path, bad))
    assert result.returncode == 2 and "/platform/storage/preset" in result.stderr
