"""Means over seeds with Student-t confidence intervals that stay in the quantity's range, without
SciPy (Debian's python3-scipy is not a dependency of ftsim)."""
from __future__ import annotations

import math
from typing import Optional


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        for numerator in (m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
                          -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_continued_fraction(a, b, x) / a
    return 1.0 - front * _beta_continued_fraction(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T ≤ t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * _incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (bisection on the CDF)."""
    if not 0.0 < p < 1.0 or df <= 0:
        raise ValueError(f"t_quantile needs 0 < p < 1 and df > 0, got p={p}, df={df}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(200):
        middle = 0.5 * (low + high)
        if t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
        if high - low < 1e-12 * max(1.0, high):
            break
    return 0.5 * (low + high)


def confidence_half_width(values, level: float = 0.95) -> float:
    """Half the width of the ``level`` confidence interval of the mean of ``values`` (Student's t);
    NaN for fewer than two values."""
    values = [float(v) for v in values if v == v]  # drop NaN
    n = len(values)
    if n < 2:
        return float("nan")
    mean = sum(values) / n
    deviation = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return t_quantile(0.5 + level / 2.0, n - 1) * deviation / math.sqrt(n)


def mean_interval(values, level: float = 0.95, floor: Optional[float] = None) -> tuple[float, float]:
    """The ``level`` confidence interval (low, high) of the mean of ``values``; (NaN, NaN) for fewer
    than two values.

    Without ``floor``: Student's t, mean ± t·s/√n. With ``floor``, the bound the quantity always stays
    above (−1 for an overhead, makespan / reference − 1; 0 for a time, a size or a count): the t interval
    of log(mean − floor) (delta method: half width t·s/(√n·(mean − floor))), mapped back. It never
    reaches below the floor, always contains the mean, and is the plain t interval when the spread is
    small against mean − floor; a symmetric interval of 4 seeds drew overheads of −170% (issue 39).
    Values below ``floor`` (a floor that does not hold for them) get the plain t interval."""
    values = [float(v) for v in values if v == v]  # drop NaN
    n = len(values)
    if n < 2:
        return float("nan"), float("nan")
    mean = sum(values) / n
    half = confidence_half_width(values, level)
    if floor is None or min(values) < floor:
        return mean - half, mean + half
    span = mean - floor
    if span <= 0.0:  # every value on the floor
        return mean, mean
    factor = math.exp(half / span)
    # min/max: floor + (mean − floor) is the mean again only up to rounding.
    return min(mean, floor + span / factor), max(mean, floor + span * factor)


def mean_and_ci(frame, keys: list, value: str, level: float = 0.95, floor: Optional[float] = None):
    """One row per combination of ``keys`` (in order of first appearance): ``mean``, ``low`` and
    ``high`` (the ``level`` confidence interval of :func:`mean_interval` with ``floor``, NaN with
    one row), ``n``, ``std``."""
    import pandas as pd

    def row(values):
        values = values.dropna()
        low, high = mean_interval(values.tolist(), level, floor)
        return {"mean": values.mean() if len(values) else float("nan"), "low": low, "high": high, "n": len(values),
                "std": values.std() if len(values) > 1 else float("nan")}

    rows = []
    if keys:
        for key, values in frame.groupby(keys, sort=False, dropna=False)[value]:
            key = key if isinstance(key, tuple) else (key,)
            rows.append({**dict(zip(keys, key)), **row(values)})
    else:
        rows.append(row(frame[value]))
    return pd.DataFrame(rows, columns=list(keys) + ["mean", "low", "high", "n", "std"])
