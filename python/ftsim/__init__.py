"""ftsim from Python: simulate fault-tolerance protocols of task-based runtimes.

    import ftsim
    result = ftsim.run("configs/quickstart.json", **{"protocol.type": "buddy"})
    result.makespan, result.overhead, result.failures        # seconds, a fraction, a DataFrame
    rows = ftsim.sweep("configs/sweeps/protocols.json", jobs=2)   # a DataFrame, one row per point
    ftsim.plots.overhead_split(rows)                              # checkpointing vs failures
    ftsim.estimate(path, samples=100)        # expected overhead under the failure law, 90% intervals
    ftsim.advise(path, mtbf="1d")            # which protocol and period, how sure (a DataFrame)
    ftsim.advise_levels(path)                # which of global's checkpoint levels, how often

Configs are a path, or a dict in the format of docs/configs.md. Overrides are keyword arguments
whose names are dotted keys ("protocol.type") or JSON pointers ("/platform/nodes"); pass them as
``**{"protocol.type": "buddy"}``. Bad configs raise :class:`ConfigError` with the message the CLI
prints (file and JSON pointer). Set-up: ``make build``, then ``PYTHONPATH=build/python
/usr/bin/python3`` (Debian's interpreter; see the README and docs/python.md).
"""
from __future__ import annotations

from ftsim._config import ConfigError, ConfigLike, apply_overrides, config_source
from ftsim._graph import Graph, graph
from ftsim._result import Result, load
from ftsim._analyze import TraceError, analyze, read_trace
from ftsim._sweep import sweep
from ftsim._advise import advise, advise_levels, estimate, fit_failures
from ftsim import analysis, plots
from ftsim import _ftsim

try:
    from ftsim._version import __version__
except ImportError:  # the package's sources outside a build (python/CMakeLists.txt writes _version.py)
    __version__ = "unknown"

__all__ = ["run", "load", "graph", "volumes", "validate", "sweep", "estimate", "advise", "advise_levels", "fit_failures", "analyze", "read_trace", "Result", "Graph",
           "ConfigError", "TraceError", "analysis", "plots", "__version__"]


def run(config: ConfigLike, *, trace: bool = False, log: str | None = None, progress: bool = False,
        **overrides) -> Result:
    """Simulates ``config`` (a path or a dict) with SimGrid and returns its :class:`Result`.

    ``trace=True`` also records the trace (``Result.trace``: its events as a DataFrame, and
    ``Result.trace_metadata``: its processes and lanes); ``log`` writes the event log of these
    categories (e.g. ``"failure,protocol"``) and keeps its text in ``Result.log``. ``progress``
    prints the simulation's progress on stderr. ``overrides`` set config keys, named by a dotted
    key or a JSON pointer: ``run(path, **{"protocol.type": "buddy", "run.reference": True})``.
    The simulation releases the GIL.
    """
    import json
    import tempfile
    from pathlib import Path

    config = apply_overrides(config, overrides)
    text, origin, is_file = config_source(config)
    with tempfile.TemporaryDirectory(prefix="ftsim-") as tmp:
        trace_file = str(Path(tmp) / "trace.json") if trace else ""
        log_file = str(Path(tmp) / "events.log") if log else ""
        with ConfigError.translated(config):
            results = json.loads(_ftsim.run(text, origin, is_file, trace_file, log_file, log or "", progress))
        trace_document = json.loads(Path(trace_file).read_text()) if trace else None
        log_text = Path(log_file).read_text() if log else None
    return Result(results, trace=trace_document, log=log_text)


def volumes(config: ConfigLike, **overrides) -> dict:
    """Analytic checkpoint volumes of every ``/checkpoints`` placement (``ftsim volumes --json``)."""
    import json

    config = apply_overrides(config, overrides)
    text, origin, is_file = config_source(config)
    with ConfigError.translated(config):
        return json.loads(_ftsim.volumes(text, origin, is_file))


def validate(config: ConfigLike, **overrides) -> None:
    """Loads ``config``; raises :class:`ConfigError` if it is bad (``ftsim validate``)."""
    config = apply_overrides(config, overrides)
    text, origin, is_file = config_source(config)
    with ConfigError.translated(config):
        _ftsim.validate(text, origin, is_file)
