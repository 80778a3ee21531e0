"""Malformed configs (tests/configs/malformed/): `ftsim validate` and `ftsim run` reject each with exit
code 2 and a message naming the file, the JSON pointer and what was expected; none crashes. expected.json says,
per file, the pointer, a substring of the message, and whether the JSON schemas alone reject it."""
import json
import math
import os
import pathlib

import pytest

jsonschema = pytest.importorskip("jsonschema")

SOURCE_DIR = pathlib.Path(os.environ.get("FTSIM_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
MALFORMED = SOURCE_DIR / "tests" / "configs" / "malformed"
EXPECTED = json.loads((MALFORMED / "expected.json").read_text(encoding="utf-8"))
CASES = {name: case for name, case in EXPECTED.items() if not name.startswith("$")}


def validator(schema_file):
    schema = json.loads((SOURCE_DIR / "configs" / "schema" / schema_file).read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@pytest.fixture(scope="module")
def config_schema():
    return validator("ftsim.schema.json")


@pytest.fixture(scope="module")
def graph_schema():
    return validator("ftsim-graph.schema.json")


def test_corpus_is_complete():
    on_disk = {p.name for p in MALFORMED.glob("*.json")} - {"expected.json"}
    absent = {name for name, case in CASES.items() if case.get("absent")}
    assert on_disk == set(CASES) - absent, "every malformed config needs an entry in expected.json and vice versa"
    assert not any((MALFORMED / name).exists() for name in absent)
    assert len(CASES) >= 24
    for name, case in CASES.items():
        assert {"pointer", "message", "schema", "why"} <= case.keys(), name
        if case["pointer"] is not None:
            assert case["pointer"].startswith("/"), name


@pytest.mark.parametrize("name", sorted(CASES))
def test_validate_rejects_with_pointer(ftsim, name):
    case = CASES[name]
    path = MALFORMED / name
    result = ftsim("validate", path, timeout=60)
    assert result.returncode == 2, (
        f"expected exit code 2 (bad input), got {result.returncode} "
        f"({'killed by a signal' if result.returncode < 0 else 'run failed' if result.returncode == 1 else 'accepted'})\n"
        f"stdout: {result.stdout}\nstderr: {result.stderr}"
    )
    stderr = result.stderr
    # The error names the file it is about: the config itself, or the graph file it points to.
    named = path.parent / case["file"] if "file" in case else path
    if case["pointer"] is None:
        assert f"{named}: " in stderr, stderr
    else:
        assert f"{named}: {case['pointer']}: " in stderr, stderr
    assert case["message"] in stderr, stderr
    assert stderr.startswith("error: "), stderr
    assert stderr.count("\n") == 1, f"one error line expected:\n{stderr}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_run_rejects_with_pointer_before_simulating(ftsim, tmp_path, name):
    """`ftsim run` loads the same way: the same error (or, for a config without kernel speeds, that
    one first), at once, and no results written."""
    case = CASES[name]
    path = MALFORMED / name
    result = ftsim("run", path, "-o", tmp_path / "out", timeout=10)
    assert result.returncode == 2, f"exit code {result.returncode}\nstdout: {result.stdout}\nstderr: {result.stderr}"
    named = path.parent / case["file"] if "file" in case else path
    prefix = f"{named}: " if case["pointer"] is None else f"{named}: {case['pointer']}: "
    if f"{path}: /platform: a timed run needs kernel speeds" not in result.stderr:
        assert prefix in result.stderr and case["message"] in result.stderr, result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert not (tmp_path / "out" / "results.json").exists()


def finite_float(text):
    value = float(text)
    if math.isinf(value):  # Python reads 1e400 as inf; for ftsim (nlohmann) it is invalid JSON
        raise ValueError(f"number overflow parsing {text!r}")
    return value


def load_or_none(path):
    """The document, or None if it is not JSON (which no schema accepts)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"), parse_float=finite_float)
    except (ValueError, UnicodeDecodeError):
        return None


def is_schema_valid(schema, document):
    return document is not None and schema.is_valid(document)


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c["schema"] is not None))
def test_schema_detects_what_it_can(config_schema, graph_schema, name):
    """`schema: true`: the schemas reject the file. `schema: false`: they accept it, and only the
    loader's semantic checks (comparing values with each other or with files) reject it."""
    case = CASES[name]
    path = MALFORMED / name
    config_valid = is_schema_valid(config_schema, load_or_none(path))
    graph_valid = True
    if "file" in case:
        graph_valid = is_schema_valid(graph_schema, load_or_none(path.parent / case["file"]))
    valid = config_valid and graph_valid
    if case["schema"]:
        assert not valid, f"{name}: the schema accepts it but expected.json says the schema can reject it"
    else:
        errors = [e.message for e in config_schema.iter_errors(load_or_none(path) or {})]
        assert valid, f"{name}: expected.json says only the loader can reject it, but the schema does: {errors}"
