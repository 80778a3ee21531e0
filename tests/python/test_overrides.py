"""Command-line overrides (issue 39, item 9; docs/configs.md#overrides): `--set KEY=VALUE` and
SimGrid's `--cfg=KEY:VALUE` for validate, graph, volumes, run and sweep, with errors that name the
override, and an option of another protocol told whose it is."""
import json

import pytest

# A Cholesky of 6 x 6 tiles (56 tasks) on 4 nodes: a run takes a few milliseconds.
CONFIG = {
    "name": "overrides",
    "application": {"type": "cholesky", "tiles": 6, "tile_size": 64},
    "distribution": {"type": "block-cyclic", "P": 2, "Q": 2},
    "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": 2, "storage": {"hosts": 1}},
    "protocol": {"type": "global", "period": "1ms", "storage": "stable"},
}


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "overrides.json"
    path.write_text(json.dumps(CONFIG))
    return path


def test_set_and_cfg_change_what_runs(ftsim, config, tmp_path):
    result = ftsim("run", config, "-o", tmp_path / "out", "--set", "seed=7", "--cfg=protocol:{\"type\": \"lineage\"}",
                   "--set", "/platform/cores_per_node=1")
    assert result.returncode == 0, result.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["seed"] == 7 and results["protocol"] == "lineage"
    assert results["config"]["platform"]["cores_per_node"] == 1
    # A value that is not JSON is a string: "2ms" is a duration.
    result = ftsim("run", config, "-o", tmp_path / "out2", "--set", "protocol.period=2ms")
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "out2" / "results.json").read_text())["config"]["protocol"]["period"] == "2ms"


@pytest.mark.parametrize("verb", [["validate"], ["graph", "--stats"], ["volumes", "--count", "2"]])
def test_every_verb_that_loads_a_config_takes_overrides(ftsim, config, verb):
    result = ftsim(verb[0], config, *verb[1:], "--set", "application.tiles=8", "--cfg=platform.nodes:4")
    assert result.returncode == 0, result.stderr
    if verb[0] == "graph":
        assert "tasks 120 " in result.stdout  # 8 + 28 + 28 + 56
    bad = ftsim(verb[0], config, *verb[1:], "--set", "application.tiles=0")
    assert bad.returncode == 2
    assert "error: --set application.tiles=0: /application/tiles: expected" in bad.stderr


def test_an_error_in_an_overridden_key_names_the_override(ftsim, config, tmp_path):
    result = ftsim("run", config, "-o", tmp_path / "out", "--set", "protocol.period=-3")
    assert result.returncode == 2
    assert result.stderr.strip() == "error: --set protocol.period=-3: /protocol/period: expected a positive duration, got -3" or \
        result.stderr.startswith("error: --set protocol.period=-3: /protocol/period: expected a positive duration")
    # SimGrid's spelling is named as written.
    result = ftsim("validate", config, "--cfg=protocol.storage:tape")
    assert result.returncode == 2 and result.stderr.startswith("error: --cfg=protocol.storage:tape: /protocol/storage: ")
    # Another key made wrong by an override: the file's error, saying which overrides were applied.
    result = ftsim("validate", config, "--set", "platform.nodes=6")
    assert result.returncode == 2
    assert f"{config} (with --set platform.nodes=6): /distribution" in result.stderr


@pytest.mark.parametrize("arguments,says", [
    (["--set", "protocol.period"], "--set protocol.period: expected KEY=VALUE"),
    (["--cfg=protocol.period"], "--cfg=protocol.period: expected KEY:VALUE"),
    (["--set", "platform..nodes=3"], "--set platform..nodes=3: expected a key of the config"),
    (["--set", "seed=1", "--set", "/seed=2"], "--set /seed=2: /seed is set twice: here and by --set seed=1"),
    (["--set", "platform.nodes.x=3"], "--set platform.nodes.x=3: cannot set /platform/nodes/x: /platform/nodes is 4 in the config"),
])
def test_a_malformed_override_is_bad_input(ftsim, config, arguments, says):
    result = ftsim("validate", config, *arguments)
    assert result.returncode == 2
    assert says in result.stderr


def test_an_option_of_another_protocol_is_told_whose_it_is(ftsim, config):
    result = ftsim("validate", config, "--set", "protocol.cow=true")
    assert result.returncode == 2
    assert '/protocol/cow: unknown key "cow": `cow` is an option of `buddy`, not of `global`' in result.stderr
    result = ftsim("validate", config, "--set", 'protocol={"type": "buddy", "period": "1ms"}',
                   "--set", 'checkpoints={"count": 2, "buddy": "next"}')
    assert result.returncode == 2
    assert "`period` is an option of `cck`, `example-storage-checkpoint`, `global` and `uncoordinated`, not of `buddy`" in result.stderr
    # A key no protocol has keeps the "did you mean" of the file's errors.
    result = ftsim("validate", config, "--set", "protocol.perod=1ms")
    assert result.returncode == 2 and 'did you mean "period"' in result.stderr


def test_a_sweep_takes_overrides_of_its_base_but_not_of_a_varied_key(ftsim, tmp_path):
    document = dict(CONFIG, sweep={"grid": {"protocol.type": ["none", "lineage"]}})
    document.pop("protocol")
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps(document))
    listed = ftsim("sweep", path, "--list-json", "--set", "application.tiles=4")
    assert listed.returncode == 0, listed.stderr
    configs = [json.loads(line)["config"] for line in listed.stdout.splitlines()]
    assert [c["application"]["tiles"] for c in configs] == [4, 4]
    varied = ftsim("sweep", path, "--list", "--set", "protocol.type=cck")
    assert varied.returncode == 2
    assert "--set protocol.type=cck: /protocol/type is varied by the sweep (/sweep/grid/protocol.type)" in varied.stderr
    bad = ftsim("validate", path, "--set", "application.tiles=0")
    assert bad.returncode == 2 and "--set application.tiles=0: /application/tiles:" in bad.stderr
