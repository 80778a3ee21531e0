"""Who solves the sharing of "flows" (/platform/network/solver, docs/configs.md#sharing-solver):
ftsim's "grouped" solver (the default) or SimGrid's, with its "lazy" or "full" update.

- Every solver gives the hand-computed makespan of two messages sharing two links
  (test_simultaneous_events's case).
- On failure-free examples, where the network is all that differs, their makespans agree within
  SOLVER_TOLERANCE (rounding only), on every topology, on a platform file and with CM02 (SMPI
  within MODEL_TOLERANCE); "IB" refuses "full" and "grouped", and runs "lazy" by default.
- A run whose communications end together differs only in the order they are logged.
- results.json, the summary and `ftsim validate` say which one ran; "nic" refuses the key.
"""
import json

import pytest

from test_contention import with_contention
from test_simultaneous_events import HIGH_FIRST
from test_simultaneous_events import run as run_shared_links

# Full and lazy updates differ by SimGrid's rounding: remains and latencies decremented step by
# step (full) against a completion date computed once (lazy), within its 1e-9 s timing precision.
# A task-based run can turn that into another order of events that end within it; the failure-free
# examples below do not (measured: at most 1e-9 relative).
SOLVER_TOLERANCE = 1e-7


SOLVERS = ("full", "lazy", "grouped")


@pytest.mark.parametrize("solver", SOLVERS)
def test_every_solver_shares_links_as_computed_by_hand(ftsim, tmp_path, solver):
    makespan, order_on_node_1 = run_shared_links(ftsim, tmp_path, False, solver=solver)
    assert makespan == pytest.approx(HIGH_FIRST, rel=1e-9)
    assert len(order_on_node_1) == 2


def failure_free(solver):
    def edit(config):
        config.pop("failures", None)
        config.pop("checkpoints", None)
        config["protocol"] = {"type": "none"}
        config["platform"]["network"]["solver"] = solver
        if "core_gflops" not in config["platform"] and "kernel_models" not in config["platform"]:
            config["platform"]["core_gflops"] = 1
    return edit


def makespans_by_solver(ftsim, source_dir, tmp_path, name, model=None):
    """The failure-free example run under "flows" with each solver: {solver: makespan}."""
    makespans = {}
    for solver in SOLVERS:
        def edit(config):
            failure_free(solver)(config)
            if model:
                config["platform"]["network"]["model"] = model
        config = with_contention(source_dir, tmp_path, name, "flows", edit)
        out = tmp_path / solver
        proc = ftsim("run", config, "-o", out, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        results = json.loads((out / "results.json").read_text())
        assert results["complete"] and results["oracle"]["ok"]
        assert results["network_model"]["solver"] == solver
        assert results["network_model"]["name"] == (model or results["network_model"]["name"])
        assert (f"SimGrid's {solver} sharing solver" in proc.stdout) == (solver != "grouped")
        makespans[solver] = results["makespan"]
    return makespans


@pytest.mark.parametrize("name", ["stencil-small.json", "cg-small.json", "cholesky-small.json",
                                  "platform-fattree.json", "platform-torus.json", "platform-xml.json",
                                  "spmd-alltoall.json"])
def test_failure_free_makespans_agree(ftsim, source_dir, tmp_path, name):
    makespans = makespans_by_solver(ftsim, source_dir, tmp_path, name)
    assert makespans["full"] == pytest.approx(makespans["lazy"], rel=SOLVER_TOLERANCE), makespans
    assert makespans["grouped"] == pytest.approx(makespans["lazy"], rel=SOLVER_TOLERANCE), makespans


# SMPI's latency factors make every message pay a latency phase, which full decrements step by
# step: measured 2e-5 relative (4 ns) on stencil-small.
MODEL_TOLERANCE = {"CM02": SOLVER_TOLERANCE, "SMPI": 1e-4}


@pytest.mark.parametrize("model", ["CM02", "SMPI"])
def test_the_network_models_run_under_both_solvers(ftsim, source_dir, tmp_path, model):
    makespans = makespans_by_solver(ftsim, source_dir, tmp_path, "stencil-small.json", model)
    assert makespans["full"] == pytest.approx(makespans["lazy"], rel=MODEL_TOLERANCE[model]), makespans
    assert makespans["grouped"] == pytest.approx(makespans["lazy"], rel=MODEL_TOLERANCE[model]), makespans


@pytest.mark.parametrize("solver, message", [
    ("full", "SimGrid's \"IB\" model updates its contention penalties"),
    ("grouped", "SimGrid's \"IB\" model has contention penalties of its own, which the \"grouped\" solver does not model"),
])
def test_ib_refuses_full_and_grouped(ftsim, source_dir, tmp_path, solver, message):
    def edit(config):
        failure_free(solver)(config)
        config["platform"]["network"]["model"] = "IB"
    config = with_contention(source_dir, tmp_path, "stencil-small.json", "flows", edit)
    proc = ftsim("run", config, "-o", tmp_path / "refused")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{config}: /platform/network/solver: {message}" in proc.stderr


def test_ib_runs_lazy_by_default(ftsim, source_dir, tmp_path):
    def edit(config):
        failure_free("lazy")(config)
        del config["platform"]["network"]["solver"]
        config["platform"]["network"]["model"] = "IB"
    config = with_contention(source_dir, tmp_path, "stencil-small.json", "flows", edit)
    proc = ftsim("run", config, "-o", tmp_path / "ib")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads((tmp_path / "ib" / "results.json").read_text())["network_model"]["solver"] == "lazy"


def test_nic_refuses_a_solver_and_reports_none(ftsim, source_dir, tmp_path):
    config = with_contention(source_dir, tmp_path, "stencil-small.json", "nic", failure_free("full"))
    proc = ftsim("run", config, "-o", tmp_path / "refused")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{config}: /platform/network/solver: \"nic\" shares no link" in proc.stderr
    config = with_contention(source_dir, tmp_path, "stencil-small.json", "nic")
    proc = ftsim("run", config, "-o", tmp_path / "nic")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads((tmp_path / "nic" / "results.json").read_text())["network_model"]["solver"] is None


def test_validate_names_the_default_solver(ftsim, source_dir):
    proc = ftsim("validate", source_dir / "configs" / "examples" / "stencil-small.json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "sharing solver grouped" in proc.stdout


def test_the_solvers_differ_only_in_the_order_of_simultaneous_events(ftsim, source_dir, tmp_path):
    # A golden log's run (a failure, global checkpoints): SimGrid reports the communications that
    # end at one instant in another order under each update, and nothing else changes. That the
    # order differs also shows that the setting reaches SimGrid.
    path = source_dir / "tests" / "golden" / "lion2020-fig2-global-failure.json"
    golden = json.loads(path.read_text())
    golden.pop("$schema", None)
    golden["application"]["file"] = str((path.parent / golden["application"]["file"]).resolve())
    logs = {}
    for solver in ("full", "lazy"):
        golden["platform"].setdefault("network", {})["solver"] = solver
        config = tmp_path / f"{solver}.json"
        config.write_text(json.dumps(golden))
        proc = ftsim("run", config, "-o", tmp_path / solver, "--log", "all")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        logs[solver] = (tmp_path / solver / "events.log").read_text().splitlines()
    assert logs["full"] != logs["lazy"]

    def by_instant(lines):
        instants = {}
        for line in lines:
            instants.setdefault(line.split("]", 1)[0], []).append(line)
        return {t: sorted(group) for t, group in instants.items()}
    assert by_instant(logs["full"]) == by_instant(logs["lazy"])
