"""Words that mislead (issue 39, item 11): what ftsim prints says what it means."""
import json
import re
import subprocess

import pytest

# Cholesky 6 x 6 tiles on 4 nodes under global, one failure: a run takes a few milliseconds.
CONFIG = {
    "name": "words",
    "application": {"type": "cholesky", "tiles": 6, "tile_size": 64},
    "distribution": {"type": "block-cyclic", "P": 2, "Q": 2},
    "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": 2, "storage": {"hosts": 1}},
    "protocol": {"type": "global", "period": "0.25ms", "storage": "stable"},
    "failures": {"model": "list", "events": [{"node": 1, "after_tasks": 6}], "downtime": "0.1ms"},
    "run": {"reference": True},
}


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "words.json"
    path.write_text(json.dumps(CONFIG))
    return path


def test_validate_says_a_periodic_schedule_checkpoints(ftsim, config):
    result = ftsim("validate", config)
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert "0 checkpoint placement" not in first
    assert "checkpoints every 250 us (/protocol/period)" in first
    none = ftsim("validate", config, "--set", 'protocol={"type": "none"}')
    assert "no checkpoints)" in none.stdout.splitlines()[0]


def test_the_protocols_failure_free_makespan_says_it_is_this_protocol_without_its_failures(ftsim, config, tmp_path):
    result = ftsim("run", config, "-o", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert "failure-free makespan (global)" not in result.stdout
    assert re.search(r"makespan of global without its failures\s+\d", result.stdout)


def test_the_event_log_names_the_coordinator(ftsim, config, tmp_path):
    result = ftsim("run", config, "-o", tmp_path / "out", "--log", "all")
    assert result.returncode == 0, result.stderr
    log = (tmp_path / "out" / "events.log").read_text()
    coordinator = CONFIG["platform"]["nodes"]  # the process after the nodes
    assert f"process {coordinator} " not in log and f"from {coordinator} " not in log
    assert re.search(r"\] protocol coordinator +\S", log)
    assert "from coordinator (" in log


def test_python_prints_the_makespan_as_the_cli_does(ftsim, config, tmp_path):
    import ftsim as package
    result = ftsim("run", config, "-o", tmp_path / "out")
    cli = re.search(r"^\s*makespan\s+(\S+ \S+)", result.stdout, re.M).group(1)
    assert f"makespan {cli}," in repr(package.run(config))
    assert package._ftsim.format_seconds(0.939) == "939 ms"


@pytest.mark.parametrize("flag,file,says", [("--json", "g.json", "ftsim-graph JSON"), ("--dot", "g.dot", "Graphviz DOT")])
def test_graph_exports_say_what_they_wrote_where(ftsim, config, tmp_path, flag, file, says):
    result = ftsim("graph", config, flag, tmp_path / file)
    assert result.returncode == 0, result.stderr
    assert f"wrote {tmp_path / file}: the graph in the {says}" in result.stdout or \
        f"wrote {tmp_path / file}: the graph in {says}" in result.stdout
    volumes = ftsim("volumes", config, "--count", "2", "--json", tmp_path / "v.json")
    assert volumes.returncode == 0, volumes.stderr
    assert f"wrote {tmp_path / 'v.json'}:" in volumes.stdout


def test_a_rerun_into_the_same_directory_keeps_no_stale_output(ftsim, config, tmp_path):
    out = tmp_path / "out"
    first = ftsim("run", config, "-o", out, "--trace", "--log", "failure")
    assert first.returncode == 0 and (out / "trace.json").exists() and (out / "events.log").exists()
    (out / "notes.txt").write_text("mine")
    again = ftsim("run", config, "-o", out)
    assert again.returncode == 0, again.stderr
    assert not (out / "trace.json").exists() and not (out / "events.log").exists()
    assert f"removed {out / 'trace.json'}" in again.stderr and f"removed {out / 'events.log'}" in again.stderr
    assert (out / "notes.txt").read_text() == "mine"  # not ftsim's: left alone
