"""`ftsim analyze` and ftsim.analyze (docs/analysis.md): the JSON document, the readable table,
exit codes and messages for bad traces (ftsim-trace JSON and SMPI), checkpoint placement, the
trace schema (configs/schema/ftsim-trace.schema.json) against the reader, and the Python API
against the CLI."""
import json

import pytest

import ftsim as api  # noqa: E402  (conftest puts build/python on sys.path; `ftsim` is the CLI fixture)

from conftest import SOURCE_DIR

TRACES = SOURCE_DIR / "tests" / "data" / "traces"
SMPI = SOURCE_DIR / "tests" / "data" / "smpi"
WORKED = TRACES / "worked-example.trace.json"
REQUIRED_KEYS = {"recovery_line", "rolled_back", "domino", "useless_checkpoints", "z_cycles", "messages_to_replay",
                 "rollback_distance"}


def analyze_cli(ftsim, tmp_path, *args):
    out = tmp_path / "analysis.json"
    run = ftsim("analyze", *args, "--json", out)
    assert run.returncode == 0, run.stderr
    return json.loads(out.read_text()), run.stdout


def test_the_worked_example_under_both_rules(ftsim, tmp_path):
    # docs/analysis.md walks through these numbers.
    expected = {("piecewise", 0): [2, None, 2], ("piecewise", 1): [1, 0, 1], ("piecewise", 2): [None, None, 2],
                ("send", 0): [2, None, None], ("send", 1): [1, 0, 0], ("send", 2): [None, None, 2]}
    for (rule, failed), line in expected.items():
        document, table = analyze_cli(ftsim, tmp_path, WORKED, "--failed", failed, "--determinism", rule)
        assert REQUIRED_KEYS <= set(document)
        assert document["recovery_line"] == line, (rule, failed)
        assert document["rolled_back"] == sum(k is not None for k in line)
        assert document["useless_checkpoints"] == [[1, 1]]
        assert document["z_cycles"] == [{"checkpoint": [1, 1], "messages": ["d", "a"]}]
        assert "restarts from" in table
    lost, _ = analyze_cli(ftsim, tmp_path, WORKED, "--failed", "1", "--determinism", "piecewise")
    assert lost["lost_messages"] == ["c"] and lost["messages_to_replay"] == []
    replay, _ = analyze_cli(ftsim, tmp_path, WORKED, "--failed", "2", "--determinism", "send")
    assert replay["messages_to_replay"] == ["e"]
    assert replay["rollback_distance"] == [0, 0, 1]
    both, _ = analyze_cli(ftsim, tmp_path, WORKED, "--failed", "2,0", "--determinism", "send")
    assert both["failed"] == [0, 2]


def test_each_failure_summary(ftsim, tmp_path):
    document, table = analyze_cli(ftsim, tmp_path, WORKED, "--each", "--determinism", "send")
    assert [f["rolled_back"] for f in document["per_failure"]] == [1, 3, 1]
    assert document["mean_rolled_back_percent"] == pytest.approx(100 * 5 / 9)
    assert document["times_rolled_back"] == [2, 1, 2]
    assert "mean rolled back: 55.6%" in table


def test_bad_traces_exit_2_naming_file_process_and_event(ftsim, tmp_path):
    cases = {
        '{"format": "ftsim-trace", "version": 1, "processes": [{"events": [{"checkpoint": 1}, {"receive": "x"}]}]}':
            "process 0, event 1: receive of \"x\" without its send",
        '{"format": "ftsim-trace", "version": 1, "processes": [{"events": [{"send": "m", "to": 3}]}]}':
            "process 0, event 0: send of \"m\" to process 3, which does not exist",
        '{"format": "ftsim-trace", "version": 1, "processes": [{"events": [{"checkpoint": 2}]}]}':
            "process 0, event 0: checkpoint numbered 2, expected 1",
        '{"format": "ftsim-trace", "version": 1, "processes": [{"events": [{"chekpoint": 1}]}]}':
            "process 0, event 0: unknown key \"chekpoint\" in an event (did you mean \"checkpoint\"?)",
        ('{"format": "ftsim-trace", "version": 1, "processes": [{"events": [{"send": "m", "to": 1}]},'
         ' {"events": [{"receive": "m"}, {"receive": "m"}]}]}'): "process 1, event 1: message \"m\" received twice",
    }
    for text, message in cases.items():
        path = tmp_path / "bad.trace.json"
        path.write_text(text)
        run = ftsim("analyze", path, "--failed", "0", "--determinism", "piecewise")
        assert run.returncode == 2, text
        assert f"{path}: {message}" in run.stderr, run.stderr
    # Bad options are bad input too.
    for args, message in [(["--failed", "7"], "failed process 7 does not exist"),
                          (["--failed", "x"], "--failed: \"x\" is not a process number"),
                          (["--failed", "0", "--checkpoints", "weekly:3"], "unknown policy")]:
        run = ftsim("analyze", WORKED, "--determinism", "send", *args)
        assert run.returncode == 2 and message in run.stderr, run.stderr
    assert ftsim("analyze", WORKED, "--determinism", "send").returncode == 2
    assert ftsim("analyze", WORKED, "--failed", "0", "--determinism", "optimistic").returncode == 2
    assert ftsim("analyze", tmp_path / "missing.json", "--failed", "0", "--determinism", "send").returncode == 2


def test_smpi_traces_with_checkpoint_policies(ftsim, tmp_path):
    for trace in (SMPI / "ring-4.actions", SMPI / "jacobi-4" / "index.txt"):
        for policy in ("periodic:5", "random:3:0.2"):
            document, _ = analyze_cli(ftsim, tmp_path, trace, "--each", "--determinism", "send", "--checkpoints", policy)
            assert document["trace"]["processes"] == 4
            assert 25 <= document["mean_rolled_back_percent"] <= 100
    clusters = tmp_path / "clusters.txt"
    clusters.write_text("# two clusters of two ranks\nperiod 3\n0-1\n2 3\n")
    document, _ = analyze_cli(ftsim, tmp_path, SMPI / "jacobi-4" / "index.txt", "--failed", "3", "--determinism", "send",
                              "--checkpoints", f"clusters:{clusters}", "--write-trace", tmp_path / "t.json")
    written = json.loads((tmp_path / "t.json").read_text())
    assert [p["name"] for p in written["processes"]] == ["rank 0", "rank 1", "rank 2", "rank 3"]
    # The second cluster starts two epochs later: messages from rank 1 to rank 2 are logged, from 2
    # to 1 not; inside a cluster, only those that cross a joint checkpoint.
    sends = {(p, e["to"], e.get("logged", False)) for p, process in enumerate(written["processes"])
             for e in process["events"] if "send" in e}
    assert (1, 2, True) in sends and (1, 2, False) not in sends
    assert (2, 1, False) in sends and (2, 1, True) not in sends
    assert (0, 1, False) in sends
    # An SMPI trace needs a policy; bad SMPI lines name the file and the line.
    run = ftsim("analyze", SMPI / "ring-4.actions", "--failed", "0", "--determinism", "send")
    assert run.returncode == 2 and "an SMPI trace has no checkpoints" in run.stderr
    bad = tmp_path / "bad.actions"
    bad.write_text("0 init\n0 send 1 0 8\n1 recv 0 0 8\n1 bcastt 8\n")
    run = ftsim("analyze", bad, "--failed", "0", "--determinism", "send", "--checkpoints", "periodic:1")
    assert run.returncode == 2 and f"{bad}: line 4: unknown action \"bcastt\"" in run.stderr
    clusters.write_text("period 3\n0-1\n2\n")
    run = ftsim("analyze", SMPI / "ring-4.actions", "--failed", "0", "--determinism", "send", "--checkpoints",
                f"clusters:{clusters}")
    assert run.returncode == 2 and "rank 3 is in no cluster" in run.stderr


def test_the_trace_schema_accepts_what_the_reader_accepts(ftsim, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((SOURCE_DIR / "configs" / "schema" / "ftsim-trace.schema.json").read_text())
    validator = jsonschema.validators.validator_for(schema)(schema)
    for path in sorted(TRACES.glob("*.json")):
        validator.validate(json.loads(path.read_text()))
    # What the writer writes (from SMPI, with checkpoints and logging) is valid too.
    run = ftsim("analyze", SMPI / "ring-4.actions", "--failed", "0", "--determinism", "send", "--checkpoints",
                "random:1:0.3", "--write-trace", tmp_path / "ring.json")
    assert run.returncode == 0, run.stderr
    validator.validate(json.loads((tmp_path / "ring.json").read_text()))
    # Shapes the schema rejects, the reader rejects too (exit 2).
    for event in ({"checkpoint": 1, "to": 0}, {"send": "m"}, {"receive": "m", "logged": True}, {"send": "", "to": 0},
                  {"checkpoint": 0}, {"send": "m", "to": -1}, {"checkpoint": 1, "time": "now"}, {}):
        document = {"format": "ftsim-trace", "version": 1, "processes": [{"events": [event]}]}
        assert not validator.is_valid(document), event
        path = tmp_path / "shape.json"
        path.write_text(json.dumps(document))
        assert ftsim("analyze", path, "--failed", "0", "--determinism", "send").returncode == 2, event


def test_python_api_matches_the_cli(ftsim, tmp_path):
    cli, _ = analyze_cli(ftsim, tmp_path, WORKED, "--failed", "1", "--determinism", "piecewise")
    assert api.analyze(WORKED, failed=1, determinism="piecewise") == cli
    as_dict = json.loads(WORKED.read_text())
    assert api.analyze(as_dict, failed=[1], determinism="piecewise")["recovery_line"] == cli["recovery_line"]
    each_cli, _ = analyze_cli(ftsim, tmp_path, SMPI / "ring-4.actions", "--each", "--determinism", "piecewise",
                              "--checkpoints", "periodic:4")
    each = api.analyze(SMPI / "ring-4.actions", each=True, determinism="piecewise", checkpoints="periodic:4")
    assert each == each_cli
    trace = api.read_trace(SMPI / "ring-4.actions", checkpoints="periodic:4", logging="all")
    assert all(e.get("logged") for p in trace["processes"] for e in p["events"] if "send" in e)
    assert api.analyze(trace, failed=0, determinism="send", z_cycles=False)["z_cycles"] == []


def test_python_errors(tmp_path):
    bad = {"format": "ftsim-trace", "version": 1,
           "processes": [{"events": [{"send": "m", "to": 1}]}, {"events": [{"checkpoint": 1}, {"receive": "n"}]}]}
    with pytest.raises(api.TraceError) as error:
        api.analyze(bad, failed=0, determinism="send")
    assert error.value.file == "<dict>" and error.value.where == "process 1, event 1"
    assert "receive of \"n\" without its send" in error.value.message
    assert isinstance(error.value, ValueError)
    with pytest.raises(ValueError, match="give failed"):
        api.analyze(WORKED, determinism="send")
    with pytest.raises(ValueError, match="failed process 5 does not exist"):
        api.analyze(WORKED, failed=5, determinism="send")
    with pytest.raises(ValueError, match="determinism"):
        api.analyze(WORKED, failed=0, determinism="optimistic")
    clusters = tmp_path / "clusters.txt"
    clusters.write_text("period 2\n0-\n")
    with pytest.raises(api.TraceError, match="line 2"):
        api.analyze(SMPI / "jacobi-4" / "index.txt", failed=0, determinism="send", checkpoints=f"clusters:{clusters}")
    with pytest.raises(TypeError):
        api.analyze(42, failed=0, determinism="send")

