"""Optimal checkpoint periods (notes: ../shared/papers/notes/anchors-simgrid-starpu-peers.md §5).

All times in seconds. ``checkpoint``: the time to take one checkpoint (C, δ); ``mtbf``: the
platform's mean time between failures (M). The period returned is the compute time between two
checkpoints (τ; a cycle lasts τ + C).
"""
from __future__ import annotations

import warnings

from ftsim import _ftsim

__all__ = ["young", "daly", "optimal_period", "daly_wall_time", "multilevel"]


def young(checkpoint: float, mtbf: float) -> float:
    """Young 1974: √(2CM)."""
    return _ftsim.young_period(checkpoint, mtbf)


def daly(checkpoint: float, mtbf: float) -> float:
    """Daly 2006's higher-order estimate: √(2CM)·[1 + ⅓√(C/2M) + (C/2M)/9] − C if C < 2M, else M."""
    return _ftsim.daly_period(checkpoint, mtbf)


def optimal_period(checkpoint: float, mtbf: float) -> float:
    """The exact optimum of Daly's complete model: M·(1 + W₀(−e^{−C/M−1})) (Lambert W)."""
    return _ftsim.optimal_period(checkpoint, mtbf)


def daly_wall_time(period: float, checkpoint: float, mtbf: float, restart: float, work: float) -> float:
    """Daly's complete model: expected wall time of ``work`` seconds of computation with this
    period and restart time R: M·e^{R/M}·(e^{(τ+C)/M} − 1)·work/τ. A period longer than the work
    warns: the run ends before its first checkpoint, which the model (work/τ segments of τ + C, so
    less than one here) does not describe; without checkpoints it takes M·e^{R/M}·(e^{W/M} − 1)."""
    if period > work:
        warnings.warn(f"daly_wall_time: the period {period:g} s is longer than the work {work:g} s: the run ends "
                      "before its first checkpoint, and Daly's model (work/period segments of period + C) does "
                      "not describe it", stacklevel=2)
    return _ftsim.daly_wall_time(period, checkpoint, mtbf, restart, work)


def multilevel(levels: list[tuple[float, float, float]], used: list[int] | None = None) -> dict:
    """The first-order optimum of multi-level checkpointing (Benoit et al., IEEE TC 2017).

    ``levels``: (checkpoint, failure_rate, recovery) of each level, cheapest first: C_l, the time
    of level l's part of a checkpoint; lambda_l, failures per second that need level l or above;
    R_l, a recovery from it. Returns ``levels`` (0-based, the ones worth using; always the last),
    ``counts`` (checkpoints of each in one pattern; the last 1), ``work`` (W, work between two
    checkpoints of the last level), ``overhead`` (H, wasted time per unit of work at W) and
    ``bound`` (sum of sqrt(2 lambda_l C_l) + lambda_l R_l: real counts). With ``used`` (0-based levels,
    increasing, ending with the last), the best counts for those levels only: for a protocol that cannot
    leave a level out. docs/multilevel.md says more."""
    return _ftsim.multilevel_pattern([tuple(map(float, level)) for level in levels], used)
