"""Every config under configs/ is valid for both the JSON schema (configs/schema/ftsim.schema.json)
and the C++ loader (`ftsim validate` exits 0; for a sweep config, every point's config too); every graph file under configs/ (top-level "format":
"ftsim-graph") is valid for the graph schema and loads. New files are found automatically.
Also checks that the schemas' unit patterns accept exactly the strings the loader accepts."""
import json
import os
import pathlib

import pytest

jsonschema = pytest.importorskip("jsonschema")

SOURCE_DIR = pathlib.Path(os.environ.get("FTSIM_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
CONFIGS = SOURCE_DIR / "configs"
SCHEMA_DIR = CONFIGS / "schema"
CONFIG_SCHEMA = SCHEMA_DIR / "ftsim.schema.json"
GRAPH_SCHEMA = SCHEMA_DIR / "ftsim-graph.schema.json"


def read_json(path):
    return json.loads(path.read_text(encoding="utf-8"))


def is_graph_file(document):
    return isinstance(document, dict) and document.get("format") == "ftsim-graph"


def discover():
    configs, graphs = [], []
    for path in sorted(CONFIGS.rglob("*.json")):
        if SCHEMA_DIR in path.parents:
            continue
        try:
            graph = is_graph_file(read_json(path))
        except ValueError:  # not JSON: reported by the config tests
            graph = False
        (graphs if graph else configs).append(path)
    return configs, graphs


CONFIG_FILES, GRAPH_FILES = discover()


def relative(path):
    return str(path.relative_to(SOURCE_DIR))


def make_validator(path):
    schema = read_json(path)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@pytest.fixture(scope="module")
def config_schema():
    return make_validator(CONFIG_SCHEMA)


@pytest.fixture(scope="module")
def graph_schema():
    return make_validator(GRAPH_SCHEMA)


def schema_errors(validator, document):
    return "\n".join(
        f"  {'/' + '/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in validator.iter_errors(document)
    )


def test_schemas_are_valid_schemas():
    for path in (CONFIG_SCHEMA, GRAPH_SCHEMA):
        make_validator(path)


def test_there_are_configs_of_every_application():
    types = {read_json(p).get("application", {}).get("type") for p in CONFIG_FILES}
    assert {"cholesky", "stencil", "cg", "spmd", "json"} <= types


@pytest.mark.parametrize("path", CONFIG_FILES, ids=relative)
def test_config_is_valid_for_schema_and_loader(config_schema, ftsim, path):
    document = read_json(path)
    errors = schema_errors(config_schema, document)
    assert not errors, f"{relative(path)} does not match {relative(CONFIG_SCHEMA)}:\n{errors}"
    if "$schema" in document:  # editors resolve it relative to the config
        assert (path.parent / document["$schema"]).resolve() == CONFIG_SCHEMA.resolve(), document["$schema"]
    result = ftsim("validate", path, timeout=120)
    assert result.returncode == 0, f"ftsim validate {relative(path)}: exit {result.returncode}\n{result.stderr}"
    if "sweep" in document:
        # A sweep config (docs/sweeps.md): the schema checks its sweep section and top-level keys, and
        # every point's config, as `ftsim sweep --list-json` makes them, as a config of its own.
        listed = ftsim("sweep", path, "--list-json", timeout=120)
        assert listed.returncode == 0, listed.stderr
        for line in listed.stdout.splitlines():
            point = json.loads(line)
            errors = schema_errors(config_schema, point["config"])
            assert not errors, f"{relative(path)}: point {point['point']} ({point['values']}) does not match the schema:\n{errors}"


@pytest.mark.parametrize("path", GRAPH_FILES, ids=relative)
def test_graph_file_is_valid_for_schema_and_loader(graph_schema, ftsim, tmp_path, path):
    document = read_json(path)
    errors = schema_errors(graph_schema, document)
    assert not errors, f"{relative(path)} does not match {relative(GRAPH_SCHEMA)}:\n{errors}"
    nodes = document.get("nodes") or 1 + max(
        [d["owner"] for d in document["data"]] + [t["node"] for t in document["submission"] if "node" in t], default=0
    )
    config = tmp_path / "graph-config.json"
    config.write_text(json.dumps({"application": {"type": "json", "file": str(path)}, "platform": {"nodes": nodes}}))
    result = ftsim("validate", config, timeout=120)
    assert result.returncode == 0, f"{relative(path)} does not load: exit {result.returncode}\n{result.stderr}"


EXAMPLES = [p for p in CONFIG_FILES if (CONFIGS / "examples") in p.parents]


@pytest.mark.parametrize("path", EXAMPLES, ids=relative)
def test_exported_graph_matches_graph_schema(graph_schema, ftsim, tmp_path, path):
    """`ftsim graph --json` writes the ftsim-graph format (small example configs only)."""
    exported = tmp_path / "graph.json"
    result = ftsim("graph", path, "--json", exported, timeout=120)
    assert result.returncode == 0, result.stderr
    errors = schema_errors(graph_schema, read_json(exported))
    assert not errors, f"export of {relative(path)} does not match {relative(GRAPH_SCHEMA)}:\n{errors}"


# Unit strings: (text, accepted as a size, accepted as a positive duration), as units.cpp parses them.
# A string must name its unit (a bare number is written as a JSON number): "1024" is refused.
UNIT_STRINGS = [
    ("0", False, False),
    ("1024", False, False),
    ("320KiB", True, False),
    ("4MB", True, False),
    ("1.5 GiB", True, False),
    (" 2 TiB ", True, False),
    (".5GB", True, False),
    ("5.", False, False),
    ("5.B", True, False),
    ("5.s", False, True),
    ("1e3KB", True, False),
    ("1E+3B", True, False),
    ("-0", False, False),
    ("-0B", True, False),
    ("-1KiB", False, False),
    ("+1KiB", False, False),
    ("12 parsecs", False, False),
    ("40Gbs", False, False),
    ("1.18 Gb", False, False),
    ("kB", False, False),
    ("5kB", False, False),
    ("KiB", False, False),
    ("", False, False),
    ("1e", False, False),
    ("0x10", False, False),
    ("inf", False, False),
    ("5\tKiB", False, False),
    ("1us", False, True),
    ("1µs", False, True),
    ("20 ms", False, True),
    ("2h", False, True),
    ("1.5min", False, True),
    ("3d", False, True),
    ("1e-3s", False, True),
    ("0s", False, False),
    ("0.0e5h", False, False),
    ("0.001ms", False, True),
    ("3 fortnights", False, False),
    ("2H", False, False),
]


def definition_validator(validator, name):
    schema = {"$schema": validator.schema["$schema"], "$defs": validator.schema["$defs"], "$ref": f"#/$defs/{name}"}
    return type(validator)(schema)


@pytest.mark.parametrize("text,size_ok,duration_ok", UNIT_STRINGS)
def test_unit_patterns_agree_with_loader(config_schema, ftsim, tmp_path, text, size_ok, duration_ok):
    base = {"application": {"type": "cholesky", "tiles": 2, "tile_size": 2}, "platform": {"nodes": 1}}
    for key, definition, expected in [
        ("application_bytes_per_node", "size", size_ok),
        ("makespan", "positiveDuration", duration_ok),
    ]:
        config = tmp_path / f"{key}.json"
        document = {**base, "reference": {"source": "units", key: text}}
        config.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
        result = ftsim("validate", config, timeout=60)
        assert result.returncode == (0 if expected else 2), f"loader on {key} = {text!r}: {result.stderr}"
        assert config_schema.is_valid(document) == expected, f"schema on {key} = {text!r}"
        assert definition_validator(config_schema, definition).is_valid(text) == expected, f"$defs/{definition}"
