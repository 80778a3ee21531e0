"""Failure logs of real machines (FTA, LANL) and kernel costs from StarPU performance models:
the samples of tests/data load and run with the oracle holding; every malformed file of
tests/data/bad/ gives exit code 2 and a message naming the file and the line, without a crash."""
import copy
import json
import pathlib
import re

import pytest

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
DEBIAN_MODELS = pathlib.Path("/usr/share/starpu/perfmodels/sampling/codelets/45")

CHOLESKY = {
    "name": "inputs-logs",
    "seed": 7,
    "application": {"type": "cholesky", "tiles": 8, "tile_size": 256},
    "platform": {"nodes": 4, "cores_per_node": 4, "core_gflops": {"default": 20}, "storage": {"hosts": 1}},
    "checkpoints": [{"count": 1, "buddy": "next"}],
}
PROTOCOLS = {"global": {"type": "global", "period": "2ms", "storage": "stable"}, "lineage": {"type": "lineage"}}
LOGS = {
    "fta": {"model": "log", "format": "fta", "file": str(DATA / "logs" / "fta-sample.tab"), "system": 7,
            "start": "2005-01-01", "time_scale": 0.001, "repair_as_downtime": True, "detection": "100us"},
    "lanl": {"model": "log", "format": "lanl", "file": str(DATA / "logs" / "lanl-sample.csv"), "system": 20,
             "start": "2005-01-01 00:01", "time_scale": 2e-5, "nodes": "first", "downtime": "500us"},
}


def config_with(tmp_path, name="c.json", **sections):
    config = copy.deepcopy(CHOLESKY)
    for key, value in sections.items():
        if key == "platform":
            config["platform"].update(value)
        else:
            config[key] = value
    path = tmp_path / name
    path.write_text(json.dumps(config))
    return path


def run(ftsim, tmp_path, path):
    out = tmp_path / "out"
    done = ftsim("run", path, "-o", out)
    return done, json.loads((out / "results.json").read_text())


@pytest.mark.parametrize("fmt", sorted(LOGS))
def test_log_sample_validates_and_says_what_it_kept(ftsim, tmp_path, fmt):
    done = ftsim("validate", config_with(tmp_path, failures=LOGS[fmt]))
    assert done.returncode == 0, done.stderr
    assert "note: failure log" in done.stdout and "kept" in done.stdout
    graph = ftsim("graph", config_with(tmp_path, failures=LOGS[fmt]))
    assert graph.returncode == 0, graph.stderr


@pytest.mark.parametrize("fmt", sorted(LOGS))
@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
def test_log_failures_are_injected_and_recovered(ftsim, tmp_path, fmt, protocol):
    done, r = run(ftsim, tmp_path, config_with(tmp_path, failures=LOGS[fmt], protocol=PROTOCOLS[protocol]))
    assert done.returncode == 0, done.stderr + done.stdout
    assert r["complete"] and r["oracle"]["ok"]
    assert len(r["failures"]) >= 1
    assert "ftsim: failure log" in done.stderr and "kept" in done.stderr  # what the mapping kept and dropped


def test_fta_mapping_and_repair_times(ftsim, tmp_path):
    # Platform 7 after the start: node 5 at 2 s (repaired after 3600 s) and node 6 at 6 s
    # (120.5 s); modulo 4: nodes 1 and 2, at 2 ms and 6 ms with the 1e-3 scale.
    done, r = run(ftsim, tmp_path, config_with(tmp_path, failures=LOGS["fta"], protocol=PROTOCOLS["global"]))
    assert done.returncode == 0
    got = [(f["node"], round(f["time"], 9)) for f in r["failures"]]
    assert got == [(1, 0.002), (2, 0.006)]


def test_lanl_first_mapping(ftsim, tmp_path):
    # System 20 after 00:01: nodes 7 (00:02) and 12 (00:06); "first" maps 2, 7, 12 to 0, 1, 2.
    done, r = run(ftsim, tmp_path, config_with(tmp_path, failures=LOGS["lanl"], protocol=PROTOCOLS["lineage"]))
    assert done.returncode == 0
    got = [(f["node"], round(f["time"], 9)) for f in r["failures"]]
    assert got == [(1, 0.0012), (2, 0.006)]


def test_several_systems_need_a_choice(ftsim, tmp_path):
    failures = dict(LOGS["lanl"])
    del failures["system"]
    done = ftsim("validate", config_with(tmp_path, failures=failures))
    assert done.returncode == 2 and "choose one with /failures/system" in done.stderr


def test_lanl_records_without_a_node_are_dropped_with_a_count(ftsim, tmp_path):
    # The published data has records with an empty nodenum (126 of system 17): they do not make the
    # file fail; choosing their system drops them, and the note says how many.
    done = ftsim("validate", config_with(tmp_path, failures=dict(LOGS["lanl"], system=17)))
    assert done.returncode == 0, done.stderr
    assert "1 without a node" in done.stdout + done.stderr, done.stdout + done.stderr


def test_repair_needed_but_missing(ftsim, tmp_path):
    failures = dict(LOGS["lanl"], repair_as_downtime=True)
    del failures["downtime"]
    done = ftsim("validate", config_with(tmp_path, failures=failures))
    assert done.returncode == 2 and "lanl-sample.csv:5:" in done.stderr, done.stderr


def test_unparsable_start_date(ftsim, tmp_path):
    done = ftsim("validate", config_with(tmp_path, failures=dict(LOGS["fta"], start="01/01/2005")))
    assert done.returncode == 2 and "/failures/start" in done.stderr


# The malformed corpora: each file and the line its error must name (0: the file only).
BAD = {
    "fta": {"unknown-column.tab": 1, "missing-column.tab": 1, "field-count.tab": 3, "event-type.tab": 3,
            "start-time.tab": 3, "stop-before-start.tab": 3, "negative-node.tab": 3, "no-header.tab": 0,
            "duplicate-column.tab": 1, "nul-byte.tab": 3},
    "lanl": {"unknown-column.csv": 1, "iso-date.csv": 3, "bad-month.csv": 3, "two-digit-year.csv": 3,
             "unterminated-quote.csv": 3, "field-count.csv": 3, "bad-node.csv": 3, "negative-downtime.csv": 3,
             "fixed-before-started.csv": 3, "missing-system.csv": 1, "bad-time.csv": 3},
    "perfmodel": {"version.handmade": 3, "empty.handmade": 0, "truncated.handmade": 9, "entry-fields.handmade": 39,
                  "hash.handmade": 39, "mean.handmade": 39, "combinations.handmade": 8, "regression.handmade": 33,
                  "multiple-regression.handmade": 37, "no-cpu.handmade": 0, "device-type.handmade": 16},
}


def bad_config(tmp_path, kind, path):
    if kind == "perfmodel":
        return config_with(tmp_path, platform={"kernel_models": {"GEMM": {"file": str(path)}}})
    failures = dict(LOGS[kind], file=str(path))
    failures.pop("system", None)
    failures.pop("repair_as_downtime", None)
    return config_with(tmp_path, failures=failures)


@pytest.mark.parametrize("kind,name", [(k, n) for k in sorted(BAD) for n in sorted(BAD[k])])
def test_malformed_input_exits_2_naming_the_place(ftsim, tmp_path, kind, name):
    path = DATA / "bad" / kind / name
    for verb in ("validate", "graph", "run"):
        done = ftsim(verb, bad_config(tmp_path, kind, path))
        assert done.returncode == 2, f"{verb} {name}: {done.returncode} {done.stderr}"
        line = BAD[kind][name]
        place = f"{path}:{line}:" if line else f"{path}:"
        assert place in done.stderr, f"{verb} {name}: {done.stderr}"
        assert len(done.stderr.splitlines()) == 1


def test_corpora_have_at_least_8_cases_each():
    for kind in BAD:
        assert len(list((DATA / "bad" / kind).iterdir())) >= 8
        assert set(BAD[kind]) == {p.name for p in (DATA / "bad" / kind).iterdir()}


def test_handmade_perfmodel_sets_the_gemm_duration(ftsim, tmp_path):
    # GEMM of 256 x 256 tiles: 2 x 256^3 flops, the model's CPU entry says 1250 us.
    model = {"GEMM": {"file": str(DATA / "perfmodels" / "gemm_model.handmade")}}
    done = ftsim("validate", config_with(tmp_path, platform={"kernel_models": model}))
    assert done.returncode == 0, done.stderr
    done, r = run(ftsim, tmp_path, config_with(tmp_path, platform={"kernel_models": model}))
    assert done.returncode == 0 and r["complete"]
    assert r["oracle"]["ok"]
    # The same entry chosen by size in the CUDA table (90 us): the 56 GEMM tasks take 56 x 1.16 ms less.
    by_size = {"GEMM": dict(model["GEMM"], size=1572864, device="cuda")}
    cpu = ftsim("graph", config_with(tmp_path, platform={"kernel_models": model}))
    cuda = ftsim("graph", config_with(tmp_path, "d.json", platform={"kernel_models": by_size}))
    assert cpu.returncode == 0 and cuda.returncode == 0, cuda.stderr
    total = [float(re.search(r"sequential total ([0-9.]+) ms", g.stdout).group(1)) for g in (cpu, cuda)]
    assert total[0] - total[1] == pytest.approx(56 * 1.16, rel=1e-2)


def test_perfmodel_without_an_entry_for_the_tile_size(ftsim, tmp_path):
    model = {"GEMM": {"file": str(DATA / "perfmodels" / "gemm_model.handmade"), "size": 12345}}
    done = ftsim("validate", config_with(tmp_path, platform={"kernel_models": model}))
    assert done.returncode == 2 and "/platform/kernel_models/GEMM" in done.stderr and "12345 bytes" in done.stderr


def test_debian_starpu_sample_times_the_cholesky_gemm(ftsim, tmp_path):
    # Debian's starpu-examples (installed by scripts/install-deps.sh) ships StarPU's sampling
    # files: chol_model_22 is the GEMM of its Cholesky, measured on "mirage" for 320 x 320 tiles.
    path = DEBIAN_MODELS / "chol_model_22.mirage"
    assert path.is_file(), "starpu-examples is missing: run scripts/install-deps.sh"
    platform = {"kernel_models": {"GEMM": {"file": str(path)}}}
    config = config_with(tmp_path, platform=platform,
                         application={"type": "cholesky", "tiles": 4, "tile_size": 320, "precision": "single"})
    done = ftsim("validate", config)
    assert done.returncode == 0, done.stderr
    done, r = run(ftsim, tmp_path, config)
    assert done.returncode == 0 and r["complete"]
