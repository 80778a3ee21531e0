"""docs/configs.md lists every config key because its key tables are generated from the schema (issue 39, item 10:
the page claimed every key and omitted the `uncoordinated` protocol and its keys): the page is what
scripts/config_reference.py writes, and a key added to a schema without running it fails here."""
import json
import shutil
import subprocess
import sys


def run_script(root, *args):
    return subprocess.run([sys.executable, str(root / "scripts" / "config_reference.py"), *args],
                          capture_output=True, text=True, timeout=60)


def test_the_page_is_what_the_script_writes(source_dir):
    result = run_script(source_dir, "--check")
    assert result.returncode == 0, result.stderr


def test_every_protocol_and_its_keys_are_in_the_page(source_dir):
    page = (source_dir / "docs" / "configs.md").read_text(encoding="utf-8")
    for path in sorted((source_dir / "protocols").glob("*/schema.json")):
        protocol = path.parent.name
        assert f"| `{protocol}` |" in page, protocol
        for key in json.loads(path.read_text(encoding="utf-8"))["properties"]:
            assert f"| `{protocol}` | `/protocol/{key}` |" in page, f"{protocol}: {key}"
            assert f"| `/protocol/{key}` | `type: \"{protocol}\"` |" in page, f"{protocol}: {key}"


def test_a_key_added_to_the_schema_makes_the_page_stale(source_dir, tmp_path):
    for part in ("scripts/config_reference.py", "configs/schema/ftsim.schema.json", "docs/configs.md"):
        (tmp_path / part).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source_dir / part, tmp_path / part)
    for path in (source_dir / "protocols").glob("*/schema.json"):
        (tmp_path / "protocols" / path.parent.name).mkdir(parents=True)
        shutil.copy(path, tmp_path / "protocols" / path.parent.name / "schema.json")
    assert run_script(tmp_path, "--check").returncode == 0
    fragment_path = tmp_path / "protocols" / "uncoordinated" / "schema.json"
    fragment = json.loads(fragment_path.read_text(encoding="utf-8"))
    fragment["properties"]["jitter"] = {"$ref": "#/$defs/duration", "default": 0, "description": "a new key."}
    fragment_path.write_text(json.dumps(fragment), encoding="utf-8")
    stale = run_script(tmp_path, "--check")
    assert stale.returncode == 1 and "run scripts/config_reference.py --write" in stale.stderr
    assert run_script(tmp_path, "--write").returncode == 0
    page = (tmp_path / "docs" / "configs.md").read_text(encoding="utf-8")
    assert "| `uncoordinated` | `/protocol/jitter` | [duration](#units) | `0` | a new key. |" in page


def test_the_markers_must_be_there(source_dir, tmp_path):
    for part in ("scripts/config_reference.py", "configs/schema/ftsim.schema.json"):
        (tmp_path / part).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source_dir / part, tmp_path / part)
    (tmp_path / "protocols").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "configs.md").write_text("# Experiment configs\n", encoding="utf-8")
    result = run_script(tmp_path, "--check")
    assert result.returncode == 1 and "expected the markers" in result.stderr
