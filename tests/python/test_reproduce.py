"""bench/reproduce.py (issue 41 item 3): one table of every seed paper's artefacts. --quick runs a few rows at
reduced size and every row must give a value; the verdict logic flips when a paper value is planted wrong."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

from conftest import BINARY, SOURCE_DIR

SCRIPT = SOURCE_DIR / "bench" / "reproduce.py"


@pytest.fixture(scope="module")
def reproduce():
    spec = importlib.util.spec_from_file_location("reproduce", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["reproduce"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("reproduce", None)


def test_the_verdict_function(reproduce):
    assert reproduce.verdict(25.0, 24.0, 5.0) == ("match", "-1.0 pts")
    assert reproduce.verdict(25.0, 0.014, 5.0)[0] == "gap"  # Lion 2020 Fig. 5 as ftsim predicts it today
    assert reproduce.verdict(22.5, 20.5, 0.10, relative=True)[0] == "match"
    assert reproduce.verdict(22.5, 17.28, 0.10, relative=True) == ("gap", "-23.2%")
    assert reproduce.verdict(80, 100, 20)[0] == "match"  # the bound is inclusive


class FakeContext:
    """A full-size context whose bench scripts return canned numbers (no run)."""
    quick = False

    def __init__(self, outputs):
        self.outputs = outputs

    def script_json(self, script, *args, **kw):
        return self.outputs[script], None


def test_a_planted_wrong_paper_value_flips_the_verdict(reproduce, monkeypatch):
    # ftsim's CG as the thesis measured it: +4.6% migration, +22.41% checkpoint/rollback.
    ctx = FakeContext({"cores2015_table35.py": [{"app": "cg", "orig": 43.91, "migr": 45.93, "ckpt": 53.75}]})
    rows = reproduce.cores_table35(ctx)
    assert [r.verdict for r in rows[:2]] == ["match", "match"]
    assert all(r.verdict == "missing" for r in rows[2:]) and len(rows) == 7  # BT, EP, FT, LU, SP
    monkeypatch.setitem(reproduce.CORES_TABLE35, "CG", (43.91, 60.0, 53.75))  # a wrong Migr
    rows = reproduce.cores_table35(ctx)
    assert [r.verdict for r in rows[:2]] == ["gap", "match"]
    assert "docs/migration.md" in rows[0].cause  # a gap names its cause and its doc


def test_the_registry_lists_every_seed_paper(reproduce):
    sources = " ".join(source for _, source, _ in reproduce.REGISTRY.values())
    for paper in ("Lion & Thibault 2020", "Lion 2022", "Besseron", "Guermouche", "Cores 2015", "Daly"):
        assert paper in sources


def test_quick_rows_give_values(tmp_path):
    out = tmp_path / "rows.json"
    env = dict(os.environ, FTSIM_BUILD_DIR=str(BINARY.resolve().parent))
    names = ["lion-table1", "lion-fig5-380", "lion-fig5-896", "lion-calibrated-896", "besseron", "cores-table2"]
    result = subprocess.run(["/usr/bin/python3", str(SCRIPT), *names, "--quick", "--json", str(out)],
                            capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    header = result.stdout.splitlines()[0]
    assert [c.strip() for c in header.strip("|").split("|")] == list(
        ("name", "source", "artefact", "paper", "ftsim", "error", "verdict", "cause"))
    rows = json.loads(out.read_text())
    assert {r["name"] for r in rows} == set(names)
    for row in rows:
        assert row["paper"] not in ("", "—"), row
        # reduced runs (the 896-tile ones too, at 24 tiles): a value, no verdict
        assert row["verdict"] == "quick" and row["ftsim"] not in ("", "—"), row


def test_an_unknown_name_is_refused():
    result = subprocess.run(["/usr/bin/python3", str(SCRIPT), "no-such-figure"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "unknown reproduction" in result.stderr
