"""ftsim from Python: simulate fault-tolerance protocols of task-based runtimes.

    import ftsim
    result = ftsim.run("configs/quickstart.json", **{"protocol.type": "buddy"})
    result.makespan, result.failures, result.to_dict()

Configs are a path, or a dict in the format of docs/configs.md. Overrides are keyword arguments
whose names are dotted keys ("protocol.type") or JSON pointers ("/platform/nodes"); pass them as
``**{"protocol.type": "buddy"}``. Bad configs raise :class:`ConfigError` with the message the CLI
prints (file and JSON pointer). Set-up: ``make build``, then ``PYTHONPATH=build/python
/usr/bin/python3`` (Debian's interpreter; see the README).
"""
from __future__ import annotations

from ftsim._config import ConfigError, ConfigLike, apply_overrides, config_source
from ftsim._graph import Graph, graph
from ftsim._result import Result
from ftsim._analyze import TraceError, analyze, read_trace
from ftsim import analysis, plots
from ftsim import _ftsim

__all__ = ["run", "graph", "volumes", "validate", "sweep", "analyze", "read_trace", "Result", "Graph", "ConfigError",
           "TraceError", "analysis", "plots"]


def run(config: ConfigLike, *, trace: bool = False, log: str | None = None, progress: bool = False,
        **overrides) -> Result:
    """Simulates ``config`` (a path or a dict) with SimGrid and returns its :class:`Result`.

    ``trace=True`` also records the trace (``Result.trace_events``); ``log`` writes the event log
    of these categories (e.g. ``"failure,protocol"``) and keeps it in ``Result.log``. The
    simulation releases the GIL.
    """
    import json
    import tempfile
    from pathlib import Path

    text, origin, is_file = config_source(apply_overrides(config, overrides))
    with tempfile.TemporaryDirectory(prefix="ftsim-") as tmp:
        trace_file = str(Path(tmp) / "trace.json") if trace else ""
        log_file = str(Path(tmp) / "events.log") if log else ""
        with ConfigError.translated():
            results = json.loads(_ftsim.run(text, origin, is_file, trace_file, log_file, log or "", progress))
        trace_events = json.loads(Path(trace_file).read_text())["traceEvents"] if trace else None
        log_text = Path(log_file).read_text() if log else None
    return Result(results, trace_events=trace_events, log=log_text)


def volumes(config: ConfigLike, **overrides) -> dict:
    """Analytic checkpoint volumes of every ``/checkpoints`` placement (``ftsim volumes --json``)."""
    import json

    text, origin, is_file = config_source(apply_overrides(config, overrides))
    with ConfigError.translated():
        return json.loads(_ftsim.volumes(text, origin, is_file))


def validate(config: ConfigLike, **overrides) -> None:
    """Loads ``config``; raises :class:`ConfigError` if it is bad (``ftsim validate``)."""
    text, origin, is_file = config_source(apply_overrides(config, overrides))
    with ConfigError.translated():
        _ftsim.validate(text, origin, is_file)


def sweep(config: ConfigLike, *, jobs: int = 1, **kwargs):
    """Runs a sweep config (``ftsim sweep``) and returns one row per point as a pandas DataFrame."""
    from ftsim._sweep import sweep as run_sweep

    return run_sweep(config, jobs=jobs, **kwargs)
