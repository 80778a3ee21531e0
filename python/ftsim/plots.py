"""Plotting helpers (matplotlib). Each draws on ``ax`` (a new figure if None) and returns the axes."""
from __future__ import annotations

from typing import Iterable, Optional, Sequence

from ftsim import analysis


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(7, 4))
    return ax


def checkpoint_gantt(result, ax=None, title: Optional[str] = None):
    """Lion 2020 Fig. 6 style: one bar per checkpoint from its first save to its completion, with
    the last save marked; checkpoints that overlap show as overlapping bars."""
    ax = _axes(ax)
    records = [c for c in result.checkpoints if c.get("committed", -1) is not None and c.get("committed", -1) >= 0]
    for row, c in enumerate(records):
        ax.barh(row, c["committed"] - c["started"], left=c["started"], height=0.6, color="tab:blue", alpha=0.7)
        if c.get("saved", -1) is not None and c.get("saved", -1) >= 0:
            ax.plot([c["saved"]], [row], marker="|", color="black", markersize=12)
    ax.set_yticks(range(len(records)), [str(c["id"]) for c in records])
    ax.set_ylabel("checkpoint")
    ax.set_xlabel("time (s): first save → validated; | last save")
    ax.invert_yaxis()
    ax.set_title(title or "checkpoints")
    return ax


def overhead_vs_checkpoints(counts: Sequence[float], overheads: Sequence[float], ax=None, label: Optional[str] = None,
                            title: Optional[str] = None):
    """Failure-free overhead (a fraction, e.g. 0.05) against the number of checkpoints."""
    ax = _axes(ax)
    ax.plot(counts, [100 * o for o in overheads], marker="o", label=label)
    ax.set_xlabel("checkpoints")
    ax.set_ylabel("overhead (%)")
    if label:
        ax.legend()
    ax.set_title(title or "overhead vs checkpoint count")
    return ax


def protocol_bars(frame, value: str, group: str = "application", by: str = "protocol", ax=None,
                  title: Optional[str] = None, ylabel: Optional[str] = None):
    """Grouped bars: one group per ``group`` (e.g. application), one bar per ``by`` (protocol), of
    the column ``value`` of a DataFrame (e.g. the rows of a sweep)."""
    ax = _axes(ax)
    groups = list(dict.fromkeys(frame[group]))
    kinds = list(dict.fromkeys(frame[by]))
    width = 0.8 / max(len(kinds), 1)
    for i, kind in enumerate(kinds):
        heights = []
        for g in groups:
            rows = frame[(frame[group] == g) & (frame[by] == kind)]
            heights.append(float(rows[value].mean()) if len(rows) else 0.0)
        ax.bar([x + i * width for x in range(len(groups))], heights, width=width, label=str(kind))
    ax.set_xticks([x + width * (len(kinds) - 1) / 2 for x in range(len(groups))], groups)
    ax.set_ylabel(ylabel or value)
    ax.legend()
    ax.set_title(title or f"{value} by {by}")
    return ax


def makespan_vs_period(periods: Sequence[float], makespans: Sequence[float], checkpoint: float, mtbf: float,
                       ax=None, title: Optional[str] = None, model: Optional[Iterable[float]] = None):
    """Makespan against the checkpoint period, with Young's, Daly's and the exact optimum of Daly's
    model marked (vertical lines); ``model``: the model's makespans at the same periods, if given."""
    ax = _axes(ax)
    ax.plot(periods, makespans, marker="o", label="simulation")
    if model is not None:
        ax.plot(periods, list(model), linestyle="--", label="Daly's model")
    for name, period, style in (("Young", analysis.young(checkpoint, mtbf), ":"),
                                ("Daly", analysis.daly(checkpoint, mtbf), "--"),
                                ("optimum", analysis.optimal_period(checkpoint, mtbf), "-.")):
        ax.axvline(period, linestyle=style, color="gray")
        ax.annotate(name, (period, ax.get_ylim()[1]), rotation=90, va="top", ha="right", fontsize=8)
    ax.set_xlabel("checkpoint period (s)")
    ax.set_ylabel("makespan (s)")
    ax.legend()
    ax.set_title(title or "makespan vs checkpoint period")
    return ax
