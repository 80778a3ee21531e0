"""The intervals ftsim.plots draws stay in the quantity's range (issue 39, item 6: overhead_split and
lines(..., "overhead") drew 95% intervals down to −170% overhead, makespan_vs_period a negative makespan):
an overhead (makespan / reference − 1) stays above −100%, a makespan above 0. Also: how many runs a point
averages is on the plot and too few warn, overhead_split labels its x axis with one application,
makespan_vs_period takes Daly's C only from protocols whose checkpoint_duration is a blocking time, and
daly_wall_time says when the period is longer than the work."""
import math
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import ftsim  # noqa: E402  (conftest puts build/python on sys.path)
from ftsim import plots  # noqa: E402
from ftsim._stats import confidence_half_width, mean_interval  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def four_seeds():
    """A 4-seed sweep of protocol none on one small stencil, two MTBFs: a failure restarts the job from
    scratch, so one unlucky seed costs several times the others and the overheads are skewed."""
    config = {"name": "intervals", "application": {"type": "stencil", "tiles": [4, 2], "tile_size": 128, "iterations": 8},
              "platform": {"nodes": 4, "cores_per_node": 1, "core_gflops": 0.5,
                           "network": {"topology": "star", "bandwidth": "10Gbps", "latency": "5us"}},
              "protocol": {"type": "none"}, "run": {"reference": True},
              "failures": {"model": "exponential", "mtbf": "40ms", "downtime": "1ms"},
              "sweep": {"grid": {"failures.mtbf": ["20ms", "40ms"]}, "seeds": [1, 3, 4, 12]}}
    rows = ftsim.sweep(config, jobs=2)
    assert set(rows["status"]) == {"ok"}, rows[["seed", "reason"]]
    return rows


def error_bounds(ax, gid_prefix=""):
    """(low, high) of every error bar drawn on ``ax`` (from its ErrorbarContainers and bars' error bars)."""
    bounds = []
    for container in ax.containers:
        errorbar = container if type(container).__name__ == "ErrorbarContainer" else getattr(container, "errorbar", None)
        if errorbar is None or not str(plots.gid_of(container) or "").startswith(gid_prefix):
            continue
        for collection in errorbar.lines[2]:
            for segment in collection.get_segments():
                bounds.append((min(segment[:, 1]), max(segment[:, 1])))
    return bounds


def test_the_sweep_is_skewed_enough_that_a_symmetric_interval_leaves_the_range(four_seeds):
    # What the plots drew before: mean ± t·s/√n of the overhead, below −100% for at least one point.
    lows = [values.mean() - confidence_half_width(values.tolist())
            for _, values in four_seeds.groupby("failures.mtbf")["overhead"]]
    assert min(lows) < -1.0, lows


def test_overhead_intervals_stay_above_minus_100_percent(four_seeds):
    for draw in (lambda: plots.overhead_split(four_seeds, group="failures.mtbf"),
                 lambda: plots.lines(four_seeds, "failures.mtbf_s", "overhead"),
                 lambda: plots.protocol_bars(four_seeds, "overhead", group="failures.mtbf")):
        ax = draw()
        bounds = error_bounds(ax)
        assert bounds and all(low > -100.0 for low, _ in bounds), bounds
        plt.close("all")


def test_makespan_intervals_stay_above_zero(four_seeds):
    ax = plots.lines(four_seeds, "failures.mtbf_s", "makespan")
    bounds = error_bounds(ax)
    assert bounds and all(low > 0.0 for low, _ in bounds), bounds


def test_an_interval_contains_its_mean_and_is_the_t_interval_when_the_spread_is_small():
    for values, floor in (([0.0, 0.05, 0.1, 3.0], -1.0), ([0.0, 3.0], -1.0), ([2.0, 0.1, 0.1], 0.0), ([0, 0, 4], 0.0)):
        low, high = mean_interval(values, floor=floor)
        mean = sum(values) / len(values)
        assert floor < low <= mean <= high, (values, low, high)
    values = [100.0, 101.0, 99.5, 100.2]
    half = confidence_half_width(values)
    low, high = mean_interval(values, floor=0.0)
    assert (low, high) == pytest.approx((sum(values) / 4 - half, sum(values) / 4 + half), rel=1e-4)
    assert mean_interval([1.0, 1.0, 1.0], floor=1.0) == (1.0, 1.0)
    assert all(math.isnan(b) for b in mean_interval([0.5], floor=-1.0))
    # No floor, or values below it: the plain t interval.
    assert mean_interval([-3.0, 1.0], floor=-1.0) == pytest.approx((-1 - confidence_half_width([-3, 1]),
                                                                    -1 + confidence_half_width([-3, 1])))


def test_n_is_on_the_plot_and_too_few_runs_warn(four_seeds):
    ax = plots.lines(four_seeds, "failures.mtbf_s", "overhead")
    assert "mean of 4 runs, 95% CI" in ax.get_title()
    two = four_seeds[four_seeds["seed"].isin([1, 3])]
    with pytest.warns(UserWarning, match=r"2 of 2 points average fewer than 3 runs \(n = 2\)"):
        ax = plots.lines(two, "failures.mtbf_s", "overhead")
    assert "mean of 2 runs" in ax.get_title()
    one = four_seeds[four_seeds["seed"] == 1]
    with pytest.warns(UserWarning, match=r"fewer than 3 runs \(n = 1\): no interval"):
        ax = plots.protocol_bars(one, "overhead", group="failures.mtbf")
    assert "one run per point, no interval" in ax.get_title()


def test_overhead_split_of_one_application_labels_its_x_axis(four_seeds):
    rows = four_seeds.assign(**{"protocol.type": "none"})
    rows = rows[["point", "id", "protocol.type", "seed"] + [c for c in rows.columns if c not in
                ("point", "id", "protocol.type", "seed", "failures.mtbf", "failures.mtbf_s")]]
    ax = plots.overhead_split(rows[four_seeds["failures.mtbf"] == "20ms"])
    assert ax.get_xlabel() == "protocol"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["none"]
    ax = plots.protocol_bars(rows[four_seeds["failures.mtbf"] == "20ms"], "overhead")
    assert ax.get_xlabel() == "protocol" and [t.get_text() for t in ax.get_xticklabels()] == ["none"]
    # Rows that name neither an application nor a protocol: one bar, still named.
    ax = plots.overhead_split(four_seeds[four_seeds["failures.mtbf"] == "20ms"].drop(columns=["failures.mtbf",
                                                                                             "failures.mtbf_s"]))
    assert [t.get_text() for t in ax.get_xticklabels()] == ["all runs"]


def period_frame(protocol):
    return pd.DataFrame({"protocol.type": [protocol] * 6, "protocol.period_s": [1.0, 2.0, 4.0] * 2,
                         "seed": [1] * 3 + [2] * 3, "makespan": [10.0, 9.0, 9.5, 10.5, 9.2, 9.9],
                         "checkpoint_duration": [37.0] * 6, "reference_makespan": [8.0] * 6})


@pytest.mark.parametrize("protocol, reason", [("buddy", "asynchronous"), ("uncoordinated", "on its own schedule"),
                                              ("lineage", "no checkpoint")])
def test_makespan_vs_period_refuses_a_duration_that_is_not_a_blocking_cost(protocol, reason):
    with pytest.raises(ValueError, match=f"not Daly's C under {protocol}: .*{reason}.*give checkpoint="):
        plots.makespan_vs_period(period_frame(protocol), mtbf=100.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # two runs per point
        ax = plots.makespan_vs_period(period_frame(protocol), mtbf=100.0, checkpoint=0.1)
    (model,) = [line for line in ax.get_lines() if line.get_gid() == "model"]
    assert "C = 0.1 s" in model.get_label()


def test_makespan_vs_period_takes_the_blocking_duration_of_global_and_refuses_a_mix():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ax = plots.makespan_vs_period(period_frame("global").assign(checkpoint_duration=0.2), mtbf=100.0)
    (model,) = [line for line in ax.get_lines() if line.get_gid() == "model"]
    assert "C = 0.2 s" in model.get_label()
    # The model is drawn for periods up to the work only (8 s here).
    assert max(model.get_xdata()) <= 8.0
    mixed = pd.concat([period_frame("global"), period_frame("cck")])
    with pytest.raises(ValueError, match="rows of global and cck.*Daly's model takes one C"):
        plots.makespan_vs_period(mixed.assign(checkpoint_duration=0.2), mtbf=100.0)


def test_daly_wall_time_warns_when_the_period_is_longer_than_the_work():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ftsim.analysis.daly_wall_time(5.0, 0.1, 100.0, 0.0, 10.0)
    with pytest.warns(UserWarning, match="period 20 s is longer than the work 10 s"):
        ftsim.analysis.daly_wall_time(20.0, 0.1, 100.0, 0.0, 10.0)


def test_checkpoint_duration_is_called_dalys_c_only_under_the_protocols_where_it_is():
    # Issue 39, item 6: under buddy checkpoint_duration is an asynchronous span (37 s on a run whose
    # blocking cost is far smaller), so the docs must not call the column Daly's C without saying
    # under which protocols it is: wherever they tie it to Daly, they name global and cck.
    from conftest import SOURCE_DIR
    import re as regex
    unqualified = []
    for part in ("docs/python.md", "docs/sweeps.md", "python/ftsim/_result.py", "python/ftsim/_sweep.py"):
        text = (SOURCE_DIR / part).read_text(encoding="utf-8")
        for match in regex.finditer(r"checkpoint_duration", text):
            window = text[match.start():match.start() + 160]
            if "Daly" in window and not ("global" in window and "cck" in window):
                unqualified.append(f"{part}: {window[:100]!r}")
    assert unqualified == []
