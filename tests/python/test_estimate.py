"""ftsim estimate (the rare-event estimator) and ftsim failures fit (failure models from real logs):
docs/advise.md. The fits are checked against SciPy's maximum likelihood on the LANL data; the
estimator against brute force on the same simulations' budget."""
import json
import math

import numpy as np
import pytest
from scipy import stats

LANL = "data/failure-logs/lanl-1996-2005.csv.xz"


def test_failures_fit_matches_scipy_on_the_lanl_log(ftsim, source_dir, tmp_path):
    out = tmp_path / "fit.json"
    result = ftsim("failures", "fit", source_dir / LANL, "--format", "lanl", "--system", "20", "--json", out)
    assert result.returncode == 0, result.stderr
    assert "23739 failures read" in result.stdout
    fit = json.loads(out.read_text())["systems"][0]
    assert fit["system"] == 20
    # The same gaps, independently: LANL system 20's failure dates, distinct, sorted.
    import lzma
    import csv
    from datetime import datetime, timezone
    with lzma.open(source_dir / LANL, "rt", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["System"] == "20"]
    dates = sorted({datetime.strptime(r["Prob Started"], "%m/%d/%Y %H:%M").replace(tzinfo=timezone.utc).timestamp()
                    for r in rows})
    gaps = np.diff(dates)
    whole = fit["system_fit"]
    assert whole["gaps"] == len(gaps)
    assert whole["exponential"]["mtbf"]["value"] == pytest.approx(gaps.mean(), rel=1e-9)
    shape, _, scale = stats.weibull_min.fit(gaps, floc=0)
    assert whole["weibull"]["shape"]["value"] == pytest.approx(shape, rel=2e-3)
    assert whole["weibull"]["scale"]["value"] == pytest.approx(scale, rel=2e-3)
    # Exact exponential interval: 2n mean / chi2.
    n = len(gaps)
    assert whole["exponential"]["mtbf"]["low"] == pytest.approx(2 * n * gaps.mean() / stats.chi2.ppf(0.95, 2 * n), rel=1e-3)
    assert whole["exponential"]["mtbf"]["high"] == pytest.approx(2 * n * gaps.mean() / stats.chi2.ppf(0.05, 2 * n), rel=1e-3)
    for law in ("weibull",):
        for key in ("shape", "scale", "mtbf"):
            i = whole[law][key]
            assert i["low"] < i["value"] < i["high"]
    # HPC failures come early (Schroeder & Gibson 2006: decreasing hazard, shapes below 1).
    assert whole["weibull"]["shape"]["high"] < 1 and whole["weibull_preferred"]
    assert fit["node_fit"]["weibull"]["shape"]["value"] < 1


def test_failures_fit_window_and_bad_input(ftsim, source_dir, tmp_path):
    early = ftsim("failures", "fit", source_dir / LANL, "--format", "lanl", "--system", "2", "--to", "2003-01-01",
                  "--json", tmp_path / "a.json")
    late = ftsim("failures", "fit", source_dir / LANL, "--format", "lanl", "--system", "2", "--from", "2003-01-01",
                 "--json", tmp_path / "b.json")
    assert early.returncode == 0 and late.returncode == 0, early.stderr + late.stderr
    a = json.loads((tmp_path / "a.json").read_text())["systems"][0]
    b = json.loads((tmp_path / "b.json").read_text())["systems"][0]
    assert a["last"] < b["first"]
    missing = ftsim("failures", "fit", source_dir / LANL, "--format", "lanl", "--system", "999")
    assert missing.returncode == 2 and "no failure of system 999" in missing.stderr
    bad_date = ftsim("failures", "fit", source_dir / LANL, "--format", "lanl", "--from", "yesterday")
    assert bad_date.returncode == 2 and "--from" in bad_date.stderr


def small_config(tmp_path, mtbf):
    config = {"name": "estimate-small",
              "application": {"type": "stencil", "tiles": [4, 4], "tile_size": 256, "iterations": 10},
              "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": 5},
              "checkpoints": {"count": 2, "buddy": "next"},
              "failures": {"model": "exponential", "mtbf": mtbf, "downtime": "0.2ms"},
              "protocol": {"type": "global", "at": "cuts", "storage": "buddy"}}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    return path


def test_estimate_agrees_with_brute_force_and_is_narrower(ftsim, tmp_path):
    # A failure before the end in about one run in four: brute force sees enough of them to compare.
    config = small_config(tmp_path, "40ms")
    out = tmp_path / "est"
    result = ftsim("estimate", config, "--method", "both", "-n", "80", "-j", "2", "-o", out, timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "seed base 0" in result.stderr
    estimate = json.loads((out / "estimate.json").read_text())
    assert 0.05 < estimate["probability"] < 0.6
    by = {e["method"]: e for e in estimate["estimates"]}
    c, b = by["conditioned"]["makespan"], by["brute"]["makespan"]
    assert c["low"] <= b["high"] and b["low"] <= c["high"], (c, b)
    assert c["high"] - c["low"] < b["high"] - b["low"]
    # The split: checkpointing is exact (failure-free), failures carry the interval.
    assert by["conditioned"]["overhead_checkpointing"] == pytest.approx(
        estimate["failure_free_makespan"] / estimate["reference_makespan"] - 1)
    assert by["conditioned"]["overhead"]["mean"] == pytest.approx(
        by["conditioned"]["overhead_checkpointing"] + by["conditioned"]["overhead_failures"]["mean"])
    # Every conditioned run had a failure; the sweep files are there to run elsewhere.
    rows = [json.loads(line) for line in (out / "conditioned" / "rows.jsonl").read_text().splitlines()]
    assert len(rows) == 80 and all(r["failure_count"] >= 1 for r in rows)
    assert (out / "conditioned.json").exists()
    # Resumed: the same command runs nothing again and gives the same answer.
    again = ftsim("estimate", config, "--method", "both", "-n", "80", "-o", out, timeout=900)
    assert again.returncode == 0
    assert json.loads((out / "estimate.json").read_text())["estimates"] == estimate["estimates"]


def test_estimate_at_a_one_day_mtbf_has_an_interval(ftsim, tmp_path):
    config = small_config(tmp_path, "1d")
    out = tmp_path / "est"
    result = ftsim("estimate", config, "-n", "20", "-j", "2", "-o", out, timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    e = json.loads((out / "estimate.json").read_text())["estimates"][0]
    assert e["method"] == "conditioned"
    assert e["probability"] < 1e-6
    assert e["overhead_failures"]["high"] > e["overhead_failures"]["low"] > 0


def test_estimate_refuses_what_it_cannot_condition(ftsim, tmp_path, source_dir):
    listed = ftsim("estimate", source_dir / "configs/examples/cholesky-small.json")
    assert listed.returncode == 2 and "/failures/model" in listed.stderr
    config = small_config(tmp_path, "1s")
    document = json.loads(config.read_text())
    document["failures"] = {"model": "list", "events": [{"time": "1ms", "node": 0}], "first_before": "1ms"}
    config.write_text(json.dumps(document))
    run = ftsim("run", config, "-o", tmp_path / "r")
    assert run.returncode == 2 and "/failures/first_before" in run.stderr
    document["failures"] = {"model": "exponential", "mtbf": "1s", "first_before": "1ms"}
    config.write_text(json.dumps(document))
    preset = ftsim("estimate", config, "-o", tmp_path / "e")
    assert preset.returncode == 2 and "/failures/first_before" in preset.stderr


def test_first_before_weights_the_run(ftsim, tmp_path):
    config = small_config(tmp_path, "2s")
    run = ftsim("run", config, "-o", tmp_path / "r", "--set", "failures.first_before=1ms")
    assert run.returncode == 0, run.stderr
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert results["failure_condition"]["probability"] == pytest.approx(1 - math.exp(-4 * 0.001 / 2))
    assert results["failures"][0]["time"] < 0.001


def test_long_job_estimate_with_its_whole_job_check(ftsim, tmp_path):
    config = small_config(tmp_path, "1s")
    document = json.loads(config.read_text())
    document["application"]["iterations"] = 120
    document["checkpoints"] = {"every": 4, "buddy": "next"}
    config.write_text(json.dumps(document))
    out = tmp_path / "long"
    result = ftsim("estimate", config, "--long-job", "-n", "20", "--check", "4", "-j", "2", "-o", out, timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    e = json.loads((out / "estimate.json").read_text())
    assert e["method"] == "long-job"
    assert e["short_job"]["iterations"] == 24  # 6 periods of 4
    assert e["failure_cost"]["samples"] == 20 and e["failure_cost"]["mean"] > 0
    assert e["whole_job_failure_cost"]["samples"] == 4
    assert e["makespan"]["low"] <= e["makespan"]["mean"] <= e["makespan"]["high"]
    assert e["makespan"]["mean"] > e["failure_free_makespan"]
    assert isinstance(e["flags"], list)
    assert "cost of one failure in the whole job (check)" in result.stdout
    # global rolls every node back to its last commit: the regenerative estimate, its restart measured.
    assert e["model"] == "regenerative" and "regenerative" in result.stdout
    assert e["restart"]["mean"] > 0 and e["failure_free_checkpoints"] >= 1
    lineage = dict(document, protocol={"type": "lineage"})
    lineage.pop("checkpoints")
    config.write_text(json.dumps(lineage))
    refused = ftsim("estimate", config, "--long-job", "-o", tmp_path / "l")
    assert refused.returncode == 2 and "/protocol/type" in refused.stderr


def test_long_job_flags_a_saturated_uncoordinated_schedule(ftsim, tmp_path):
    # Checkpoints of 2 ms every 0.8 ms: each process skips checkpoint times and a failure slows the
    # rest of the job (docs/advise.md#long-jobs): flagged, and the renewal estimate (not a rollback).
    config = {"name": "saturated", "application": {"type": "cg", "grid": 256, "blocks": 8, "iterations": 150},
              "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": 5,
                           "storage": {"hosts": 1, "bandwidth": "50GB/s"}},
              "failures": {"model": "exponential", "mtbf": "2s", "downtime": "1ms"},
              "protocol": {"type": "uncoordinated", "logging": "send-deterministic", "schedule": "clusters",
                           "clusters": 2, "period": 0.000821}}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    out = tmp_path / "long"
    result = ftsim("estimate", path, "--long-job", "-n", "4", "--check", "0", "-j", "2", "-o", out, timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    e = json.loads((out / "estimate.json").read_text())
    assert e["model"] == "renewal" and e["restart"] is None
    assert any("saturated" in f for f in e["flags"]), e["flags"]
    assert "warning: a process's checkpoint lasts" in result.stdout
