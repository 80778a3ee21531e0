"""ftsim.plots, headless (Agg): each plot is drawn from real ftsim output (ftsim.sweep rows with their
defaults, ftsim.run results) or from synthetic frames where a figure must be checked exactly, and its
content is checked: the bars are the means over the seeds with their confidence intervals, as many
failure marks as failures, Daly's model as a curve, labels that do not overlap, axes with units,
files that are written."""
import math
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import ftsim  # noqa: E402  (conftest puts build/python on sys.path)
from ftsim import plots  # noqa: E402
from ftsim._stats import confidence_half_width, mean_interval, t_quantile  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def platform(nodes=4):
    return {"nodes": nodes, "cores_per_node": 2, "core_gflops": 0.1,
            "network": {"topology": "star", "bandwidth": "10Gbps", "latency": "5us"},
            "storage": {"hosts": 1, "bandwidth": "2GB/s", "latency": "10us"}}


STENCIL = {"type": "stencil", "tiles": [4, 4], "tile_size": 256, "iterations": 12}
CHOLESKY = {"type": "cholesky", "tiles": 4, "tile_size": 192}


def one_run(**extra):
    """A global run with two failures, checkpoints every 10 ms, and its reference."""
    config = {"name": "plots", "application": STENCIL, "platform": platform(),
              "protocol": {"type": "global", "period": "10ms", "storage": "stable"},
              "failures": {"model": "list", "events": [{"node": 1, "time": "25ms"}, {"node": 3, "time": "60ms"}],
                           "downtime": "2ms", "detection": "1ms"},
              "run": {"reference": True}}
    config.update(extra)
    return config


@pytest.fixture(scope="module")
def run_with_failures():
    result = ftsim.run(one_run(), trace=True)
    assert result.ok and len(result.failures) == 2, result
    return result


@pytest.fixture(scope="module")
def protocol_rows():
    """ftsim.sweep rows: 2 applications × 3 protocols × 3 seeds, exponential failures (the seeds differ)."""
    config = {"name": "plots-protocols", "platform": platform(), "run": {"reference": True},
              "checkpoints": {"count": 2, "buddy": "next"},
              "failures": {"model": "exponential", "mtbf": "1s", "downtime": "2ms", "detection": "1ms"},
              "sweep": {"grid": {"application": [STENCIL, CHOLESKY],
                                 "protocol": [{"type": "none"}, {"type": "global", "at": "cuts", "storage": "stable"},
                                              {"type": "buddy"}]},
                        "seeds": 3}}
    rows = ftsim.sweep(config, jobs=2)
    assert set(rows["status"]) == {"ok"}, rows[["protocol.type", "seed", "reason"]]
    return rows


@pytest.fixture(scope="module")
def period_rows():
    """ftsim.sweep rows: global with 4 periods × 3 seeds (fewer warn), exponential failures."""
    config = one_run(name="plots-period", failures={"model": "exponential", "mtbf": "0.4s", "downtime": "2ms",
                                                     "detection": "1ms"},
                     sweep={"grid": {"protocol.period": ["4ms", "8ms", "16ms", "32ms"]}, "seeds": 3})
    rows = ftsim.sweep(config, jobs=2)
    assert set(rows["status"]) == {"ok"}, rows[["protocol.period", "seed", "reason"]]
    return rows


def texts(ax):
    return [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]


def assert_words(ax):
    """The title is words (no raw column name) and the axes say their units."""
    title = ax.get_title()
    assert title and title[0].isupper(), title
    for raw in ("_", "application.type", "protocol.type", "protocol.period"):
        assert raw not in title, title


def gid(container):
    """The gid ftsim.plots gave a container's artists (matplotlib's containers have none)."""
    return plots.gid_of(container)


def assert_beside(legend, ax):
    """The legend is drawn to the right of the axes (over no bar, line or label)."""
    ax.figure.canvas.draw()
    assert legend.get_window_extent().x0 >= ax.get_window_extent().x1


def bar_containers(ax):
    """The BarContainers of ``ax`` (a bar's error bars are an ErrorbarContainer of their own)."""
    return [c for c in ax.containers if type(c).__name__ == "BarContainer"]


def bar_heights(ax, gid_prefix):
    return {gid(c): [p.get_height() for p in c.patches] for c in bar_containers(ax)
            if str(gid(c)).startswith(gid_prefix)}


# ----- statistics


def test_t_quantiles_match_the_tables():
    assert t_quantile(0.975, 1) == pytest.approx(12.7062, abs=1e-4)
    assert t_quantile(0.975, 2) == pytest.approx(4.3027, abs=1e-4)
    assert t_quantile(0.975, 10) == pytest.approx(2.2281, abs=1e-4)
    assert t_quantile(0.975, 1e6) == pytest.approx(1.95996, abs=1e-4)
    assert t_quantile(0.05, 4) == pytest.approx(-2.1318, abs=1e-4)
    assert confidence_half_width([1.0, 2.0, 3.0]) == pytest.approx(4.3027 * 1.0 / math.sqrt(3), rel=1e-4)
    assert math.isnan(confidence_half_width([1.0]))


# ----- sweep rows: bars


def test_protocol_bars_draws_a_sweep_with_its_defaults(protocol_rows):
    # Issue 24: protocol_bars(ftsim.sweep(...), "overhead") raised KeyError: 'application'.
    ax = plots.protocol_bars(protocol_rows, "overhead")
    heights = bar_heights(ax, "bars:")
    assert set(heights) == {"bars:none", "bars:global", "bars:buddy"}
    stats = protocol_rows.groupby(["protocol.type", "application.type"], sort=False)["overhead"]
    for protocol, values in heights.items():
        kind = protocol.split(":")[1]
        expected = [100 * stats.get_group((kind, app)).mean() for app in ("stencil", "cholesky")]
        assert values == pytest.approx(expected)  # % of the means over the 3 seeds
    # Error bars: the 95 % confidence interval of each mean, above an overhead of −100 %.
    assert len(bar_containers(ax)) == 3
    for container in bar_containers(ax):
        assert container.errorbar is not None
        segments = container.errorbar.lines[2][0].get_segments()
        kind = gid(container).split(":")[1]
        for segment, app in zip(segments, ("stencil", "cholesky")):
            low, high = mean_interval(stats.get_group((kind, app)).tolist(), floor=-1.0)
            assert sorted(segment[:, 1]) == pytest.approx([100 * low, 100 * high], abs=1e-9)
    assert ax.get_ylabel() == "overhead (%)" and ax.get_xlabel() == "application"
    assert ax.get_legend().get_title().get_text() == "protocol"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["stencil", "cholesky"]
    assert_beside(ax.get_legend(), ax)
    assert_words(ax)
    assert "mean of 3 runs, 95% CI" in ax.get_title()


def test_bars_of_one_run_per_point_have_no_error_bars(protocol_rows):
    ax = plots.protocol_bars(protocol_rows[protocol_rows["seed"] == 1], "makespan")
    assert bar_containers(ax) and all(c.errorbar is None for c in bar_containers(ax))
    assert ax.get_ylabel() == "makespan (s)" and "mean of" not in ax.get_title()


def test_a_missing_column_is_named(protocol_rows):
    with pytest.raises(KeyError, match="'recovery_seconds'"):
        plots.protocol_bars(protocol_rows, "recovery_seconds")
    with pytest.raises(KeyError, match="'platform.nodes'"):
        plots.protocol_bars(protocol_rows, "overhead", group="platform.nodes")
    without = protocol_rows.drop(columns=["overhead_checkpointing", "overhead_failures"])
    with pytest.raises(KeyError, match=r"overhead_checkpointing.*reference"):
        plots.overhead_split(without)
    with pytest.raises(KeyError, match="'protocol.period_s'"):
        plots.makespan_vs_period(protocol_rows, mtbf=0.1)
    # A default group that the rows lack is no error: one group.
    stencil = protocol_rows[protocol_rows["application.type"] == "stencil"].drop(
        columns=[c for c in protocol_rows.columns if c.startswith("application.")])
    ax = plots.protocol_bars(stencil, "overhead")
    assert sum(len(c.patches) for c in bar_containers(ax)) == 3


def test_rows_that_are_not_ok_are_left_out_with_a_warning(protocol_rows):
    rows = protocol_rows.copy()
    rows.loc[rows.index[0], "status"] = "failed"
    rows.loc[rows.index[0], "reason"] = "time limit reached"
    rows.loc[rows.index[0], "overhead"] = 1000.0
    with pytest.warns(UserWarning, match="1 of 18 rows are not ok.*time limit"):
        ax = plots.protocol_bars(rows, "overhead")
    assert max(max(h) for h in bar_heights(ax, "bars:").values()) < 1000 * 100 / 3


def test_averaging_over_another_varied_column_warns(period_rows):
    with pytest.warns(UserWarning, match="differ in protocol.period"):
        plots.protocol_bars(period_rows, "makespan")


def test_overhead_split_stacks_checkpointing_and_failures(protocol_rows):
    ax = plots.overhead_split(protocol_rows)
    means = protocol_rows.groupby(["protocol.type", "application.type"])[["overhead_checkpointing", "overhead_failures",
                                                                          "overhead"]].mean()
    bars = {gid(c): c.patches[0] for c in bar_containers(ax) if gid(c)}
    assert len(bars) == 2 * 3 * 2
    for (protocol, application), row in means.iterrows():
        bottom, top = bars[f"checkpointing:{protocol}:{application}"], bars[f"failures:{protocol}:{application}"]
        assert bottom.get_height() == pytest.approx(100 * row["overhead_checkpointing"])
        assert top.get_y() == pytest.approx(bottom.get_height())
        assert top.get_y() + top.get_height() == pytest.approx(100 * row["overhead"], abs=1e-6)
        assert top.get_hatch() and not bottom.get_hatch()
    assert means.loc["none", "overhead_checkpointing"].abs().max() == 0
    # Error bars of both parts, 12 each.
    errorbars = [c for c in ax.containers if type(c).__name__ == "ErrorbarContainer"]
    assert sorted(gid(c) for c in errorbars) == ["ci:checkpointing"] * 6 + ["ci:total"] * 6
    assert "%" in ax.get_ylabel()
    titles = [a.get_title().get_text() for a in ax.artists + [ax.get_legend()] if hasattr(a, "get_title")]
    assert "protocol" in titles and "overhead" in titles
    assert_words(ax)


# ----- sweep rows: lines and the period


def test_lines_aggregate_the_seeds(period_rows):
    ax = plots.lines(period_rows, "protocol.period_s", "overhead")
    (container,) = [c for c in ax.containers if type(c).__name__ == "ErrorbarContainer"]
    line = container.lines[0]
    means = period_rows.groupby("protocol.period_s")["overhead"].mean()
    assert list(line.get_xdata()) == list(means.index) and list(line.get_ydata()) == pytest.approx(100 * means.values)
    assert container.has_yerr
    assert ax.get_xlabel() == "checkpoint period (s)" and ax.get_ylabel() == "overhead (%)"
    with pytest.raises(TypeError, match="protocol.period_s"):
        plots.lines(period_rows, "protocol.period", "overhead")


def test_overhead_vs_checkpoints_on_a_sweep():
    rows = pd.DataFrame({"point": range(6), "id": list("abcdef"), "checkpoints.count": [1, 1, 2, 2, 4, 4],
                         "seed": [1, 2] * 3, "status": ["ok"] * 6, "overhead": [0.1, 0.2, 0.15, 0.25, 0.3, 0.5]})
    ax = plots.overhead_vs_checkpoints(rows)
    (container,) = [c for c in ax.containers if type(c).__name__ == "ErrorbarContainer"]
    assert list(container.lines[0].get_ydata()) == pytest.approx([15, 20, 40])
    assert ax.get_xlabel() == "checkpoints" and ax.get_ylabel() == "overhead (%)"


def label_boxes(ax):
    ax.figure.canvas.draw()
    return {t.get_gid(): t.get_bbox_patch().get_window_extent() for t in ax.texts if str(t.get_gid()).startswith("label:")}


def test_makespan_vs_period_draws_the_model_and_labels_apart(period_rows):
    mtbf = 0.4 / 4
    ax = plots.makespan_vs_period(period_rows, mtbf=mtbf)
    (model,) = [line for line in ax.get_lines() if line.get_gid() == "model"]
    assert len(model.get_xdata()) >= 50
    c, w = period_rows["checkpoint_duration"].mean(), period_rows["reference_makespan"].mean()
    tau = model.get_xdata()[25]
    assert model.get_ydata()[25] == pytest.approx(ftsim.analysis.daly_wall_time(tau, c, mtbf, 0.0, w))
    boxes = label_boxes(ax)
    assert set(boxes) == {"label:Young", "label:Daly", "label:optimum"}
    for a in boxes:
        for b in boxes:
            assert a == b or not boxes[a].overlaps(boxes[b]), f"{a} overprints {b}"
        assert not boxes[a].overlaps(ax.get_legend().get_window_extent()), f"{a} is under the legend"
    assert_beside(ax.get_legend(), ax)
    # Young's and Daly's periods are close here: without moving, their labels would overlap.
    young, daly = ftsim.analysis.young(c, mtbf), ftsim.analysis.daly(c, mtbf)
    assert abs(young - daly) < 0.2 * daly
    sim = [c for c in ax.containers if type(c).__name__ == "ErrorbarContainer"]
    assert len(sim) == 1 and sim[0].has_yerr
    assert ax.get_xlabel() == "checkpoint period τ (s)" and ax.get_ylabel() == "makespan (s)"
    assert_words(ax)


def test_period_labels_stay_apart_on_a_narrow_figure():
    rows = pd.DataFrame({"protocol.period_s": [1.0, 2.0, 4.0], "makespan": [10.0, 9.0, 9.5],
                         "checkpoint_duration": [0.1] * 3, "reference_makespan": [8.0] * 3})
    _, ax = plt.subplots(figsize=(3, 3))
    plots.makespan_vs_period(rows, mtbf=1000.0, ax=ax)
    boxes = list(label_boxes(ax).values())
    assert len(boxes) == 3
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


# ----- one run


def marks(ax, gid):
    lines = [line for line in ax.get_lines() if line.get_gid() == gid]
    return sum(len(line.get_xdata()) for line in lines)


def test_checkpoint_gantt_draws_failures_recoveries_and_the_makespan(run_with_failures):
    r = run_with_failures
    ax = plots.checkpoint_gantt(r)
    assert marks(ax, "failures") == len(r.failures) == 2
    assert sorted(marks_x for line in ax.get_lines() if line.get_gid() == "failures"
                  for marks_x in line.get_xdata()) == pytest.approx(sorted(r.failures["time"]))
    recoveries = [p for p in ax.patches if p.get_gid() == "recovery"]
    assert len(recoveries) == 2
    for patch, (_, f) in zip(recoveries, r.failures.iterrows()):
        xs = patch.get_xy()[:, 0]
        assert (xs.min(), xs.max()) == pytest.approx((f["time"], f["recovered_at"]))
    (makespan,) = [line for line in ax.get_lines() if line.get_gid() == "makespan"]
    assert makespan.get_xdata()[0] == pytest.approx(r.makespan)
    committed = r.checkpoints["committed"].notna().sum()
    assert len([p for p in ax.patches if p.get_gid() == "checkpoint"]) == committed > 0
    assert {"failure", "recovery of the failed node", "makespan"} <= {t.get_text() for t in ax.get_legend().get_texts()}
    assert ax.get_xlabel() == "simulated time (s)"
    assert_words(ax)


def test_node_timeline_of_a_run(run_with_failures):
    r = run_with_failures
    ax = plots.node_timeline(r)
    tasks = [c for c in ax.collections if c.get_gid() == "tasks"]
    assert sum(len(c.get_paths()) for c in tasks) == r["executions"]  # every execution, as a bar
    failures = [line for line in ax.get_lines() if line.get_gid() == "failures"]
    assert marks(ax, "failures") == 2
    assert list(failures[0].get_ydata()) == list(r.failures["node"])  # on the failed node's lane
    recoveries = [p for p in ax.patches if p.get_gid() == "recovery"]
    assert [p.get_y() + p.get_height() / 2 for p in recoveries] == pytest.approx(list(r.failures["node"]))
    assert [p.get_x() + p.get_width() for p in recoveries] == pytest.approx(list(r.failures["recovered_at"]))
    assert [line.get_xdata()[0] for line in ax.get_lines() if line.get_gid() == "makespan"] == [r.makespan]
    assert [line.get_xdata()[0] for line in ax.get_lines() if line.get_gid() == "reference makespan"] == \
        [r.reference_makespan]
    assert len([p for p in ax.patches if p.get_gid() == "checkpoint"]) == r.checkpoints["committed"].notna().sum()
    assert [t.get_text() for t in ax.get_yticklabels()] == [f"node {n}" for n in range(4)]
    # The same run as a density, and without its trace (no tasks, the rest drawn).
    dense = plots.node_timeline(r, tasks="density", ax=plt.subplots()[1])
    assert marks(dense, "failures") == 2 and len(dense.images) == 1
    from ftsim._result import Result
    bare = plots.node_timeline(Result(r.to_dict()), ax=plt.subplots()[1])
    assert marks(bare, "failures") == 2 and not bare.images and "trace=True" in bare.get_title()


def synthetic_run(nodes=1000, cores=4, failures=((17, 3.0, 4.5), (500, 6.0, 7.0), (999, 8.0, None))):
    """A Result of ``nodes`` nodes busy from 0 to 10 s, every node running one task per core per second."""
    from ftsim._result import Result
    events = [{"ph": "M", "name": "thread_name", "pid": n, "tid": c, "args": {"name": f"core {c}"}}
              for n in range(nodes) for c in range(cores)]
    events += [{"ph": "M", "name": "process_name", "pid": n, "args": {"name": f"node {n}"}} for n in range(nodes)]
    rng = np.random.default_rng(1)
    for n in range(nodes):
        for c in range(cores):
            for k in range(10):
                busy = 1e6 * (0.5 if n < nodes // 2 else 1.0)  # the first half busy half of the time
                events.append({"ph": "X", "name": f"T{k}", "cat": "GEMM", "pid": n, "tid": c, "ts": k * 1e6,
                               "dur": busy - rng.uniform(0, 1)})
    results = {"name": "synthetic", "protocol": "global", "complete": True, "makespan": 10.0, "failure_reason": None,
               "oracle": {"ok": True}, "reference": None, "nodes": [{"executions": 10 * cores}] * nodes,
               "checkpoints": [{"id": 1, "process": None, "started": 2.0, "saved": 2.5, "committed": 2.5, "bytes": 1,
                                "aborted": False}],
               "failures": [{"time": t, "node": n, "recovered_at": end} for n, t, end in failures],
               "config": {"platform": {"nodes": nodes, "cores_per_node": cores}}}
    return Result(results, trace={"traceEvents": events})


def test_node_timeline_at_1000_nodes_aggregates_lanes():
    r = synthetic_run()
    ax = plots.node_timeline(r, max_lanes=50, bins=100)
    (image,) = ax.images
    density = np.asarray(image.get_array())
    assert density.shape == (50, 100)  # 50 lanes of 20 nodes, not 1,000
    assert density[:25].mean() == pytest.approx(50, abs=0.5) and density[25:].mean() == pytest.approx(100, abs=0.5)
    assert density.min() >= 0 and density.max() <= 100 + 1e-9
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0] == "nodes 0–19" and len(labels) <= 32 and ax.get_ylabel() == "nodes, 20 per lane"
    (failures,) = [line for line in ax.get_lines() if line.get_gid() == "failures"]
    assert list(failures.get_ydata()) == [17 // 20, 500 // 20, 999 // 20]
    recoveries = [p for p in ax.patches if p.get_gid() == "recovery"]
    assert [p.get_x() + p.get_width() for p in recoveries] == pytest.approx([4.5, 7.0, 10.0])  # unrecovered: to the end
    assert [c.get_label() for c in ax.figure.axes[1:]] == ["<colorbar>"]
    assert ax.figure.axes[1].get_ylabel() == "cores busy (%)"


# ----- saving


@pytest.mark.parametrize("suffix,magic", [(".pdf", b"%PDF"), (".svg", b"<?xml"), (".png", b"\x89PNG")])
def test_save_writes_each_format(run_with_failures, tmp_path, suffix, magic):
    ax = plots.checkpoint_gantt(run_with_failures, path=tmp_path / "gantt" / f"g{suffix}")
    written = tmp_path / "gantt" / f"g{suffix}"
    assert written.stat().st_size > 1000 and written.read_bytes().startswith(magic)
    files = plots.save(ax, tmp_path / "again" / "g", formats=["pdf", "svg", "png"])
    assert [f.suffix for f in files] == [".pdf", ".svg", ".png"] and all(f.stat().st_size > 1000 for f in files)


def test_save_refuses_an_unknown_format(tmp_path):
    _, ax = plt.subplots()
    with pytest.raises(ValueError, match=r"\.pdf, \.svg or \.png"):
        plots.save(ax.figure, tmp_path / "figure.jpeg")


def test_every_plot_saves(protocol_rows, period_rows, run_with_failures, tmp_path):
    calls = {"bars": lambda p: plots.protocol_bars(protocol_rows, path=p),
             "split": lambda p: plots.overhead_split(protocol_rows, path=p),
             "lines": lambda p: plots.lines(period_rows, "protocol.period_s", "makespan", path=p),
             "period": lambda p: plots.makespan_vs_period(period_rows, mtbf=0.1, path=p),
             "timeline": lambda p: plots.node_timeline(run_with_failures, path=p),
             "gantt": lambda p: plots.checkpoint_gantt(run_with_failures, path=p)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a sweep's rows are drawn without a warning
        for name, call in calls.items():
            call(tmp_path / f"{name}.svg")
            assert (tmp_path / f"{name}.svg").stat().st_size > 1000, name


# ----- variants of one protocol


def test_variants_of_a_protocol_are_bars_of_their_own():
    # A sweep varying protocol.type and, for global, where it checkpoints: the two globals are
    # not averaged together (nor is the period, drawn on the x axis of lines, a variant).
    rows = pd.DataFrame({"point": range(9), "id": list("abcdefghi"),
                         "protocol.type": ["none", "global", "global"] * 3,
                         "protocol.at": [None, "cuts", "period"] * 3, "seed": [1, 1, 1, 2, 2, 2, 3, 3, 3],
                         "status": ["ok"] * 9, "overhead": [0.0, 0.1, 0.3, 0.0, 0.2, 0.4, 0.0, 0.15, 0.35]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = plots.protocol_bars(rows)
    heights = bar_heights(ax, "bars:")
    assert heights == {"bars:none": [0.0], "bars:global (at cuts)": pytest.approx([15.0]),
                       "bars:global (at period)": pytest.approx([35.0])}
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["none", "global (at cuts)", "global (at period)"]
    periods = rows.assign(**{"protocol.period": ["1s", "2s", "1s", "2s", "1s", "2s", "1s", "2s", "1s"],
                             "protocol.period_s": [1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0]})
    periods = periods[["point", "id", "protocol.type", "protocol.period", "protocol.period_s", "seed", "status",
                       "overhead"]]
    ax = plots.lines(periods, "protocol.period_s", "overhead", ax=plt.subplots()[1])
    assert sorted(t.get_text() for t in ax.get_legend().get_texts()) == ["global", "none"]
