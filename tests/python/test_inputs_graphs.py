"""Task graphs from workflow files (docs/inputs.md#task-graphs): WfFormat JSON and DOT samples load,
run with a failure under global and lineage with the oracle holding, and every malformed file of
tests/data/bad/{wfformat,dot} is refused with exit code 2 and a message naming the file and the place."""
import json
import pathlib

import pytest

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
SAMPLES = {
    "wfformat-1.5-pipeline.json": {"type": "wfformat", "placement": "file"},
    "wfformat-1.4-montage.json": {"type": "wfformat", "placement": "file"},
    "simgrid-dag.dot": {"type": "dot"},
}
PROTOCOLS = {
    "global": {"type": "global", "at": "cuts", "storage": "stable"},
    "lineage": {"type": "lineage"},
}


def write_config(tmp_path, sample, protocol=None, failure_node=1):
    app = dict(SAMPLES[sample], path=str(DATA / "graphs" / sample))
    config = {
        "name": "inputs-" + pathlib.Path(sample).stem,
        "application": app,
        "platform": {"nodes": 3, "cores_per_node": 2, "core_gflops": {"default": 1}, "storage": {"hosts": 1}},
    }
    if protocol:
        config["protocol"] = PROTOCOLS[protocol]
        config["failures"] = {"model": "list", "events": [{"after_tasks": 1, "node": failure_node}]}
        if protocol == "global":
            config["checkpoints"] = {"every": 1}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    return path


def assert_no_crash(result):
    assert result.returncode >= 0, f"killed by signal {-result.returncode}"
    assert "terminate called" not in result.stderr
    assert "Segmentation" not in result.stderr


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_sample_loads(ftsim, tmp_path, sample):
    config = write_config(tmp_path, sample)
    stats = ftsim("graph", config, "--stats")
    assert stats.returncode == 0, stats.stderr
    assert "tasks" in stats.stdout
    validate = ftsim("validate", config)
    assert validate.returncode == 0, validate.stderr
    assert ": ok" in validate.stdout


@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_sample_runs_with_a_failure(ftsim, tmp_path, sample, protocol):
    config = write_config(tmp_path, sample, protocol)
    result = ftsim("run", config, "-o", tmp_path / "out")
    assert_no_crash(result)
    assert result.returncode == 0, result.stdout + result.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["complete"] is True
    assert results["oracle"]["ok"] is True, results["oracle"]


@pytest.mark.parametrize("example", ["wfformat-pipeline.json", "wfformat-montage-lineage.json", "dot-fork-join.json"])
def test_example_configs_validate(ftsim, source_dir, example):
    result = ftsim("validate", source_dir / "configs" / "examples" / example)
    assert result.returncode == 0, result.stderr


def bad_cases(kind):
    expected = json.loads((DATA / "bad" / kind / "expected.json").read_text())
    return sorted(expected.items())


@pytest.mark.parametrize("kind", ["wfformat", "dot"])
def test_bad_corpus_is_large_enough(kind):
    assert len(bad_cases(kind)) >= 8


@pytest.mark.parametrize("name,place", bad_cases("wfformat"), ids=lambda v: str(v))
def test_bad_wfformat(ftsim, tmp_path, name, place):
    check_bad(ftsim, tmp_path, "wfformat", name, place)


@pytest.mark.parametrize("name,place", bad_cases("dot"), ids=lambda v: str(v))
def test_bad_dot(ftsim, tmp_path, name, place):
    check_bad(ftsim, tmp_path, "dot", name, place)


def check_bad(ftsim, tmp_path, kind, name, place):
    path = DATA / "bad" / kind / name
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"application": {"type": kind, "path": str(path)}, "platform": {"nodes": 2}}))
    for command in (("graph", config, "--stats"), ("validate", config)):
        result = ftsim(*command)
        assert_no_crash(result)
        assert result.returncode == 2, (command, result.stdout, result.stderr)
        assert name in result.stderr, result.stderr
        assert place in result.stderr, result.stderr


def test_explicit_owners_must_cover_every_task(ftsim, tmp_path):
    # placement "distribution" with an explicit map places the k-th submitted task on owners[k].
    path = write_config(tmp_path, "wfformat-1.5-pipeline.json")
    config = json.loads(path.read_text())
    config["application"]["placement"] = "distribution"
    config["distribution"] = {"type": "explicit", "owners": [0, 1]}
    path.write_text(json.dumps(config))
    result = ftsim("validate", path)
    assert_no_crash(result)
    assert result.returncode == 2 and "/distribution/owners" in result.stderr and str(path) in result.stderr, result.stderr
