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
               label_messages: bool = True):
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
    ax.set_title(title or "space-time diagram")
    return ax
