"""The result of one simulation: results.json (docs/results.md) as attributes."""
from __future__ import annotations

from typing import Any, Optional


class Result:
    """One run. The main figures are attributes; ``to_dict()`` gives results.json whole.

    Attributes: ``complete``, ``ok`` (complete and the oracle held), ``failure_reason``,
    ``makespan`` (simulated seconds), ``reference_makespan`` and ``overhead`` (with
    ``run.reference``), ``failures``, ``checkpoints`` and ``nodes`` (lists of dicts),
    ``starpu`` (StarPU's counters), ``bytes_sent`` (by traffic kind, summed over nodes),
    ``wall_seconds``; ``trace`` (a pandas DataFrame, with ``run(..., trace=True)``); ``log`` (the
    event log's text, with ``run(..., log=...)``).
    """

    def __init__(self, results: dict, trace_events: Optional[list] = None, log: Optional[str] = None):
        self._results = results
        self._trace_events = trace_events
        self.log = log

    def to_dict(self) -> dict:
        """results.json's document."""
        return self._results

    def __getitem__(self, key: str) -> Any:
        return self._results[key]

    @property
    def complete(self) -> bool:
        return bool(self._results["complete"])

    @property
    def ok(self) -> bool:
        return self.complete and bool(self._results["oracle"]["ok"])

    @property
    def failure_reason(self) -> Optional[str]:
        return self._results["failure_reason"]

    @property
    def makespan(self) -> float:
        return float(self._results["makespan"])

    @property
    def reference_makespan(self) -> Optional[float]:
        reference = self._results.get("reference")
        return None if reference is None else float(reference["makespan"])

    @property
    def overhead(self) -> Optional[float]:
        """makespan / reference_makespan − 1 (with ``run.reference``)."""
        reference = self._results.get("reference")
        return None if reference is None else reference["overhead"]

    @property
    def failures(self) -> list:
        return self._results["failures"]

    @property
    def checkpoints(self) -> list:
        return self._results["checkpoints"]

    @property
    def nodes(self) -> list:
        return self._results["nodes"]

    @property
    def starpu(self) -> dict:
        return self._results["starpu"]

    @property
    def bytes_sent(self) -> dict:
        return self._results["bytes_sent"]

    @property
    def wall_seconds(self) -> float:
        return float(self._results["wall"]["simulation_seconds"])

    @property
    def trace(self):
        """The trace events (Chrome Trace Event format) as a pandas DataFrame, seconds in ``ts``
        and ``dur``; None unless the run was made with ``trace=True``."""
        if self._trace_events is None:
            return None
        import pandas as pd

        frame = pd.DataFrame(self._trace_events)
        for column in ("ts", "dur"):
            if column in frame:
                frame[column] = frame[column] / 1e6  # microseconds in the file
        return frame

    def __repr__(self) -> str:
        state = "ok" if self.ok else f"failed: {self.failure_reason}"
        return f"<ftsim.Result {self._results.get('name', '')!r} makespan={self.makespan:.6g} s, {state}>"
