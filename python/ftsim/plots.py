"""Figures for a paper from ftsim's results (matplotlib).

Every function draws on ``ax`` (a new figure if None), returns the axes, and with ``path=...``
saves the figure too (:func:`save`: PDF, SVG or PNG by the file's suffix). The ones that take a
``frame`` draw the rows of :func:`ftsim.sweep` as they come, with their defaults: rows that are
not ``ok`` are left out (with a warning), the rows of one bar or point (e.g. one per seed) are
averaged and drawn with their 95 % confidence interval (Student's t, on a log scale for quantities
with a floor, so that it stays in their range: an overhead above −100 %, a time, size or count above
0; :func:`ftsim._stats.mean_interval`), the title says how many runs each point averages and a
point of fewer than 3 runs warns, overheads are in % and every axis says its unit. A column that a plot needs and the frame lacks raises a ``KeyError``
that names it.

- :func:`protocol_bars`: a metric per protocol and application (grouped bars);
- :func:`overhead_split`: the overhead split into checkpointing and failures (stacked bars);
- :func:`lines`, :func:`overhead_vs_checkpoints`: a metric against a varied quantity;
- :func:`makespan_vs_period`: makespan against the checkpoint period, Daly's model and the
  Young / Daly / exact optima;
- :func:`node_timeline`: one run, node by node: tasks (or their density), checkpoints,
  failures, recoveries, the makespan; readable at 1,000 nodes;
- :func:`checkpoint_gantt`: one run's checkpoints, failures, recoveries and makespan;
- :func:`space_time`: the space-time diagram of a trace with its recovery line;
- :func:`advice`: :func:`ftsim.advise`'s candidates: overhead against period per protocol, with
  their 90 % bands and each protocol's recommended period.
"""
from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

from ftsim import analysis
from ftsim._stats import mean_and_ci

__all__ = ["protocol_bars", "overhead_split", "lines", "overhead_vs_checkpoints", "makespan_vs_period",
           "node_timeline", "checkpoint_gantt", "space_time", "advice", "save", "label", "PROTOCOL_COLORS"]

# One colour per protocol in every figure.
PROTOCOL_COLORS = {"none": "tab:gray", "global": "tab:blue", "lineage": "tab:green", "buddy": "tab:orange"}
_OTHER_COLORS = ["tab:purple", "tab:brown", "tab:pink", "tab:olive", "tab:cyan", "tab:red"]
FAILURE_COLOR = "tab:red"

# Column → (words, unit, factor): what axes, legends and titles say for a column of the sweep rows.
_COLUMNS = {
    "overhead": ("overhead", "%", 100.0),
    "overhead_checkpointing": ("checkpointing overhead", "%", 100.0),
    "overhead_failures": ("overhead of the failures", "%", 100.0),
    "makespan": ("makespan", "s", 1.0),
    "reference_makespan": ("failure-free makespan", "s", 1.0),
    "protocol_makespan": ("makespan without failures", "s", 1.0),
    "checkpoint_duration": ("checkpoint duration", "s", 1.0),
    "recovery_time": ("recovery time of the failed node", "s", 1.0),
    "work_lost_seconds": ("work lost", "core·s", 1.0),
    "busy_seconds": ("busy time", "core·s", 1.0),
    "lost_seconds": ("cancelled work", "core·s", 1.0),
    "wall_seconds": ("wall-clock time", "s", 1.0),
    "wall.simulation_seconds": ("wall-clock time of the simulation", "s", 1.0),
    "checkpoint_count": ("committed checkpoints", "", 1.0),
    "checkpoint_aborted_count": ("aborted checkpoints", "", 1.0),
    "checkpoint_bytes": ("checkpoint volume", "B", 1.0),
    "failure_count": ("failures", "", 1.0),
    "recovered_count": ("recovered failures", "", 1.0),
    "tasks_reexecuted": ("tasks re-executed", "", 1.0),
    "executions": ("task executions", "", 1.0),
    "reexecutions": ("re-executions", "", 1.0),
    "processes_rolled_back": ("processes rolled back", "", 1.0),
    "peak_memory_bytes": ("peak memory of a node", "B", 1.0),
    "protocol.type": ("protocol", "", 1.0),
    "application.type": ("application", "", 1.0),
    "protocol.period_s": ("checkpoint period", "s", 1.0),
    "protocol.period": ("checkpoint period", "s", 1.0),
    "checkpoints.count": ("checkpoints", "", 1.0),
    "platform.nodes": ("nodes", "", 1.0),
    "failures.mtbf_s": ("MTBF of a node", "s", 1.0),
    "seed": ("seed", "", 1.0),
}
_BYTE_UNITS = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1.0, "B")]
# Overheads that are makespan / reference − 1 (never −100 % or below: a makespan is positive).
_OVERHEADS = ("overhead", "overhead_checkpointing", "overhead_total")
# Counts: never negative.
_COUNTS = ("checkpoint_count", "checkpoint_aborted_count", "failure_count", "recovered_count", "tasks_reexecuted",
           "executions", "reexecutions", "processes_rolled_back", "events", "restarts")
# Fewer runs than this behind a point: its interval is missing or says little (a warning).
_FEW_RUNS = 3


# --------------------------------------------------------------------------------------------
# Labels, units, columns


def _describe(column: str, values=None) -> tuple[str, str, float]:
    """(words, unit, factor) of a column: the value drawn is value × factor, in unit."""
    if column in _COLUMNS:
        words, unit, factor = _COLUMNS[column]
    else:
        words, unit, factor = column, "", 1.0
        for suffix, suffix_unit in (("_seconds", "s"), ("_s", "s"), ("_bytes", "B"), ("_Bps", "B/s")):
            if column.endswith(suffix):
                words, unit = column[: -len(suffix)], suffix_unit
                break
        else:
            if column.startswith(("bytes_sent.", "log.")) or column.endswith(("_SIZE", "bytes")):
                unit = "B"
        if column.startswith("bytes_sent."):
            words = f"{column.split('.', 1)[1]} traffic"
        elif column.startswith("messages_sent."):
            words = f"{column.split('.', 1)[1]} messages"
        words = words.replace("_", " ").replace(".", " ")
    if unit in ("B", "B/s") and values is not None:
        largest = max((abs(float(v)) for v in values if v == v), default=0.0)
        for size, name in _BYTE_UNITS:
            if largest >= size or size == 1.0:
                return words, name + unit[1:], 1.0 / size
    return words, unit, factor


def label(column: str, values=None) -> str:
    """The axis label of a column: its words and unit, e.g. ``overhead (%)``, ``makespan (s)``,
    ``checkpoint traffic (MB)`` (bytes scaled to fit ``values``)."""
    words, unit, _ = _describe(column, values)
    return f"{words} ({unit})" if unit else words


def _words(column: str) -> str:
    return _describe(column)[0]


def _floor(column: str) -> Optional[float]:
    """The bound a column's values always stay above, for intervals that stay in its range: −1 for an
    overhead (makespan / reference − 1), 0 for a time, a size, a rate or a count, None if unknown
    (``overhead_failures`` can be negative: a failure can make a schedule luckier)."""
    if column in _OVERHEADS:
        return -1.0
    if column in _COUNTS or _describe(column)[1] in ("s", "B", "B/s", "core·s"):
        return 0.0
    return None


def _error_bars(stats, factor: float) -> list[list[float]]:
    """matplotlib's asymmetric ``yerr`` of the rows of :func:`mean_and_ci`: [below, above], 0 where
    a point has no interval (one run)."""
    below = [(m - low) * factor if low == low else 0.0 for m, low in zip(stats["mean"], stats["low"])]
    above = [(high - m) * factor if high == high else 0.0 for m, high in zip(stats["mean"], stats["high"])]
    return [below, above]


def _warn_few_runs(stats, what: str) -> None:
    """Warns when a point averages fewer than 3 runs: no interval with one, a very wide one with two."""
    few = stats[stats["n"] < _FEW_RUNS]
    if len(few):
        counts = sorted({int(n) for n in few["n"]})
        warnings.warn(f"{what}: {len(few)} of {len(stats)} points average fewer than {_FEW_RUNS} runs "
                      f"(n = {', '.join(map(str, counts))}): "
                      f"{'no interval from one run' if counts == [1] else 'their 95% intervals say little'}; "
                      f'run more seeds ("sweep": {{"seeds": {_FEW_RUNS}}} or more)', stacklevel=3)


def _title(text: str) -> str:
    return text[:1].upper() + text[1:]


class MissingColumn(KeyError):
    """A column that a plot needs and the frame lacks (a ``KeyError`` whose message reads as is)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _require(frame, columns: Iterable[str], what: str, hint: str = "") -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        names = ", ".join(repr(c) for c in missing)
        raise MissingColumn(f"{what} needs the column{'s' if len(missing) > 1 else ''} {names}, which this frame lacks"
                       f"{'; ' + hint if hint else ''} (its columns: {', '.join(map(str, frame.columns))})")


def _default_column(frame, given: Optional[str], candidates: Sequence[str]) -> Optional[str]:
    """``given`` (which must exist: checked by the caller), else the first candidate present."""
    if given is not None:
        return given
    return next((c for c in candidates if c in frame.columns), None)


def _ok_rows(frame, what: str):
    """The rows with status ok (a failed run's makespan is when it stopped: not a result)."""
    if "status" not in frame.columns:
        return frame
    ok = frame[frame["status"] == "ok"]
    if len(ok) < len(frame):
        bad = frame[frame["status"] != "ok"]
        reasons = "; ".join(sorted({str(r) for r in bad.get("reason", bad["status"])}))[:300]
        warnings.warn(f"{what}: {len(bad)} of {len(frame)} rows are not ok and are left out ({reasons})",
                      stacklevel=3)
    if len(ok) == 0:
        raise ValueError(f"{what}: no row has status ok")
    return ok


def _varied_columns(frame) -> list[str]:
    """The varied columns of sweep rows: those between ``id`` and ``status``."""
    columns = list(frame.columns)
    if "id" in columns and "status" in columns and columns.index("id") < columns.index("status"):
        return columns[columns.index("id") + 1: columns.index("status")]
    return []


def _warn_mixed(frame, keys: list[str], what: str) -> None:
    """Warns when the rows averaged together differ in a varied column other than the seed."""
    varied = [c for c in _varied_columns(frame) if c not in keys and c != "seed"]
    mixed = []
    for column in varied:
        values = _hashable(frame[column])  # lists (e.g. application.tiles [4, 4]) are not hashable
        counts = values.groupby([frame[k] for k in keys], dropna=False).nunique(dropna=False) if keys else \
            values.nunique(dropna=False)
        if (counts > 1).any() if keys else counts > 1:
            mixed.append(column)
    mixed = [c for c in mixed if not any(c == m + "_s" or c.startswith(m + "_") for m in mixed if m != c)]
    if mixed:
        warnings.warn(f"{what}: each mean is taken over rows that differ in {', '.join(mixed)} (not only the seed); "
                      f"select rows or name them as group/by/hue", stacklevel=3)


_SI_SUFFIXES = ("_s", "_bytes", "_Bps")


def _hashable(values):
    """A column whose lists and dicts (e.g. application.tiles [4, 4]) are their text."""
    if values.dtype == object:
        return values.map(lambda v: repr(v) if isinstance(v, (list, dict)) else v)
    return values


def _protocol_variants(frame, exclude: Sequence[Optional[str]] = ()):
    """``(frame, column)``: the column that names each row's protocol, by default. Sweep rows that
    vary ``protocol.type`` and, for one type, other protocol options (``protocol.at``,
    ``protocol.flush``...) get a column ``protocol``: the type, followed by the options that tell
    its variants apart (``global (at cuts)``, ``global (at period)``), so that variants are not
    averaged together; else ``protocol.type`` (or ``protocol``), or None. ``exclude``: columns
    drawn otherwise (an x axis: ``protocol.period_s`` and ``protocol.period``)."""
    if "protocol.type" not in frame.columns:
        return frame, ("protocol" if "protocol" in frame.columns else None)
    if "protocol" in frame.columns:
        return frame, "protocol.type"
    excluded = {c for c in exclude if c}
    excluded |= {c[: -len(suffix)] for c in excluded for suffix in _SI_SUFFIXES if c.endswith(suffix)}
    varied = _varied_columns(frame)
    options = [c for c in varied if c.startswith("protocol.") and c != "protocol.type" and c not in excluded
               and not any(c.endswith(suffix) and c[: -len(suffix)] in varied for suffix in _SI_SUFFIXES)]
    labels = frame["protocol.type"].astype(str)
    renamed = False
    for kind, part in frame.groupby("protocol.type", sort=False):
        differing = [c for c in options if _hashable(part[c]).nunique(dropna=False) > 1]
        if not differing:
            continue
        renamed = True
        for index, row in part.iterrows():
            details = ", ".join(f"{c.split('.', 1)[1]} {row[c]}" for c in differing if not _missing(row[c]))
            labels.loc[index] = f"{kind} ({details})" if details else str(kind)
    if not renamed:
        return frame, "protocol.type"
    return frame.assign(protocol=labels), "protocol"


def _colors(kinds: Sequence, column: Optional[str]) -> dict:
    """A colour per value: the protocol's own (PROTOCOL_COLORS), else matplotlib's cycle."""
    if column is None:
        return {kind: "tab:blue" for kind in kinds}
    if column.startswith("protocol"):
        others = iter(_OTHER_COLORS * 10)
        return {kind: PROTOCOL_COLORS.get(str(kind)) or next(others) for kind in kinds}
    import matplotlib.pyplot as plt

    cycle = plt.rcParams["axes.prop_cycle"].by_key().get("color", _OTHER_COLORS)
    return {kind: cycle[i % len(cycle)] for i, kind in enumerate(kinds)}


def _select(stats, where: dict):
    """The rows of ``stats`` whose columns equal ``where``'s values (None keys ignored)."""
    mask = [True] * len(stats)
    for column, value in where.items():
        if column is not None:
            mask = mask & (stats[column] == value).to_numpy()
    return stats[mask]


def _missing(value) -> bool:
    import pandas as pd

    return value is None or bool(pd.isna(value))


def _numeric(frame, column: str, what: str) -> None:
    import pandas as pd

    if not pd.api.types.is_numeric_dtype(frame[column]):
        si = [c for c in frame.columns if c.startswith(column + "_")]
        raise TypeError(f"{what}: the column {column!r} is not numeric"
                        + (f"; use its SI column {si[0]!r}" if si else ""))


def _tag(container, gid: str):
    """Sets ``gid`` on every artist of ``container`` (bars, error bars): SVG ids, and what
    :func:`gid_of` reads back."""
    for artist in container.get_children():
        artist.set_gid(gid)
    return container


def gid_of(container) -> Optional[str]:
    """The gid given to a container's artists (by this module), e.g. ``"bars:buddy"``."""
    return next((a.get_gid() for a in container.get_children() if a.get_gid()), None)


def _axes(ax, figsize=(7, 4)):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _mean_note(stats) -> str:
    """How many runs each point averages (n), for the title: ``mean of 3 runs, 95% CI`` or ``one run
    per point, no interval``."""
    most, fewest = int(stats["n"].max()), int(stats["n"].min())
    if most < 2:
        return "one run per point, no interval"
    runs = f"{fewest}" if fewest == most else f"{fewest}–{most}"
    return f"mean of {runs} runs, 95% CI"


def save(figure, path: Union[str, Path], *, formats: Optional[Sequence[str]] = None, dpi: int = 300,
         **savefig) -> list[Path]:
    """Saves ``figure`` (a Figure, or an Axes of it) to ``path``: PDF, SVG or PNG by its suffix;
    with ``formats`` (e.g. ``("pdf", "png")``), one file per format, ``path`` with that suffix.
    Creates the folder; returns the files written. ``dpi`` applies to PNG."""
    figure = getattr(figure, "figure", figure) if not hasattr(figure, "savefig") else figure
    path = Path(path)
    suffixes = [f".{f.lstrip('.').lower()}" for f in formats] if formats else [path.suffix.lower()]
    written = []
    for suffix in suffixes:
        if suffix not in (".pdf", ".svg", ".png"):
            raise ValueError(f"save: {path}: expected a .pdf, .svg or .png file (or formats=...), got {suffix or 'no suffix'!r}")
        target = path.with_suffix(suffix) if formats else path
        target.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(target, dpi=dpi, bbox_inches="tight", **savefig)
        written.append(target)
    return written


def _finish(ax, path):
    if path is not None:
        save(ax.figure, path)
    return ax


# --------------------------------------------------------------------------------------------
# Sweep rows: bars and lines


def _label_groups(ax, groups: list, group: Optional[str], kinds: list, by: Optional[str], width: float) -> None:
    """The x axis of grouped bars: a tick per group, named, and the group column's words; with one
    group and no group column (e.g. rows of one application), a tick per bar, named by ``by``; with
    neither, one tick: "all runs"."""
    if group is None and by is not None:
        ax.set_xticks([(i - (len(kinds) - 1) / 2) * width for i in range(len(kinds))], [str(k) for k in kinds])
        ax.set_xlabel(_words(by))
        return
    ax.set_xticks(range(len(groups)), [str(g) for g in groups] if group else ["all runs"])
    if group:
        ax.set_xlabel(_words(group))


def protocol_bars(frame, value: str = "overhead", group: Optional[str] = None, by: Optional[str] = None, ax=None,
                  title: Optional[str] = None, ylabel: Optional[str] = None, level: float = 0.95,
                  path: Optional[Union[str, Path]] = None):
    """Grouped bars of the column ``value`` of ``frame`` (the rows of :func:`ftsim.sweep`): one
    group per ``group`` (default ``application.type``), one bar per ``by`` (default: the
    protocol, ``protocol.type`` with the options that tell its variants apart), each the mean of its rows (e.g. its seeds) with the ``level`` confidence
    interval as an error bar. Overheads are drawn in %."""
    import pandas as pd

    _require(frame, [value] + [c for c in (group, by) if c is not None], "protocol_bars")
    group = _default_column(frame, group, ("application.type", "application"))
    if by is None:
        frame, by = _protocol_variants(frame, exclude=[group])
    rows = _ok_rows(frame, "protocol_bars")
    keys = [c for c in (group, by) if c is not None]
    _warn_mixed(rows, keys, "protocol_bars")
    stats = mean_and_ci(rows, keys, value, level, _floor(value))
    _warn_few_runs(stats, "protocol_bars")
    words, unit, factor = _describe(value, rows[value])
    ax = _axes(ax)
    groups = list(dict.fromkeys(stats[group])) if group else [None]
    kinds = list(dict.fromkeys(stats[by])) if by else [None]
    colors = _colors(kinds, by)
    width = 0.8 / max(len(kinds), 1)
    several = stats["n"].max() >= 2
    for i, kind in enumerate(kinds):
        xs, picked = [], []
        for x, g in enumerate(groups):
            row = _select(stats, {group: g, by: kind})
            if len(row) == 0:
                continue
            xs.append(x + (i - (len(kinds) - 1) / 2) * width)
            picked.append(row)
        picked = pd.concat(picked) if picked else stats.iloc[:0]
        bars = ax.bar(xs, picked["mean"] * factor, width=width * 0.95, color=colors[kind],
                      label=None if kind is None else str(kind), yerr=_error_bars(picked, factor) if several else None,
                      capsize=3 if several else 0, error_kw={"elinewidth": 1, "ecolor": "black"})
        _tag(bars, f"bars:{kind}")
    _label_groups(ax, groups, group, kinds, by, width)
    ax.set_ylabel(ylabel or (f"{words} ({unit})" if unit else words))
    ax.axhline(0, color="black", linewidth=0.6)
    if by:  # beside the axes: never over a bar or its error bar
        ax.legend(title=_words(by), frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    if title is None:
        parts = " and ".join(_words(c) for c in (by, group) if c)
        title = _title(words) + (f" by {parts}" if parts else "")
        note = _mean_note(stats)
        title += f"\n({note})" if note else ""
    ax.set_title(title)
    return _finish(ax, path)


def overhead_split(frame, group: Optional[str] = None, by: Optional[str] = None, ax=None,
                   title: Optional[str] = None, level: float = 0.95, path: Optional[Union[str, Path]] = None):
    """Stacked bars of the overhead split, from sweep rows made with ``"run": {"reference":
    true}``: for each ``by`` (default: the protocol, as in :func:`protocol_bars`) in each ``group`` (default
    ``application.type``), what checkpointing costs without failures (``overhead_checkpointing``,
    solid) under what the failures cost (``overhead_failures``, hatched), in % of the failure-free
    makespan; the bar's top is the total ``overhead``. Means over the rows of a bar (e.g. its
    seeds), with the ``level`` confidence interval of each part."""
    hint = 'the split needs "run": {"reference": true} in the sweep config (docs/results.md, reference)'
    _require(frame, ["overhead_checkpointing", "overhead_failures"] + [c for c in (group, by) if c is not None],
             "overhead_split", hint)
    group = _default_column(frame, group, ("application.type", "application"))
    if by is None:
        frame, by = _protocol_variants(frame, exclude=[group])
    rows = _ok_rows(frame, "overhead_split")
    rows = rows.assign(overhead_total=rows["overhead_checkpointing"] + rows["overhead_failures"])
    keys = [c for c in (group, by) if c is not None]
    _warn_mixed(rows, keys, "overhead_split")
    parts = {name: mean_and_ci(rows, keys, name, level, _floor(name)) for name in
             ("overhead_checkpointing", "overhead_failures", "overhead_total")}
    ax = _axes(ax)
    stats = parts["overhead_total"]
    _warn_few_runs(stats, "overhead_split")
    groups = list(dict.fromkeys(stats[group])) if group else [None]
    kinds = list(dict.fromkeys(stats[by])) if by else [None]
    colors = _colors(kinds, by)
    width = 0.8 / max(len(kinds), 1)
    several = stats["n"].max() >= 2

    def pick(name, g, kind):
        """(mean, [[below], [above]]) of one part of one bar, in %."""
        row = _select(parts[name], {group: g, by: kind})
        if len(row) == 0:
            return None
        return 100 * float(row["mean"].iloc[0]), _error_bars(row, 100.0)

    for i, kind in enumerate(kinds):
        for x, g in enumerate(groups):
            checkpointing, failures, total = (pick(n, g, kind) for n in
                                              ("overhead_checkpointing", "overhead_failures", "overhead_total"))
            if checkpointing is None:
                continue
            position = x + (i - (len(kinds) - 1) / 2) * width
            color = colors[kind]
            bottom = ax.bar(position, checkpointing[0], width=width * 0.95, color=color, edgecolor="black",
                            linewidth=0.6)
            _tag(bottom, f"checkpointing:{kind}:{g}")
            top = ax.bar(position, failures[0], bottom=checkpointing[0], width=width * 0.95, color=color, alpha=0.45,
                         hatch="///", edgecolor="black", linewidth=0.6)
            _tag(top, f"failures:{kind}:{g}")
            if several:
                _tag(ax.errorbar([position - width * 0.15], [checkpointing[0]], yerr=checkpointing[1], fmt="none",
                                 ecolor="black", elinewidth=1, capsize=2), "ci:checkpointing")
                _tag(ax.errorbar([position + width * 0.15], [total[0]], yerr=total[1], fmt="none", ecolor="black",
                                 elinewidth=1, capsize=2), "ci:total")
    _label_groups(ax, groups, group, kinds, by, width)
    ax.set_ylabel("overhead (% of the failure-free makespan)")
    ax.axhline(0, color="black", linewidth=0.6)
    from matplotlib.patches import Patch

    if by:
        first = ax.legend(handles=[Patch(facecolor=colors[k], edgecolor="black", label=str(k)) for k in kinds],
                          title=_words(by), loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        ax.add_artist(first)
    ax.legend(handles=[Patch(facecolor="lightgray", edgecolor="black", label="checkpointing"),
                       Patch(facecolor="lightgray", edgecolor="black", hatch="///", alpha=0.6, label="failures")],
              title="overhead", loc="lower left", bbox_to_anchor=(1.01, 0.0), frameon=False)
    if title is None:
        note = _mean_note(stats)
        where = " and ".join(_words(c) for c in (by, group) if c)
        title = "Overhead: checkpointing and failures" + (f" by {where}" if where else "") + (f"\n({note})" if note else "")
    ax.set_title(title)
    return _finish(ax, path)


def lines(frame, x: str, y: str = "overhead", hue: Optional[str] = None, ax=None, title: Optional[str] = None,
          xlabel: Optional[str] = None, ylabel: Optional[str] = None, level: float = 0.95, logx: bool = False,
          label: Optional[str] = None, path: Optional[Union[str, Path]] = None):
    """The column ``y`` against the column ``x`` of ``frame`` (sweep rows), one line per value of
    ``hue`` (default: the protocol, as in :func:`protocol_bars`, when it takes several values): at each ``x`` the mean of
    the rows (e.g. the seeds) with its ``level`` confidence interval as an error bar. ``label``:
    the legend entry of the line when there is no ``hue``."""
    _require(frame, [x, y] + ([hue] if hue else []), "lines")
    _numeric(frame, x, "lines")
    _numeric(frame, y, "lines")
    if hue is None:
        frame, hue = _protocol_variants(frame, exclude=[x])
        if hue is not None and _hashable(frame[hue]).nunique() < 2:
            hue = None
    rows = _ok_rows(frame, "lines")
    keys = ([hue] if hue else []) + [x]
    _warn_mixed(rows, keys, "lines")
    stats = mean_and_ci(rows, keys, y, level, _floor(y))
    _warn_few_runs(stats, "lines")
    words, unit, factor = _describe(y, rows[y])
    xwords, xunit, xfactor = _describe(x, rows[x])
    ax = _axes(ax)
    kinds = list(dict.fromkeys(stats[hue])) if hue else [None]
    colors = _colors(kinds, hue)
    several = stats["n"].max() >= 2
    for kind in kinds:
        part = stats[stats[hue] == kind] if hue else stats
        part = part.sort_values(x)
        errors = _error_bars(part, factor)
        _tag(ax.errorbar(part[x] * xfactor, part["mean"] * factor, yerr=errors if several else None, marker="o",
                         capsize=3, color=colors[kind], label=label if kind is None else str(kind)), f"line:{kind}")
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel or (f"{xwords} ({xunit})" if xunit else xwords))
    ax.set_ylabel(ylabel or (f"{words} ({unit})" if unit else words))
    if hue or label:
        ax.legend(title=_words(hue) if hue else None, frameon=False)
    if title is None:
        note = _mean_note(stats)
        title = f"{_title(words)} against the {xwords}" + (f"\n({note})" if note else "")
    ax.set_title(title)
    return _finish(ax, path)


def overhead_vs_checkpoints(frame, y: str = "overhead", x: Optional[str] = None, hue: Optional[str] = None, ax=None,
                            title: Optional[str] = None, ylabel: Optional[str] = None, label: Optional[str] = None,
                            path: Optional[Union[str, Path]] = None):
    """The overhead (or ``y``) against the number of checkpoints: :func:`lines` with ``x`` the
    varied ``checkpoints.count`` if the frame has it, else the committed ``checkpoint_count``."""
    x = _default_column(frame, x, ("checkpoints.count", "checkpoint_count"))
    if x is None:
        _require(frame, ["checkpoint_count"], "overhead_vs_checkpoints")
    return lines(frame, x, y, hue=hue, ax=ax, ylabel=ylabel, label=label, path=path,
                 title=title or f"{_title(_words(y))} against the number of checkpoints")


# --------------------------------------------------------------------------------------------
# The checkpoint period


def _label_box(text, renderer):
    """The window extent of a text's box (its bbox patch, padding included), as drawn."""
    text.update_bbox_position_size(renderer)
    patch = text.get_bbox_patch()
    return patch.get_window_extent(renderer) if patch is not None else text.get_window_extent(renderer)


def _spread_labels(ax, texts: list, gap: float = 2.0) -> None:
    """Stacks the text boxes ``texts`` (placed at the top of ``ax``, y in axes coordinates) in
    rows: each, from left to right, goes down to the first row where its box overlaps none placed
    before (``gap`` pixels apart). A label whose box would leave the axes on the right is drawn to
    the left of its line."""
    if not texts:
        return
    for text in texts:
        text.set_in_layout(False)  # moving them must not move the axes
    figure = ax.figure
    figure.draw_without_rendering()  # lay the figure out: the boxes' final sizes and places
    get_renderer = getattr(figure, "_get_renderer", None) or figure.canvas.get_renderer
    renderer = get_renderer()
    right = ax.get_window_extent(renderer).x1
    for text in texts:
        if _label_box(text, renderer).x1 > right:
            text.set_horizontalalignment("right")
            text.set_text(text.get_text().strip() + " ")
    boxes = {id(t): _label_box(t, renderer) for t in texts}
    row_height = max(b.height for b in boxes.values()) + gap
    axes_height = ax.get_window_extent(renderer).height
    placed = []
    for text in sorted(texts, key=lambda t: boxes[id(t)].x0):
        box = boxes[id(text)]
        row = 0
        while any(box.translated(0, -row * row_height).overlaps(other) for other in placed):
            row += 1
        moved = box.translated(0, -row * row_height)
        placed.append(moved.padded(gap / 2))
        x, y = text.get_position()
        text.set_y(y - row * row_height / axes_height)


# Daly's C is the time one checkpoint blocks the application. The protocols whose checkpoints stop
# every node from the request to the commit (global; cck, whose nodes resume at their CONT, just before
# it): there the rows' checkpoint_duration (start → commit) is C. The others, and why not.
_BLOCKING_CHECKPOINTS = ("global", "cck")
_NO_BLOCKING_COST = {
    "buddy": "its checkpoints are asynchronous: checkpoint_duration is the span from a checkpoint's start to its "
             "commit while the application runs on, not the time a checkpoint blocks it",
    "uncoordinated": "each node checkpoints on its own schedule: checkpoint_duration is one node's save, and Daly's "
                     "model is that of coordinated checkpoints",
    "none": "it takes no checkpoint",
    "lineage": "it takes no checkpoint",
}


def _checkpoint_cost(rows) -> float:
    """Daly's C from the rows: the mean ``checkpoint_duration`` when their protocol blocks the
    application for that span (``_BLOCKING_CHECKPOINTS``); a ValueError that says why otherwise."""
    _require(rows, ["checkpoint_duration"], "makespan_vs_period", "or give checkpoint= (C, seconds)")
    advice = "give checkpoint= (C, seconds: the time one checkpoint blocks the application)"
    if "protocol.type" in rows.columns:
        kinds = list(dict.fromkeys(str(k) for k in rows["protocol.type"].dropna()))
        for kind in kinds:
            if kind not in _BLOCKING_CHECKPOINTS:
                reason = _NO_BLOCKING_COST.get(kind, "its checkpoints are not known to block the application")
                raise ValueError(f"makespan_vs_period: the rows' checkpoint_duration is not Daly's C under {kind}: "
                                 f"{reason}; {advice}")
        if len(kinds) > 1:
            raise ValueError(f"makespan_vs_period: rows of {' and '.join(kinds)}, whose checkpoints cost differently, "
                             f"and Daly's model takes one C: select one protocol's rows or {advice}")
    checkpoint = float(rows["checkpoint_duration"].mean())
    if checkpoint != checkpoint:
        raise ValueError(f"makespan_vs_period: no row has a committed checkpoint (checkpoint_duration); {advice}")
    return checkpoint


def makespan_vs_period(frame, mtbf: float, *, checkpoint: Optional[float] = None, restart: float = 0.0,
                       work: Optional[float] = None, x: Optional[str] = None, y: str = "makespan",
                       hue: Optional[str] = None, model: bool = True, points: int = 200, ax=None,
                       title: Optional[str] = None, level: float = 0.95, path: Optional[Union[str, Path]] = None):
    """Makespan against the checkpoint period, from sweep rows varying the period (``x``, default
    ``protocol.period_s``, seconds): the simulation's mean per period with its ``level``
    confidence interval, Daly's complete model as a curve of ``points`` points, and the periods of
    Young, Daly and the exact optimum (vertical lines, labelled without overlap).

    ``mtbf``: the platform's MTBF M (seconds: a node's MTBF / nodes); ``checkpoint``: C, the time one
    checkpoint blocks the application (default: the mean of the rows' ``checkpoint_duration``, which
    is that time under ``global`` and ``cck``; rows whose ``protocol.type`` is another protocol, or
    several, are refused with the reason); ``restart``: R; ``work``: the failure-free work W
    (default: the mean of ``reference_makespan``, with ``run.reference``). The model is drawn for
    periods up to W only: a longer period takes no checkpoint."""
    import numpy as np

    x = _default_column(frame, x, ("protocol.period_s",))
    if x is None:
        _require(frame, ["protocol.period_s"], "makespan_vs_period",
                 "vary protocol.period (e.g. \"0.1s\") in the sweep, or name the period column as x=")
    _require(frame, [x, y], "makespan_vs_period")
    rows = _ok_rows(frame, "makespan_vs_period")
    if checkpoint is None:
        checkpoint = _checkpoint_cost(rows)
    if model and work is None:
        _require(rows, ["reference_makespan"], "makespan_vs_period (Daly's model)",
                 'run the sweep with "run": {"reference": true}, give work= (W, seconds) or model=False')
        work = float(rows["reference_makespan"].mean())
    ax = lines(rows, x, y, hue=hue, ax=ax, title=title, xlabel="checkpoint period τ (s)", level=level,
               label="simulation")
    if title is None:
        note = _mean_note(mean_and_ci(rows, ([hue] if hue else []) + [x], y, level, _floor(y)))
        ax.set_title("Makespan against the checkpoint period" + (f"\n({note})" if note else ""))
    periods = rows[x].astype(float)
    optima = [("Young", analysis.young(checkpoint, mtbf), ":"), ("Daly", analysis.daly(checkpoint, mtbf), "--"),
              ("optimum", analysis.optimal_period(checkpoint, mtbf), "-.")]
    if model:
        low = min(float(periods.min()), *(p for _, p, _ in optima)) * 0.8
        high = min(max(float(periods.max()), *(p for _, p, _ in optima)) * 1.1, work)
        if low < high:
            taus = np.geomspace(low, high, max(points, 50))
            wall = [analysis.daly_wall_time(float(t), checkpoint, mtbf, restart, work) for t in taus]
            ax.plot(taus, wall, linestyle="-", color="black", linewidth=1, alpha=0.7, gid="model",
                    label=f"Daly's model\n(C = {checkpoint:.3g} s, M = {mtbf:.3g} s)")
        else:
            warnings.warn(f"makespan_vs_period: every period drawn is longer than the work W = {work:.3g} s: "
                          "Daly's model, of W/τ checkpointed segments, is not drawn", stacklevel=2)
    texts = []
    for name, period, style in optima:
        ax.axvline(period, linestyle=style, color="gray", linewidth=1, gid=f"optimum:{name}")
        texts.append(ax.text(period, 0.97, f" {name} {period:.3g} s", transform=ax.get_xaxis_transform(),
                             ha="left", va="top", fontsize=8, gid=f"label:{name}",
                             bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "gray",
                                   "alpha": 0.9}))
    # Beside the axes: the labels of the periods take the top of the plot.
    ax.legend(title=_words(hue) if hue else None, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    _spread_labels(ax, texts)
    return _finish(ax, path)


# --------------------------------------------------------------------------------------------
# One run


def _as_result(result):
    from ftsim._result import Result, load

    if isinstance(result, Result):
        return result
    if isinstance(result, (str, Path)):
        return load(result)
    raise TypeError(f"expected an ftsim.Result or the output directory of `ftsim run`, not {type(result).__name__}")


def _failure_overlays(ax, failures, makespan: float, lane_of=None, lane_height: float = 0.8):
    """Failure marks (one per failure), the failed node's recovery (failure → recovered_at) and
    the makespan. Without ``lane_of``, across the whole axes."""
    times = list(failures["time"])
    if lane_of is None:
        for _, f in failures.iterrows():
            end = makespan if _missing(f["recovered_at"]) else f["recovered_at"]
            ax.axvspan(f["time"], end, color=FAILURE_COLOR, alpha=0.12, linewidth=0, gid="recovery")
        if times:
            ax.plot(times, [1.0] * len(times), linestyle="none", marker="X", markersize=9, color=FAILURE_COLOR,
                    transform=ax.get_xaxis_transform(), clip_on=False, zorder=6, gid="failures", label="failure")
            for t in times:
                ax.axvline(t, color=FAILURE_COLOR, linewidth=1, zorder=5)
    else:
        for _, f in failures.iterrows():
            end = makespan if _missing(f["recovered_at"]) else f["recovered_at"]
            ax.barh(lane_of(int(f["node"])), end - f["time"], left=f["time"], height=lane_height, color=FAILURE_COLOR,
                    alpha=0.35, hatch="xx", edgecolor=FAILURE_COLOR, linewidth=0.5, zorder=4, gid="recovery")
        if times:
            ax.plot(times, [lane_of(int(n)) for n in failures["node"]], linestyle="none", marker="X", markersize=9,
                    color=FAILURE_COLOR, markeredgecolor="white", zorder=6, gid="failures", label="failure")
    ax.axvline(makespan, color="black", linestyle="--", linewidth=1.2, zorder=5, gid="makespan", label="makespan")


def _legend_handles(has_failures: bool, has_checkpoints: bool, reference: Optional[float], extra=(),
                    hatched: bool = True):
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = list(extra)
    if has_checkpoints:
        handles.append(Patch(facecolor="tab:green", alpha=0.35, label="checkpoint (start → commit)"))
    if has_failures:
        handles += [Line2D([], [], linestyle="none", marker="X", color=FAILURE_COLOR, markersize=8, label="failure"),
                    Patch(facecolor=FAILURE_COLOR, alpha=0.35 if hatched else 0.15, hatch="xx" if hatched else None,
                          label="recovery of the failed node")]
    handles.append(Line2D([], [], color="black", linestyle="--", label="makespan"))
    if reference is not None:
        handles.append(Line2D([], [], color="gray", linestyle=":", label="failure-free makespan"))
    return handles


def checkpoint_gantt(result, ax=None, title: Optional[str] = None, path: Optional[Union[str, Path]] = None):
    """One bar per checkpoint from its start to its commit (Lion 2020 Fig. 6: overlapping
    checkpoints show as overlapping bars), its last save marked ``|``, aborted attempts hollow;
    each failure marked (✕ at the top and a red line), the failed node's recovery shaded (failure
    → ``recovered_at``) and the makespan (dashed). ``result``: a :class:`ftsim.Result` or an
    output directory."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    result = _as_result(result)
    checkpoints = result.checkpoints
    ax = _axes(ax)
    labels = []
    for row, (_, c) in enumerate(checkpoints.iterrows()):
        who = "" if _missing(c["process"]) else f"node {int(c['process'])}: "
        labels.append(f"{who}{int(c['id'])}")
        if not _missing(c["committed"]):
            ax.barh(row, c["committed"] - c["started"], left=c["started"], height=0.6, color="tab:blue", alpha=0.75,
                    gid="checkpoint")
            if not _missing(c["saved"]):
                ax.plot([c["saved"]], [row], marker="|", color="black", markersize=12, gid="saved")
        elif not _missing(c["started"]):
            ax.plot([c["started"]], [row], marker="o", markerfacecolor="white", color="tab:blue", gid="aborted")
    _failure_overlays(ax, result.failures, result.makespan)
    ax.set_yticks(range(len(labels)), labels)
    if len(labels) > 40:
        from matplotlib.ticker import MaxNLocator

        ax.yaxis.set_major_locator(MaxNLocator(20, integer=True))
    ax.set_ylim(len(labels) - 0.4 if labels else 0.5, -0.6)
    ax.set_xlim(0, result.makespan * 1.03)
    ax.set_ylabel("checkpoint")
    ax.set_xlabel("simulated time (s)")
    handles = [Patch(facecolor="tab:blue", alpha=0.75, label="checkpoint: start → commit"),
               Line2D([], [], marker="|", color="black", linestyle="none", markersize=10, label="last save")]
    if (checkpoints["aborted"] == True).any():  # noqa: E712 (a column of bools)
        handles.append(Line2D([], [], marker="o", markerfacecolor="white", color="tab:blue", linestyle="none",
                              label="aborted"))
    handles += _legend_handles(len(result.failures) > 0, False, None, hatched=False)
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8)
    failures = len(result.failures)
    ax.set_title(title or f"Checkpoints of {result.name} ({result.protocol}), "
                          f"{failures} failure{'' if failures == 1 else 's'}", pad=14)  # above the ✕ marks
    return _finish(ax, path)


def _task_intervals(result):
    """(node, core, start, end, kernel, reexecution) of every task execution in the trace."""
    trace = result.trace
    if trace is None or len(trace) == 0:
        return None
    tasks = trace[(trace["ph"] == "X") & (trace["tid"] < 10000)]
    nodes = len(result.to_dict()["nodes"])
    tasks = tasks[tasks["pid"] < nodes]
    category = tasks["cat"].fillna("").astype(str)
    return {"node": tasks["pid"].to_numpy(int), "core": tasks["tid"].to_numpy(int),
            "start": tasks["ts"].to_numpy(float), "end": (tasks["ts"] + tasks["dur"]).to_numpy(float),
            "kernel": category.str.split(",").str[0].to_numpy(), "reexecution": category.str.contains("reexecution").to_numpy()}


def _cores_per_node(result, intervals) -> int:
    metadata = result.trace_metadata
    if metadata is not None and len(metadata):
        cores = metadata[metadata["core"]].groupby("pid")["tid"].nunique()
        if len(cores):
            return int(cores.max())
    platform = result.config.get("platform", {}) if isinstance(result.config, dict) else {}
    if isinstance(platform.get("cores_per_node"), int):
        return platform["cores_per_node"]
    return int(intervals["core"].max()) + 1 if intervals is not None and len(intervals["core"]) else 1


def _busy_fraction(starts, ends, edges):
    """The busy time of intervals [start, end) in each bin between ``edges``: ∫ of the number of
    intervals running, from sorted starts and ends (no interval × bin product)."""
    import numpy as np

    def integral(points):  # Σ max(0, edge − p) at each edge
        points = np.sort(points)
        before = np.searchsorted(points, edges, side="right")
        sums = np.concatenate([[0.0], np.cumsum(points)])
        return before * edges - sums[before]

    covered = integral(starts) - integral(ends)
    return np.diff(covered)


def node_timeline(result, ax=None, *, max_lanes: int = 64, tasks: str = "auto", bins: int = 400,
                  title: Optional[str] = None, path: Optional[Union[str, Path]] = None):
    """One run, node by node, on a time axis: each node's tasks, the checkpoints, each failure
    (✕ on its node's lane), the failed node's recovery (hatched, failure → ``recovered_at``), the
    makespan (dashed) and the failure-free makespan (dotted, with ``run.reference``).

    ``result``: a :class:`ftsim.Result` (tasks need ``ftsim.run(..., trace=True)``) or an ``ftsim
    run`` output directory (tasks from its trace.json, if written with ``--trace``). ``tasks``:
    ``"bars"`` (every execution, a sub-lane per core, coloured by kernel, re-executions in red),
    ``"density"`` (the share of the lane's cores busy, in ``bins`` time bins: a heat map), or
    ``"auto"`` (bars up to 32 nodes and 20,000 executions). Beyond ``max_lanes`` nodes, lanes are
    groups of consecutive nodes (``nodes 0–15``), so that 1,000 nodes stay readable."""
    import numpy as np
    from matplotlib.patches import Patch

    result = _as_result(result)
    nodes = len(result.to_dict()["nodes"])
    per_lane = max(1, math.ceil(nodes / max(1, max_lanes)))
    lanes = max(1, math.ceil(nodes / per_lane))

    def lane_of(node: int) -> int:
        return node // per_lane

    intervals = _task_intervals(result)
    if tasks == "auto":
        tasks = "bars" if intervals is not None and nodes <= 32 and len(intervals["start"]) <= 20000 else "density"
    if tasks not in ("bars", "density"):
        raise ValueError(f'node_timeline: tasks must be "auto", "bars" or "density", not {tasks!r}')
    makespan = result.makespan
    ax = _axes(ax, figsize=(9, min(8.0, 2.0 + 0.25 * lanes)))
    extra_handles = []
    if intervals is not None and len(intervals["start"]):
        cores = _cores_per_node(result, intervals)
        if tasks == "bars":
            kernels = list(dict.fromkeys(intervals["kernel"]))
            import matplotlib.pyplot as plt

            palette = plt.get_cmap("tab10" if len(kernels) <= 10 else "tab20")
            colors = {k: palette(i % palette.N) for i, k in enumerate(kernels)}
            height = 0.8 / cores
            for (node, core) in sorted(set(zip(intervals["node"].tolist(), intervals["core"].tolist()))):
                mask = (intervals["node"] == node) & (intervals["core"] == core)
                spans = list(zip(intervals["start"][mask], intervals["end"][mask] - intervals["start"][mask]))
                kinds = intervals["kernel"][mask]
                again = intervals["reexecution"][mask]
                ax.broken_barh(spans, (lane_of(node) - 0.4 + core * height, height * 0.9),
                               facecolors=[("tab:red" if a else colors[k]) for k, a in zip(kinds, again)],
                               linewidth=0, gid="tasks")
            extra_handles = [Patch(facecolor=colors[k], label=str(k)) for k in kernels[:10]]
            if intervals["reexecution"].any():
                extra_handles.append(Patch(facecolor="tab:red", label="re-execution"))
        else:
            edges = np.linspace(0.0, makespan, bins + 1)
            density = np.zeros((lanes, bins))
            lane_index = intervals["node"] // per_lane
            for lane in range(lanes):
                mask = lane_index == lane
                if mask.any():
                    density[lane] = _busy_fraction(intervals["start"][mask], intervals["end"][mask], edges)
            nodes_in_lane = np.array([min(per_lane, nodes - lane * per_lane) for lane in range(lanes)], float)
            density = 100.0 * density / (np.diff(edges)[None, :] * cores * nodes_in_lane[:, None])
            image = ax.imshow(density, aspect="auto", interpolation="nearest", cmap="Blues", vmin=0, vmax=100,
                              extent=(0.0, makespan, lanes - 0.5, -0.5), gid="task density")
            colorbar = ax.figure.colorbar(image, ax=ax, pad=0.01, fraction=0.04)
            colorbar.set_label("cores busy (%)")
    checkpoints = result.checkpoints
    committed = checkpoints[checkpoints["committed"].notna()]
    for _, c in committed.iterrows():
        if not _missing(c["process"]):
            ax.barh(lane_of(int(c["process"])), c["committed"] - c["started"], left=c["started"], height=0.9,
                    color="tab:green", alpha=0.35, zorder=3, gid="checkpoint")
        else:
            ax.axvspan(c["started"], c["committed"], color="tab:green", alpha=0.25, linewidth=0, zorder=0.5,
                       gid="checkpoint")
    failures = result.failures
    _failure_overlays(ax, failures, makespan, lane_of=lane_of, lane_height=0.9)
    reference = result.reference_makespan
    if reference is not None:
        ax.axvline(reference, color="gray", linestyle=":", linewidth=1.2, zorder=5, gid="reference makespan")
    if per_lane == 1:
        ticks = list(range(lanes))
        names = [f"node {n}" for n in ticks]
    else:
        ticks = list(range(lanes))
        names = [f"nodes {lane * per_lane}–{min(nodes, (lane + 1) * per_lane) - 1}" for lane in ticks]
    step = max(1, math.ceil(lanes / 32))
    ax.set_yticks(ticks[::step], names[::step], fontsize=8 if lanes > 16 else None)
    ax.set_ylim(lanes - 0.5, -0.5)
    ax.set_xlim(0, max(makespan, reference or 0.0) * 1.02)
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("node" if per_lane == 1 else f"nodes, {per_lane} per lane")
    handles = _legend_handles(len(failures) > 0, len(committed) > 0, reference, extra_handles)
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=min(5, len(handles)),
              frameon=False, fontsize=8)
    if title is None:
        count = len(failures)
        title = f"{result.name}: {result.protocol} on {nodes} node{'s' if nodes != 1 else ''}, " \
                f"{count} failure{'' if count == 1 else 's'}"
        if intervals is None:
            title += "\n(no trace: tasks not drawn; run with trace=True)"
    ax.set_title(title)
    return _finish(ax, path)


# --------------------------------------------------------------------------------------------
# Traces: the space-time diagram


def _lamport_times(trace: dict) -> list[list[float]]:
    """A time per event of each process: Lamport's logical clock (an event after the previous one
    of its process and, for a receive, after its send), unless every event has a "time"."""
    processes = [p["events"] for p in trace["processes"]]
    if all("time" in e for events in processes for e in events) and any(processes):
        return [[float(e["time"]) for e in events] for events in processes]
    times = [[0.0] * len(events) for events in processes]
    sent: dict[str, float] = {}
    cursor = [0] * len(processes)
    clock = [0.0] * len(processes)
    moved = True
    while moved:  # advance every process until it waits for a send not made yet
        moved = False
        for p, events in enumerate(processes):
            while cursor[p] < len(events):
                event = events[cursor[p]]
                if "receive" in event:
                    if event["receive"] not in sent:
                        break
                    clock[p] = max(clock[p], sent[event["receive"]])
                clock[p] += 1
                if "send" in event:
                    sent[event["send"]] = clock[p]
                times[p][cursor[p]] = clock[p]
                cursor[p] += 1
                moved = True
    return times


def space_time(trace: dict, result: Optional[dict] = None, ax=None, title: Optional[str] = None,
               label_messages: bool = True, path: Optional[Union[str, Path]] = None):
    """The space-time diagram of a trace (an ftsim-trace dict, see ``ftsim.read_trace``), as in
    every paper on checkpointing: a line per process (time to the right, logical unless every
    event has a time), checkpoints as squares (hollow red if useless), messages as arrows
    (dashed if logged) and, given ``result`` (``ftsim.analyze(...)``), the recovery line in red
    through the point each process restarts from, the failed processes crossed at their end."""
    ax = _axes(ax)
    times = _lamport_times(trace)
    processes = trace["processes"]
    send_at: dict[str, tuple[int, float, bool]] = {}
    checkpoint_at: dict[tuple[int, int], float] = {}
    useless = {tuple(c) for c in (result or {}).get("useless_checkpoints", [])}
    end = max([t for ts in times for t in ts] + [1.0]) + 1
    for p, process in enumerate(processes):
        ax.plot([0, end], [p, p], color="black", linewidth=1, zorder=1)
        ax.plot([0], [p], marker="s", color="black", markersize=7, zorder=3)  # checkpoint 0
        checkpoint_at[(p, 0)] = 0.0
        for event, t in zip(process["events"], times[p]):
            if "send" in event:
                send_at[event["send"]] = (p, t, bool(event.get("logged", False)))
            elif "checkpoint" in event:
                k = event["checkpoint"]
                checkpoint_at[(p, k)] = t
                hollow = (p, k) in useless
                ax.plot([t], [p], marker="s", markersize=8, zorder=3, color="tab:red" if hollow else "black",
                        markerfacecolor="white" if hollow else "black")
                ax.annotate(f"C{k}", (t, p), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=7)
    for p, process in enumerate(processes):
        for event, t in zip(process["events"], times[p]):
            if "receive" not in event:
                continue
            q, ts, logged = send_at[event["receive"]]
            ax.annotate("", xy=(t, p), xytext=(ts, q), zorder=2,
                        arrowprops={"arrowstyle": "->", "color": "tab:blue", "linestyle": "--" if logged else "-",
                                    "shrinkA": 2, "shrinkB": 2})
            if label_messages:
                ax.annotate(event["receive"], ((t + ts) / 2, (p + q) / 2), fontsize=6, color="tab:blue",
                            ha="center", va="center", backgroundcolor="white")
    if result is not None and "recovery_line" in result:
        points = []
        for p, k in enumerate(result["recovery_line"]):
            points.append((end if k is None else checkpoint_at[(p, k)], p))
        ax.plot([x for x, _ in points], [y for _, y in points], color="tab:red", linewidth=2.5, alpha=0.7, zorder=4,
                label="recovery line")
        for p in result.get("failed", []):
            ax.plot([end], [p], marker="X", color="tab:red", markersize=12, zorder=5)
        ax.legend(loc="upper right", fontsize=8)
    ax.set_yticks(range(len(processes)), [p.get("name", f"P{i}") for i, p in enumerate(processes)])
    ax.set_ylim(len(processes) - 0.5, -0.7)
    ax.set_xlim(-0.5, end + 0.5)
    ax.set_xlabel("time (logical)" if not all("time" in e for p in processes for e in p["events"]) else "time (s)")
    ax.set_title(title or "Space-time diagram")
    return _finish(ax, path)


def advice(frame, ax=None, title: Optional[str] = None, path: Optional[Union[str, Path]] = None):
    """The frame of :func:`ftsim.advise`: for each protocol, its expected overhead (in % of
    ``none``'s failure-free makespan) against the checkpoint period (seconds, log scale), with the
    90 % interval of each estimate as a band, and its recommended period circled. The period
    without checkpoints (a whole job) is the rightmost point of a protocol that found none
    worth taking."""
    _require(frame, ["protocol", "period", "overhead", "overhead_low", "overhead_high", "recommended"], "advice")
    ax = _axes(ax)
    kinds = list(dict.fromkeys(frame["protocol"]))
    colors = _colors(kinds, "protocol.type")
    for kind in kinds:
        rows = frame[frame["protocol"] == kind].sort_values("period")
        color = colors[kind]
        ax.plot(rows["period"], 100 * rows["overhead"], "o-", color=color, label=kind)
        ax.fill_between(rows["period"], 100 * rows["overhead_low"], 100 * rows["overhead_high"], color=color, alpha=0.2)
        best = rows[rows["recommended"]]
        ax.plot(best["period"], 100 * best["overhead"], "o", markersize=12, markerfacecolor="none", color=color)
    ax.set_xscale("log")
    ax.set_xlabel("checkpoint period (s)")
    ax.set_ylabel("expected overhead (%)")
    ax.legend(title="protocol (circled: recommended)")
    document = frame.attrs.get("advice", {})
    note = document.get("failure_model", {}).get("note", "")
    ax.set_title(_title(title or f"Overhead against period, 90% intervals\n{note}"))
    return _finish(ax, path)
