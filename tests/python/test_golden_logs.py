"""Golden logs (as SimGrid's .tesh files): small paper examples and the example protocols
(protocols/example-*) run with `--log all`, compared line by line with the log checked in beside
their config under tests/golden/. A change of behaviour shows as a diff of events. After an intended
change, regenerate with FTSIM_UPDATE_GOLDEN=1 and review the diff."""
import difflib
import os
import subprocess
from pathlib import Path

import pytest

SOURCE = Path(os.environ.get("FTSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
GOLDEN = sorted((SOURCE / "tests" / "golden").glob("*.json"))


@pytest.mark.parametrize("config", GOLDEN, ids=[c.stem for c in GOLDEN])
def test_event_log_matches_the_golden_log(config, tmp_path):
    result = subprocess.run([os.environ["FTSIM_BINARY"], "run", str(config), "-o", str(tmp_path), "--log", "all"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    produced = (tmp_path / "events.log").read_text(encoding="utf-8")
    golden = config.with_suffix(".log")
    if os.environ.get("FTSIM_UPDATE_GOLDEN") == "1":
        golden.write_text(produced, encoding="utf-8")
    expected = golden.read_text(encoding="utf-8")
    diff = "".join(difflib.unified_diff(expected.splitlines(True), produced.splitlines(True), str(golden), "produced"))
    assert produced == expected, (
        f"the event log of {config.name} differs from its golden log (- golden, + produced):\n{diff}\n"
        "If the change of behaviour is intended, regenerate the golden logs and review their diff:\n"
        "  FTSIM_UPDATE_GOLDEN=1 FTSIM_BINARY=build/ftsim python3 -m pytest tests/python/test_golden_logs.py")


def test_there_are_golden_logs():
    assert len(GOLDEN) >= 5
    # Each example protocol (docs/writing-a-protocol.md) has its golden log.
    examples = sorted(p.name for p in (SOURCE / "protocols").glob("example-*") if p.is_dir())
    assert examples and all((SOURCE / "tests" / "golden" / f"{name}.json").exists() for name in examples), examples


def test_unknown_log_category_is_bad_input(tmp_path):
    result = subprocess.run([os.environ["FTSIM_BINARY"], "run", str(GOLDEN[0]), "-o", str(tmp_path), "--log", "tasks"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert 'unknown category "tasks"' in result.stderr
