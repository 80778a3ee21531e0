"""Shared fixtures: where the ftsim binary and the source tree are."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("FTSIM_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
BINARY = pathlib.Path(os.environ.get("FTSIM_BINARY", SOURCE_DIR / "build" / "ftsim"))
# The Python package is built beside the binary (build/python/ftsim): importable by the tests
# without PYTHONPATH.
PYTHON_PACKAGE_DIR = BINARY.parent / "python"
if PYTHON_PACKAGE_DIR.is_dir() and str(PYTHON_PACKAGE_DIR) not in sys.path:
    sys.path.insert(0, str(PYTHON_PACKAGE_DIR))


@pytest.fixture(scope="session")
def source_dir() -> pathlib.Path:
    return SOURCE_DIR


@pytest.fixture(scope="session")
def ftsim_binary() -> pathlib.Path:
    """The ftsim executable under test."""
    if not BINARY.exists():
        pytest.fail(f"ftsim binary not found at {BINARY}; build first (make test does)")
    return BINARY


@pytest.fixture(scope="session")
def ftsim():
    """Runs the ftsim binary; returns the CompletedProcess (text mode)."""
    if not BINARY.exists():
        pytest.fail(f"ftsim binary not found at {BINARY}; build first (make test does)")

    def run(*args, cwd=None, timeout=600):
        return subprocess.run([str(BINARY), *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=timeout)

    return run


def run_config(ftsim, tmp_path, config: dict, name: str, *extra):
    """Writes `config` as NAME.json and runs it into NAME/ (exit 0 or 1: complete or failed);
    returns the CompletedProcess, results.json and the output folder."""
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(config))
    out = tmp_path / name
    result = ftsim("run", path, "-o", out, *extra)
    assert result.returncode in (0, 1), result.stderr
    return result, json.loads((out / "results.json").read_text()), out
