"""The Python package: ftsim.run / graph / volumes / validate / analysis, against the CLI."""
import json
import threading
import time

import pytest

import ftsim  # noqa: E402  (conftest puts build/python on sys.path)

QUICKSTART = "configs/quickstart.json"


def small(**extra):
    config = {"name": "api", "application": {"type": "cholesky", "tiles": 6, "tile_size": 64},
              "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": {"default": 2}}}
    config.update(extra)
    return config


def test_run_a_file_matches_the_cli(ftsim_binary, source_dir, tmp_path):
    import subprocess
    path = source_dir / QUICKSTART
    result = ftsim.run(path)
    subprocess.run([str(ftsim_binary), "run", str(path), "-o", str(tmp_path)], capture_output=True, check=False)
    cli = json.loads((tmp_path / "results.json").read_text())
    assert result.makespan == cli["makespan"]
    assert result.to_dict()["failures"] == cli["failures"]
    assert result.to_dict()["nodes"] == cli["nodes"]
    assert result.ok == (cli["complete"] and cli["oracle"]["ok"])
    assert result.bytes_sent["application"] == sum(n["bytes_sent"]["application"] for n in cli["nodes"])
    assert "makespan" in repr(result)


def test_run_a_dict_with_overrides_by_dotted_key_and_pointer():
    base = ftsim.run(small())
    assert base.ok and len(base.failures) == 0
    buddy = ftsim.run(small(), **{"protocol.type": "buddy", "/checkpoints": {"count": 2, "buddy": "next"}})
    assert buddy.ok and buddy.starpu["CP_DATA_NORMAL_COUNT"] + buddy.starpu["CP_DATA_CACHED_COUNT"] > 0
    assert buddy.to_dict()["protocol"] == "buddy" or buddy.to_dict().get("config", {}).get("protocol", {}).get("type") in (None, "buddy")
    bigger = ftsim.run(small(), **{"platform.nodes": 2})
    assert len(bigger.nodes) == 2


@pytest.mark.parametrize("overrides,pointer,named,says", [
    ({"platform": {"nodes": float("nan")}}, "/platform/nodes", "override platform={'nodes': nan}", "NaN is not a JSON number"),
    ({"/platform/nodes": float("inf")}, "/platform/nodes", "override /platform/nodes=inf", "inf is not a JSON number"),
    ({"failures.mtbf": {1, 2}}, "/failures/mtbf", "override failures.mtbf={1, 2}", "a set is not a JSON value"),
])
def test_an_override_that_json_cannot_say_is_named(source_dir, overrides, pointer, named, says):
    # Issue 19: a NaN override was reported as invalid JSON in the base file, at a column it has not.
    # Issue 39: the error names the override, not the config file.
    with pytest.raises(ftsim.ConfigError) as error:
        ftsim.run(source_dir / "configs" / "quickstart.json", **overrides)
    assert error.value.file == named
    assert error.value.pointer == pointer
    assert says in error.value.message


@pytest.mark.parametrize("run", [ftsim.run, ftsim.validate])
def test_an_error_in_an_overridden_key_names_the_override_not_the_file(source_dir, run):
    # Issue 39: the loader's error at /protocol/period came out as "configs/quickstart.json: ...".
    with pytest.raises(ftsim.ConfigError) as error:
        run(source_dir / "configs" / "quickstart.json", **{"protocol.period": -3})
    assert error.value.file == "override protocol.period=-3"
    assert error.value.pointer == "/protocol/period"
    assert str(error.value).startswith("override protocol.period=-3: /protocol/period: expected a positive duration")
    # An error elsewhere still names the file (or the dict).
    with pytest.raises(ftsim.ConfigError) as error:
        run(small(), **{"protocol.type": "global"})
    assert error.value.file == "<dict>"


def test_a_graphs_override_error_names_the_override(source_dir):
    with pytest.raises(ftsim.ConfigError) as error:
        ftsim.graph(source_dir / "configs" / "quickstart.json", **{"application.tiles": 0})
    assert error.value.file == "override application.tiles=0" and error.value.pointer == "/application/tiles"


def test_a_sweeps_override_error_names_the_override(source_dir, tmp_path):
    with pytest.raises(ftsim.ConfigError) as error:
        ftsim.sweep(source_dir / "configs" / "sweeps" / "protocols.json", output=tmp_path, **{"platform.nodes": 0})
    assert error.value.file == "override platform.nodes=0" and error.value.pointer == "/platform/nodes"


def test_overrides_of_a_file_keep_relative_paths_working(source_dir):
    # configs/examples/failures-trace.json names a trace file relative to itself.
    path = source_dir / "configs" / "examples" / "failures-trace.json"
    result = ftsim.run(path, **{"run.wall_limit": "10min"})
    assert result.complete and len(result.failures) > 0


def test_a_failure_and_the_reference():
    config = small(failures={"model": "list", "events": [{"node": 1, "time": "1 ms"}]},
                   protocol={"type": "lineage"}, run={"reference": True})
    r = ftsim.run(config)
    assert r.ok and len(r.failures) == 1 and r.reference_makespan is not None
    assert r.makespan >= r.reference_makespan and r.overhead == pytest.approx(r.makespan / r.reference_makespan - 1)


def test_trace_and_log():
    r = ftsim.run(small(protocol={"type": "buddy"}, checkpoints={"count": 2, "buddy": "next"}), trace=True, log="protocol")
    trace = r.trace
    assert {"name", "ph", "ts"} <= set(trace.columns)
    assert (trace["name"] == "checkpoint 1").any()
    assert "checkpoint 1 valid" in r.log
    assert ftsim.run(small()).trace is None


@pytest.mark.parametrize("config,overrides,pointer", [
    (small(platform={"nodes": 0, "cores_per_node": 2, "core_gflops": {"default": 2}}), {}, "/platform/nodes"),
    (small(), {"protocol.type": "bogus"}, "/protocol/type"),
    (small(), {"/application/tiles": -3}, "/application/tiles"),
])
def test_config_errors_carry_the_cli_message(config, overrides, pointer):
    with pytest.raises(ftsim.ConfigError) as error:
        ftsim.run(config, **overrides)
    named = [f"override {key}={value!r}" for key, value in overrides.items()]
    assert error.value.pointer == pointer and error.value.file == (named[0] if named else "<dict>")
    assert pointer in str(error.value)
    with pytest.raises(ValueError):  # ConfigError is a ValueError
        ftsim.validate(config, **overrides)


def test_a_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ftsim.ConfigError) as error:
        ftsim.run(tmp_path / "nope.json")
    assert "nope.json" in str(error.value)
    with pytest.raises(TypeError):
        ftsim.run(42)


def test_graph_stats_and_networkx():
    g = ftsim.graph(small())
    assert g.stats["tasks"] == 56 and g.nodes == 4  # 6 tiles: 6 + 15 + 15 + 20 tasks
    tasks = g.tasks
    assert len(tasks) == 56 and set(tasks["kernel"]) == {"POTRF", "TRSM", "SYRK", "GEMM"}
    nx_graph = g.to_networkx()
    assert nx_graph.number_of_nodes() == 56 and nx_graph.number_of_edges() == g.stats["edges"]
    import networkx as nx
    assert nx.is_directed_acyclic_graph(nx_graph)
    assert nx_graph.nodes[0]["kernel"] == "POTRF"


def test_volumes_match_the_cli(ftsim_binary, source_dir, tmp_path):
    import subprocess
    path = source_dir / "configs" / "examples" / "cholesky-small.json"
    config = json.loads(path.read_text())
    config["checkpoints"] = [{"count": 1, "buddy": "next"}, {"count": 2, "buddy": "next"}]
    file = tmp_path / "v.json"
    file.write_text(json.dumps(config))
    subprocess.run([str(ftsim_binary), "volumes", str(file), "--json", str(tmp_path / "cli.json")], check=True,
                   capture_output=True)
    assert ftsim.volumes(file) == json.loads((tmp_path / "cli.json").read_text())


def test_daly_examples():
    # Daly 2006 with a 5-minute checkpoint: 117 min (M = 24 h), 57 min (6 h), 9.1 min (15 min).
    minute, hour = 60.0, 3600.0
    assert ftsim.analysis.daly(5 * minute, 24 * hour) / minute == pytest.approx(117, abs=0.5)
    assert ftsim.analysis.daly(5 * minute, 6 * hour) / minute == pytest.approx(57, abs=0.5)
    assert ftsim.analysis.daly(5 * minute, 15 * minute) / minute == pytest.approx(9.1, abs=0.05)
    assert ftsim.analysis.young(5 * minute, 24 * hour) / minute == pytest.approx(120)
    assert ftsim.analysis.optimal_period(5 * minute, 15 * minute) / minute == pytest.approx(9.17, abs=0.01)
    # Two levels, a fast one taking 85% of the failures (Moody et al.): about sqrt(0.85 * 100 / 0.15)
    # level-1 checkpoints per level-2 one, and an overhead close to the sum of sqrt(2 lambda C).
    day = 24 * hour
    pattern = ftsim.analysis.multilevel([(1, 0.85 / day, 0), (100, 0.15 / day, 0)])
    assert pattern["levels"] == [0, 1] and pattern["counts"] == [24, 1]
    assert pattern["bound"] <= pattern["overhead"] < 1.001 * pattern["bound"]
    with pytest.raises(ValueError):
        ftsim.analysis.young(-1, hour)


def test_runs_release_the_gil():
    # Two runs in threads take about the time of one on 2 cores, not twice (each simulation is a
    # child process; the calling thread waits without the GIL).
    config = small(application={"type": "cholesky", "tiles": 30, "tile_size": 64})
    start = time.monotonic()
    ftsim.run(config)
    one = time.monotonic() - start
    results = []
    threads = [threading.Thread(target=lambda: results.append(ftsim.run(config))) for _ in range(2)]
    start = time.monotonic()
    for t in threads:
        t.start()
    # While they run, this thread still gets the GIL.
    ticks = 0
    while any(t.is_alive() for t in threads):
        ticks += 1
        time.sleep(0.001)
    both = time.monotonic() - start
    assert len(results) == 2 and all(r.ok for r in results)
    # (a thread holding the GIL for the whole run would leave this one a tick or two; on a loaded
    # machine a short run leaves a few ticks only)
    assert ticks >= 3
    assert both < 1.8 * one + 0.2


def test_sweep_returns_a_dataframe_and_resumes(source_dir, tmp_path):
    frame = ftsim.sweep(source_dir / "configs" / "sweeps" / "protocols.json", jobs=2, output=tmp_path / "s")
    assert len(frame) == 27 and set(frame["status"]) == {"ok"}
    assert set(frame["protocol.type"]) == {"none", "global", "lineage", "buddy", "cck", "uncoordinated"}
    assert set(frame["application.type"]) == {"cholesky", "stencil", "cg"}
    buddy = frame[frame["protocol.type"] == "buddy"]
    assert (buddy["starpu.CP_DATA_NORMAL_COUNT"] + buddy["starpu.CP_DATA_CACHED_COUNT"] > 0).all()
    # Again into the same directory: nothing is recomputed (the points' results stay as they were).
    results = sorted((tmp_path / "s" / "points").glob("*/results.json"))
    stamps = [p.stat().st_mtime_ns for p in results]
    again = ftsim.sweep(source_dir / "configs" / "sweeps" / "protocols.json", output=tmp_path / "s")
    assert [p.stat().st_mtime_ns for p in results] == stamps
    assert list(again["makespan"]) == list(frame["makespan"])


def test_sweep_of_a_dict_and_its_errors():
    config = small(sweep={"grid": {"protocol.type": ["none", "lineage"]}, "seeds": 2},
                   failures={"model": "list", "events": [{"node": 1, "time": "1 ms"}]})
    frame = ftsim.sweep(config, jobs=2)
    assert len(frame) == 4 and set(frame["status"]) == {"ok"} and set(frame["seed"]) == {1, 2}
    with pytest.raises(ftsim.ConfigError) as error:
        ftsim.sweep(small(sweep={"grid": {"protocol.type": ["none", "bogus"]}}))
    assert error.value.pointer == "/protocol/type"


# ----- issue 24: pandas habits, the overhead split, the version, docstrings that name what exists

def failing(**extra):
    return small(failures={"model": "list", "events": [{"node": 1, "time": "1 ms"}, {"node": 2, "time": "3 ms"}]},
                 protocol={"type": "global", "period": "1ms", "storage": "stable"},
                 platform={"nodes": 4, "cores_per_node": 2, "core_gflops": {"default": 2}, "storage": {"hosts": 1}},
                 run={"reference": True}, **extra)


def test_version_is_the_binary_s(ftsim_binary):
    import subprocess
    printed = subprocess.run([str(ftsim_binary), "--version"], capture_output=True, text=True, check=True).stdout
    assert ftsim.__version__ != "unknown" and ftsim.__version__ in printed
    assert ftsim.run(small()).to_dict()["ftsim_version"] == ftsim.__version__


def test_tables_are_dataframes_with_their_columns():
    import pandas as pd
    r = ftsim.run(failing())
    assert r.ok, r.failure_reason
    failures, checkpoints, nodes = r.failures, r.checkpoints, r.nodes
    assert all(isinstance(t, pd.DataFrame) for t in (failures, checkpoints, nodes))
    assert len(failures) == 2 and list(failures["node"]) == [1, 2]
    assert list(failures.columns[:6]) == ["time", "node", "detected_at", "replaced_at", "recovered_at", "recovery_time"]
    assert failures["time"].dtype == float and (failures["recovered_at"] > failures["time"]).all()
    assert list(failures["recovered_at"]) == [f["recovered_at"] for f in r.to_dict()["failures"]]
    assert len(checkpoints) == len(r.to_dict()["checkpoints"]) > 0
    assert {"id", "process", "started", "saved", "committed", "bytes", "aborted"} <= set(checkpoints.columns)
    assert checkpoints["process"].isna().all()  # coordinated: checkpoints of the whole job
    assert len(nodes) == 4 and nodes.index.name == "node"
    assert "bytes_sent.checkpoint" in nodes.columns and "checkpoint_store.peak_bytes" in nodes.columns
    assert nodes["executions"].sum() == r["executions"]
    done = r.checkpoints[r.checkpoints["committed"].notna()]
    assert r.checkpoint_duration == pytest.approx((done["committed"] - done["started"]).mean())
    # Without failures or checkpoints the tables are empty but keep their columns.
    plain = ftsim.run(small())
    assert len(plain.failures) == 0 and "recovered_at" in plain.failures.columns
    assert len(plain.checkpoints) == 0 and "committed" in plain.checkpoints.columns
    assert plain.checkpoint_duration is None


def test_the_overhead_split_and_repr():
    r = ftsim.run(failing())
    reference = r.to_dict()["reference"]
    assert r.reference == reference
    assert r.reference_makespan == reference["makespan"] and r.protocol_makespan == reference["protocol_makespan"]
    assert r.overhead_checkpointing == reference["checkpointing"] and r.overhead_failures == reference["failures"]
    assert r.overhead_checkpointing + r.overhead_failures == pytest.approx(r.overhead, abs=1e-9)
    assert r.overhead_failures > 0
    text = repr(r)  # percentages as the CLI's summary prints them (issue 39: one format)
    assert f"overhead {100 * r.overhead:.1f}%" in text
    assert f"checkpointing {100 * r.overhead_checkpointing:.1f}%" in text
    assert f"failures {100 * r.overhead_failures:.1f}%" in text
    assert "2 failures" in text and "global" in text and "ok" in text
    plain = ftsim.run(small())
    assert plain.reference is None and plain.overhead is None and plain.overhead_checkpointing is None
    assert "overhead" not in repr(plain) and "0 failures" in repr(plain)


def test_trace_metadata_is_apart_from_the_events():
    r = ftsim.run(failing(), trace=True)
    events, lanes = r.trace, r.trace_metadata
    assert "M" not in set(events["ph"]) and {"X", "i"} <= set(events["ph"])
    assert events["ts"].max() <= r.makespan + 1e-6  # seconds, not microseconds
    assert {"sends", "receives", "protocol", "core 0", "core 1"} <= set(lanes["lane"])
    assert set(lanes[lanes["core"]]["lane"]) == {"core 0", "core 1"}
    assert "coordinator" in set(lanes["process"]) and lanes.attrs["display_time_unit"] == "ms"
    tasks = events[(events["ph"] == "X") & (events["lane"].str.startswith("core"))]
    assert len(tasks) == r["executions"]
    failures = events[(events["ph"] == "i") & (events["name"] == "failure")]
    assert sorted(a["node"] for a in failures["args"]) == [1, 2]
    assert r.trace is events  # computed once


def test_load_an_output_directory(ftsim_binary, tmp_path):
    import subprocess
    config = tmp_path / "c.json"
    config.write_text(json.dumps(failing()))
    subprocess.run([str(ftsim_binary), "run", str(config), "-o", str(tmp_path / "out"), "--trace"], check=True,
                   capture_output=True)
    loaded = ftsim.load(tmp_path / "out")
    again = ftsim.run(config)
    assert loaded.makespan == again.makespan and loaded.overhead == again.overhead
    assert loaded.trace is not None and len(loaded.failures) == 2
    assert ftsim.load(tmp_path / "out" / "results.json").makespan == loaded.makespan
    with pytest.raises(FileNotFoundError):
        ftsim.load(tmp_path)


def test_sweep_names_its_options(monkeypatch):
    import inspect
    parameters = inspect.signature(ftsim.sweep).parameters
    assert {"jobs", "output", "shard", "progress"} <= set(parameters)
    assert all(parameters[p].kind == inspect.Parameter.KEYWORD_ONLY for p in ("jobs", "output", "shard", "progress"))
    from ftsim._sweep import _resolve_shard
    monkeypatch.setenv("SLURM_ARRAY_TASK_ID", "3")
    monkeypatch.setenv("SLURM_ARRAY_TASK_COUNT", "8")
    assert _resolve_shard("auto") == "3/8" and _resolve_shard("1/2") == "1/2" and _resolve_shard(None) is None
    monkeypatch.delenv("SLURM_ARRAY_TASK_ID")
    with pytest.raises(ValueError, match="SLURM_ARRAY_TASK_ID"):
        _resolve_shard("auto")


def test_sweep_rows_carry_the_split_and_si_columns():
    config = failing(sweep={"grid": {"protocol.period": ["1ms", "2ms"]}})
    frame = ftsim.sweep(config, jobs=2)
    assert set(frame["status"]) == {"ok"}
    assert list(frame["protocol.period_s"]) == [0.001, 0.002]
    assert (frame["overhead_checkpointing"] + frame["overhead_failures"] - frame["overhead"]).abs().max() < 1e-9
    assert (frame["checkpoint_duration"] > 0).all()


def _documented_names(text):
    """Result.X and ftsim.X named in a text."""
    import re
    return set(re.findall(r"\bResult\.([A-Za-z_]\w*)", text)), set(re.findall(r"\bftsim\.([A-Za-z_]\w*)", text))


def test_docstrings_and_docs_name_attributes_that_exist(source_dir):
    # help(ftsim.run) named Result.trace_events, which never existed.
    import inspect
    import pydoc
    texts = {"help(ftsim)": pydoc.render_doc(ftsim, renderer=pydoc.plaintext)}
    for module in (ftsim, ftsim.plots, ftsim.analysis):
        for name, member in inspect.getmembers(module):
            if (inspect.isfunction(member) or inspect.isclass(member)) and member.__doc__:
                texts[f"{module.__name__}.{name}"] = member.__doc__
    for name, member in inspect.getmembers(ftsim.Result):
        if member.__doc__ and not name.startswith("__"):
            texts[f"Result.{name}"] = member.__doc__
    texts["docs/python.md"] = (source_dir / "docs" / "python.md").read_text()
    for where, text in texts.items():
        attributes, functions = _documented_names(text)
        for attribute in attributes:
            assert hasattr(ftsim.Result, attribute), f"{where} names Result.{attribute}, which does not exist"
        for function in functions:
            assert hasattr(ftsim, function) or function in ("plots", "analysis"), \
                f"{where} names ftsim.{function}, which does not exist"
    # Every public attribute of Result and function of ftsim.plots is documented in docs/python.md.
    import re
    documented = texts["docs/python.md"]
    for name in dir(ftsim.Result):
        if not name.startswith("_"):
            assert re.search(rf"`[^`\n]*\b{name}\b[^`\n]*`", documented), f"docs/python.md does not mention Result.{name}"
    for name in ftsim.plots.__all__:
        assert re.search(rf"`{name}\b", documented), f"docs/python.md does not mention ftsim.plots.{name}"
