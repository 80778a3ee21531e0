"""ftsim advise (docs/advise.md): a ranking of protocols at their best checkpoint period with 90%
intervals, from the CLI and from Python (ftsim.advise, ftsim.estimate, ftsim.fit_failures,
ftsim.plots.advice)."""
import json

import pytest

CONFIG = {"name": "advise-small",
          "application": {"type": "stencil", "tiles": [4, 4], "tile_size": 256, "iterations": 240},
          "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": 5,
                       "storage": {"hosts": 1, "bandwidth": "2GB/s"}},
          "failures": {"model": "exponential", "mtbf": "1s", "downtime": "1ms"}}


def test_advise_ranks_protocols_with_intervals(ftsim, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(CONFIG))
    result = ftsim("advise", path, "--mtbf", "0.2s", "--protocols", "global,buddy,lineage", "-n", "6", "-j", "2",
                   "--budget", "120", "-o", tmp_path / "adv", timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "seed base 0" in result.stderr
    advice = json.loads((tmp_path / "adv" / "advice.json").read_text())
    assert sorted(advice["ranking"]) == ["buddy", "global"]
    assert 0 <= advice["p_best_beats_second"] <= 1
    by = {p["protocol"]: p for p in advice["protocols"]}
    assert "periodic" in by["lineage"]["skipped"]
    for name in ("global", "buddy"):
        p = by[name]
        assert p["checkpoint_cost"] > 0 and p["daly_period"] > 0
        assert len(p["candidates"]) >= 3
        assert p["recommended"] in [c["every"] for c in p["candidates"]]
        best = min(p["candidates"], key=lambda c: c["overhead"]["mean"])
        assert best["every"] == p["recommended"]
        for c in p["candidates"]:
            assert c["overhead"]["low"] <= c["overhead"]["mean"] <= c["overhead"]["high"]
    assert by["global"]["daly_overhead"] is not None and by["buddy"]["daly_overhead"] is None
    assert "rank" in result.stdout and "P(" in result.stdout


def test_advise_refuses_what_it_cannot_search(ftsim, tmp_path, source_dir):
    cholesky = ftsim("advise", source_dir / "configs/examples/cholesky-small.json", "--mtbf", "1d")
    assert cholesky.returncode == 2 and "/application/type" in cholesky.stderr
    path = tmp_path / "config.json"
    document = dict(CONFIG)
    document["failures"] = {"model": "list", "events": [{"time": "1ms", "node": 0}]}
    path.write_text(json.dumps(document))
    no_law = ftsim("advise", path)
    assert no_law.returncode == 2 and "/failures/model" in no_law.stderr
    bad_mtbf = ftsim("advise", path, "--mtbf", "soon")
    assert bad_mtbf.returncode == 2 and "--mtbf" in bad_mtbf.stderr


def test_python_advise_estimate_fit_and_plot(source_dir, tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    import ftsim

    frame = ftsim.advise(CONFIG, mtbf="0.2s", protocols=["global", "buddy"], samples=4, jobs=2, budget=60)
    assert set(frame["protocol"]) == {"global", "buddy"}
    assert frame.groupby("protocol")["recommended"].sum().eq(1).all()
    assert set(frame["rank"]) == {1, 2}
    ax = ftsim.plots.advice(frame, path=tmp_path / "advice.png")
    assert (tmp_path / "advice.png").exists() and ax.get_xscale() == "log"

    document = dict(CONFIG, checkpoints={"every": 60, "buddy": "next"},
                    protocol={"type": "global", "at": "cuts", "storage": "stable"})
    estimate = ftsim.estimate(document, samples=10, method="both", jobs=2, **{"failures.mtbf": "0.5s"})
    assert list(estimate["method"]) == ["conditioned", "brute"]
    assert (estimate["overhead_low"] <= estimate["overhead"]).all()
    assert estimate.attrs["estimate"]["failure_free_makespan"] > 0

    fits = ftsim.fit_failures(source_dir / "data/failure-logs/lanl-1996-2005.csv.xz", system=20)
    assert list(fits["level"]) == ["system", "node"]
    assert (fits["shape"] < 1).all()
    with pytest.raises(ftsim.ConfigError):
        ftsim.estimate(dict(CONFIG, failures={"model": "none"}), samples=4)


def test_advise_budget_starts_no_simulation_after_it(ftsim, tmp_path):
    # A budget spent before the first protocol: no protocol is estimated, each says why, and the
    # advice still lists them (the search goes round the protocols, docs/advise.md).
    path = tmp_path / "config.json"
    path.write_text(json.dumps(CONFIG))
    result = ftsim("advise", path, "--mtbf", "0.2s", "--protocols", "global,buddy", "-n", "4", "--budget", "1e-6",
                   "-o", tmp_path / "adv", timeout=300)
    advice = json.loads((tmp_path / "adv" / "advice.json").read_text())
    assert advice["ranking"] == []
    for p in advice["protocols"]:
        assert "budget" in p["skipped"] and "--budget" in p["skipped"], p
    assert "global: not tried: the budget" in result.stdout
    assert not (tmp_path / "adv" / "global").exists()


def test_advise_levels_picks_a_subset_and_its_periods(ftsim, tmp_path, source_dir):
    # The example's levels (buddy, XOR, stable) on a shorter job; all failures node or group ones.
    config = json.loads((source_dir / "configs" / "examples" / "advise-levels.json").read_text())
    config["application"]["iterations"] = 120
    config["failures"]["classes"] = {"node": 0.5, "group": 0.3, "job": 0.2}
    path = tmp_path / "levels.json"
    path.write_text(json.dumps(config))
    result = ftsim("advise", path, "--levels", "-n", "4", "-j", "2", "-o", tmp_path / "adv", timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    advice = json.loads((tmp_path / "adv" / "advice.json").read_text())
    subsets = {" + ".join(s["levels"]): s for s in advice["subsets"]}
    assert sorted(subsets) == ["buddy + stable", "buddy + xor + stable", "stable", "xor + stable"]
    assert config["failures"]["mtbf"] == "4s"
    rate = 16 / 4.0  # failure events per second: 16 nodes, a 4 s MTBF each
    # Node failures go to the first level, group failures past a buddy level (its buddy is in its
    # rack) to the XOR level or stable storage, job failures to stable storage only.
    assert subsets["buddy + stable"]["failure_rate"] == pytest.approx([0.5 * rate, 0.5 * rate])
    assert subsets["xor + stable"]["failure_rate"] == pytest.approx([0.8 * rate, 0.2 * rate])
    assert subsets["buddy + xor + stable"]["failure_rate"] == pytest.approx([0.5 * rate, 0.3 * rate, 0.2 * rate])
    assert subsets["stable"]["failure_rate"] == pytest.approx([rate])
    for s in subsets.values():
        assert all(c > 0 for c in s["cost"]) and s["bound"] <= s["model_overhead"] * 1.0001
        counts = s["counts"]
        assert counts[-1] == 1 and all(a % b == 0 for a, b in zip(counts, counts[1:]))
    best = min(subsets.values(), key=lambda s: s["model_overhead"])
    assert advice["recommended"]["levels"] == best["levels"]
    block = advice["recommended"]["protocol"]
    assert [level["storage"] for level in block["levels"]] == best["levels"]
    assert advice["estimate"]["overhead"]["low"] <= advice["estimate"]["overhead"]["mean"] <= advice["estimate"]["overhead"]["high"]
    assert "recommended (*)" in result.stdout


def test_advise_levels_needs_global_levels(ftsim, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(CONFIG))
    result = ftsim("advise", path, "--levels", "-o", tmp_path / "adv")
    assert result.returncode == 2 and "/protocol" in result.stderr and "--levels" in result.stderr
