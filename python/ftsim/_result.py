"""The result of one simulation: results.json (docs/results.md) as attributes and DataFrames."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional, Union

# The columns of the record tables, in the order of docs/results.md (a column the run adds that is
# not listed here comes after these); an empty table still has them.
FAILURE_COLUMNS = ["time", "node", "detected_at", "replaced_at", "recovered_at", "recovery_time", "restart_point",
                   "tasks_reexecuted", "work_lost_seconds", "processes_rolled_back", "messages_replayed",
                   "bytes_replayed"]
CHECKPOINT_COLUMNS = ["id", "process", "started", "saved", "committed", "bytes", "aborted"]
_FAILURE_TIMES = ["time", "detected_at", "replaced_at", "recovered_at", "recovery_time", "work_lost_seconds"]
_CHECKPOINT_TIMES = ["started", "saved", "committed"]
# Trace lanes (docs/results.md, trace.json): thread ids at and above this are not cores.
_FIRST_SERVICE_LANE = 10000


def _table(records: list, columns: list, float_columns: list):
    """A DataFrame of ``records`` with ``columns`` first (present even when there is no record)
    and times as floats (NaN for ``null``: a time that has not happened)."""
    import pandas as pd

    extra = [k for record in records for k in record if k not in columns]
    frame = pd.DataFrame.from_records(records, columns=columns + list(dict.fromkeys(extra)))
    for column in float_columns:
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(float)
    return frame


class Result:
    """One run (``ftsim.run``, or ``ftsim.load`` of an ``ftsim run`` output directory).

    The figures of results.json (docs/results.md) are attributes; ``to_dict()`` gives it whole and
    ``result["field"]`` reads one field of it.

    - outcome: ``name``, ``protocol``, ``seed``, ``complete``, ``ok`` (complete and the oracle
      held), ``failure_reason``, ``makespan`` (simulated seconds);
    - the overhead and its split (with ``"run": {"reference": true}``, else None):
      ``reference_makespan`` (protocol ``none``, no failure), ``protocol_makespan`` (this
      protocol, no failure), ``overhead`` (makespan / reference_makespan − 1: 0.25 is 25 %),
      ``overhead_checkpointing`` and ``overhead_failures`` (what checkpointing and the failures
      cost, adding up to ``overhead``); ``reference``: results.json's ``reference`` object;
    - tables (pandas DataFrames, one row per record): ``failures``, ``checkpoints`` and ``nodes``
      (nested objects flattened to dotted columns, e.g. ``bytes_sent.checkpoint``);
      ``checkpoint_duration``: the mean committed − started of the committed checkpoints (Daly's C
      under ``global`` and ``cck`` only: a ``buddy`` checkpoint does not block the application);
    - totals: ``starpu`` (StarPU's counters), ``bytes_sent`` and ``messages_sent`` (by traffic
      kind, summed over nodes), ``protocol_metrics`` (with ``protocol_metric_units``),
      ``wall_seconds``;
    - with ``run(..., trace=True)``: ``trace`` (the trace's events as a DataFrame, seconds) and
      ``trace_metadata`` (its processes and lanes); with ``run(..., log=...)``: ``log`` (text).
    """

    def __init__(self, results: dict, trace: Optional[dict] = None, log: Optional[str] = None):
        self._results = results
        self._trace_document = trace
        self._trace_frames = None
        self._log = log

    # ----- identity and outcome
    def to_dict(self) -> dict:
        """results.json's document."""
        return self._results

    def __getitem__(self, key: str) -> Any:
        return self._results[key]

    @property
    def name(self) -> str:
        return str(self._results.get("name", ""))

    @property
    def protocol(self) -> str:
        """The protocol's type: ``"none"``, ``"global"``, ``"lineage"``, ``"buddy"``..."""
        return str(self._results.get("protocol", ""))

    @property
    def seed(self) -> int:
        return int(self._results.get("seed", 1))

    @property
    def config(self) -> dict:
        """The config document as written (units as strings, defaults not filled in)."""
        return self._results.get("config", {})

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

    # ----- the overhead and its split
    @property
    def reference(self) -> Optional[dict]:
        """results.json's ``reference`` (``makespan``, ``overhead``, ``protocol_makespan``,
        ``checkpointing``, ``failures``, ...), or None without ``run.reference``."""
        return self._results.get("reference")

    def _reference_figure(self, key: str) -> Optional[float]:
        reference = self._results.get("reference")
        if reference is None or reference.get(key) is None:
            return None
        return float(reference[key])

    @property
    def reference_makespan(self) -> Optional[float]:
        """The failure-free makespan with protocol ``none`` (with ``run.reference``)."""
        return self._reference_figure("makespan")

    @property
    def protocol_makespan(self) -> Optional[float]:
        """The makespan of this protocol without the failures (same seed and checkpoint schedule)."""
        return self._reference_figure("protocol_makespan")

    @property
    def overhead(self) -> Optional[float]:
        """makespan / reference_makespan − 1 (a fraction: 0.25 is 25 %), with ``run.reference``."""
        return self._reference_figure("overhead")

    @property
    def overhead_checkpointing(self) -> Optional[float]:
        """(protocol_makespan − reference_makespan) / reference_makespan: what checkpointing costs
        without failures (a fraction)."""
        return self._reference_figure("checkpointing")

    @property
    def overhead_failures(self) -> Optional[float]:
        """(makespan − protocol_makespan) / reference_makespan: what the failures cost (a fraction).
        ``overhead_checkpointing + overhead_failures == overhead``."""
        return self._reference_figure("failures")

    # ----- tables
    @property
    def failures(self):
        """One row per failure (docs/results.md, failures): ``time``, ``node``, ``detected_at``,
        ``replaced_at``, ``recovered_at``, ``recovery_time`` (the failed node's span, seconds),
        ``restart_point``, ``tasks_reexecuted``, ``work_lost_seconds`` (core-seconds), ... NaN for
        a time that has not happened."""
        return _table(self._results["failures"], FAILURE_COLUMNS, _FAILURE_TIMES)

    @property
    def checkpoints(self):
        """One row per checkpoint attempt: ``id``, ``process`` (NaN for a checkpoint of the whole
        job, else the node that took it), ``started``, ``saved``, ``committed`` (NaN if aborted),
        ``bytes``, ``aborted``."""
        frame = _table(self._results["checkpoints"], CHECKPOINT_COLUMNS, _CHECKPOINT_TIMES)
        frame["process"] = frame["process"].astype("Int64") if frame["process"].notna().any() else \
            frame["process"].astype(float)
        return frame

    @property
    def nodes(self):
        """One row per node (rank), indexed by ``node``; nested objects flattened to dotted columns
        (``bytes_sent.checkpoint``, ``checkpoint_store.peak_bytes``, ``protocol_metrics.NAME``)."""
        import pandas as pd

        frame = pd.json_normalize(self._results["nodes"]) if self._results["nodes"] else pd.DataFrame()
        frame.index.name = "node"
        return frame

    @property
    def checkpoint_duration(self) -> Optional[float]:
        """The mean of committed − started over the committed checkpoints (seconds), or None without
        a committed checkpoint. The sweep rows' ``checkpoint_duration``. Daly's C under ``global`` and
        ``cck``, whose checkpoints block the application that long; not under ``buddy``, whose
        checkpoints run beside it, nor ``uncoordinated`` (one node's save)."""
        durations = [c["committed"] - c["started"] for c in self._results["checkpoints"]
                     if c.get("committed") is not None and c.get("started") is not None]
        return sum(durations) / len(durations) if durations else None

    # ----- totals
    @property
    def starpu(self) -> dict:
        return self._results["starpu"]

    @property
    def bytes_sent(self) -> dict:
        return self._results["bytes_sent"]

    @property
    def messages_sent(self) -> dict:
        return self._results["messages_sent"]

    @property
    def protocol_metrics(self) -> dict:
        """The protocol's own named metrics for the run (``{}`` when it declares none)."""
        return self._results.get("protocol_metrics", {})

    @property
    def protocol_metric_units(self) -> dict:
        return self._results.get("protocol_metric_units", {})

    @property
    def wall_seconds(self) -> float:
        return float(self._results["wall"]["simulation_seconds"])

    # ----- trace and log
    @property
    def log(self) -> Optional[str]:
        """The event log's text, with ``run(..., log="failure,protocol")`` (or loaded with its
        events.log); None otherwise."""
        return self._log

    @property
    def has_trace(self) -> bool:
        return self._trace_document is not None

    def _trace_tables(self):
        if self._trace_frames is None:
            import pandas as pd

            events = self._trace_document["traceEvents"]
            metadata = [e for e in events if e.get("ph") == "M"]
            processes = {e["pid"]: e["args"]["name"] for e in metadata if e["name"] == "process_name"}
            lanes = {(e["pid"], e["tid"]): e["args"]["name"] for e in metadata if e["name"] == "thread_name"}
            table = pd.DataFrame([{"pid": pid, "tid": tid, "process": processes.get(pid, ""), "lane": name,
                                   "core": tid < _FIRST_SERVICE_LANE} for (pid, tid), name in sorted(lanes.items())],
                                 columns=["pid", "tid", "process", "lane", "core"])
            table.attrs["display_time_unit"] = self._trace_document.get("displayTimeUnit")
            frame = pd.DataFrame([e for e in events if e.get("ph") != "M"])
            for column in ("ts", "dur"):
                if column in frame:
                    frame[column] = frame[column] / 1e6  # microseconds in the file
            if len(frame):
                frame["process"] = frame["pid"].map(processes)
                frame["lane"] = [lanes.get((p, t), "") for p, t in zip(frame["pid"], frame["tid"])]
            self._trace_frames = (frame, table)
        return self._trace_frames

    @property
    def trace(self):
        """The trace's events (docs/results.md, trace.json) without its metadata, as a DataFrame:
        ``ph``, ``name``, ``cat``, ``pid``, ``tid``, ``ts`` and ``dur`` in **seconds**, ``args``,
        and the ``process`` and ``lane`` names of ``trace_metadata``. None unless the run was made
        with ``trace=True`` (or loaded with its trace.json). The same DataFrame on every access."""
        return None if self._trace_document is None else self._trace_tables()[0]

    @property
    def trace_metadata(self):
        """The trace's processes and lanes, one row per lane: ``pid``, ``tid``, ``process`` (e.g.
        ``node 3``, ``coordinator``), ``lane`` (``core 0``, ``sends``, ``receives``, ``protocol``),
        ``core`` (whether the lane is a core's); ``.attrs["display_time_unit"]``. None without a
        trace."""
        return None if self._trace_document is None else self._trace_tables()[1]

    # ----- display
    def __repr__(self) -> str:
        state = "ok" if self.ok else f"failed: {self.failure_reason}" if self.failure_reason else \
            "oracle failed" if self.complete else "incomplete"
        # The CLI's summary formats: its unit rule for durations, one decimal for percentages.
        from ftsim import _ftsim

        parts = [f"{self.protocol}" if self.protocol else "", f"makespan {_ftsim.format_seconds(self.makespan)}"]
        if self.overhead is not None:
            overhead = f"overhead {100 * self.overhead:.1f}%"
            if self.overhead_checkpointing is not None and self.overhead_failures is not None:
                overhead += (f" (checkpointing {100 * self.overhead_checkpointing:.1f}%"
                             f" + failures {100 * self.overhead_failures:.1f}%)")
            parts.append(overhead)
        count = len(self._results["failures"])
        parts.append(f"{count} failure{'' if count == 1 else 's'}")
        parts.append(state)
        return f"<ftsim.Result {self.name!r}: " + ", ".join(p for p in parts if p) + ">"


def load(path: Union[str, Path]) -> Result:
    """The :class:`Result` of an ``ftsim run`` (or a sweep point): ``path`` is its output
    directory (``results.json``, and ``trace.json`` and ``events.log`` when present) or its
    results.json file."""
    path = Path(path)
    directory = path if path.is_dir() else path.parent
    results_file = directory / "results.json" if path.is_dir() else path
    if not results_file.exists():
        raise FileNotFoundError(f"{results_file}: no results.json (the output directory of `ftsim run`)")
    results = json.loads(results_file.read_text())
    trace_file, log_file = directory / "trace.json", directory / "events.log"
    trace = json.loads(trace_file.read_text()) if trace_file.exists() else None
    log = log_file.read_text() if log_file.exists() else None
    return Result(results, trace=trace, log=log)
