"""The example notebooks (python/examples/*.ipynb) run without error, with nbclient, and save
their figures."""
import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import BINARY, SOURCE_DIR

NOTEBOOKS = sorted((SOURCE_DIR / "python" / "examples").glob("*.ipynb"))
FIGURES = {"quickstart.ipynb": ["quickstart-protocols.png"],
           "lion2020.ipynb": ["lion2020-table1.png", "lion2020-fig6.png"],
           "optimal_period.ipynb": ["optimal-period.png"],
           "space_time.ipynb": ["space-time-domino.png", "space-time-smpi.png"],
           "besseron2006.ipynb": ["besseron2006-fig12.png"],
           "migration.ipynb": ["migration-recall.png"],
           "walkthrough.ipynb": ["walkthrough-timeline.png", "walkthrough-overhead.png", "walkthrough-split.png",
                                 "walkthrough-period.png"]}


def test_every_notebook_is_listed():
    assert {n.name for n in NOTEBOOKS} == set(FIGURES)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[n.name for n in NOTEBOOKS])
def test_notebook_runs(path, tmp_path, monkeypatch):
    monkeypatch.setenv("FTSIM_SOURCE_DIR", str(SOURCE_DIR.resolve()))
    monkeypatch.setenv("FTSIM_PYTHON_DIR", str(BINARY.resolve().parent / "python"))
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    monkeypatch.setenv("FTSIM_FIGURES", str(tmp_path / "figures"))
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    for figure in FIGURES[path.name]:
        assert (tmp_path / "figures" / figure).stat().st_size > 1000, figure
