"""Recovery lines on traces (``ftsim analyze``, docs/analysis.md), from Python.

    import ftsim
    result = ftsim.analyze("run.trace.json", failed=[2], determinism="send")
    result["recovery_line"], result["rolled_back"], result["domino"], result["useless_checkpoints"]
    summary = ftsim.analyze("app/index.txt", each=True, determinism="send", checkpoints="periodic:100")
    summary["mean_rolled_back_percent"]

A trace is a path (an ftsim-trace JSON file or a SimGrid SMPI time-independent trace) or a dict
in the ftsim-trace format (docs/trace-format.md). Bad traces raise :class:`TraceError`, naming
the file and the process and event (or the line), as the CLI prints them.
"""
from __future__ import annotations

import contextlib
import json
import os
from typing import Iterable, Optional, Union

from ftsim import _ftsim

TraceLike = Union[str, "os.PathLike[str]", dict]


class TraceError(ValueError):
    """A bad trace: ``file``, ``where`` ("process 1, event 3", "line 7", a JSON pointer) and ``message``."""

    def __init__(self, file: str, where: str, message: str):
        self.file, self.where, self.message = file, where, message
        place = ": ".join(part for part in (file, where) if part)
        super().__init__(f"{place}: {message}" if place else message)

    @staticmethod
    @contextlib.contextmanager
    def translated():
        """Turns the C++ module's TraceError into this class."""
        try:
            yield
        except _ftsim.TraceError as e:
            raise TraceError(*e.args) from None


def _source(trace: TraceLike) -> tuple[str, str, bool]:
    """(text or path, origin, is_file) for the C++ module."""
    if isinstance(trace, dict):
        return json.dumps(trace, allow_nan=False), "<dict>", False
    if isinstance(trace, (str, os.PathLike)):
        path = os.fspath(trace)
        return path, path, True
    raise TypeError(f"a trace is a path or a dict in the ftsim-trace format, not {type(trace).__name__}")


def analyze(trace: TraceLike, failed: Union[int, Iterable[int], None] = None, *, determinism: str,
            each: bool = False, checkpoints: Optional[str] = None, logging: Optional[str] = None,
            format: str = "auto", z_cycles: bool = True) -> dict:
    """The recovery line of the failure of ``failed`` (a process or several) at the end of
    ``trace`` under ``determinism`` ("piecewise" or "send"), as ``ftsim analyze --json`` writes
    it: ``recovery_line`` (a checkpoint index per process, None if it keeps its state),
    ``rolled_back``, ``domino``, ``rollback_distance``, ``messages_to_replay``,
    ``useless_checkpoints``, ``z_cycles``, ... With ``each=True`` instead of ``failed``: every
    single failure in turn, ``mean_rolled_back_percent`` and ``per_failure``.

    ``checkpoints`` places checkpoints ("periodic:EVENTS", "random:SEED:RATE",
    "clusters:FILE"; required for SMPI traces), ``logging`` decides which messages are logged
    ("none", "all", "epochs"). The analysis releases the GIL.
    """
    if each == (failed is not None):
        raise ValueError("give failed=P (or a list of processes) or each=True")
    if failed is None:
        processes: list[int] = []
    elif isinstance(failed, int):
        processes = [failed]
    else:
        processes = [int(p) for p in failed]
    if any(p < 0 for p in processes):
        raise ValueError(f"failed: {processes}: process numbers are 0, 1, ...")
    source, origin, is_file = _source(trace)
    with TraceError.translated():
        text = _ftsim.analyze(source, origin, is_file, processes, each, determinism, format, checkpoints or "",
                              logging or "", z_cycles)
    return json.loads(text)


def read_trace(trace: TraceLike, *, checkpoints: Optional[str] = None, logging: Optional[str] = None,
               format: str = "auto") -> dict:
    """The trace as an ftsim-trace document (a dict): SMPI traces converted, checkpoints placed
    and messages logged as asked, every message checked. What the space-time diagram of
    ``python/examples/space_time.ipynb`` draws."""
    source, origin, is_file = _source(trace)
    with TraceError.translated():
        return json.loads(_ftsim.trace_json(source, origin, is_file, format, checkpoints or "", logging or ""))
