"""The send queue (issue 41, item 1; docs/runtime.md#send-queue): /platform/network/send_window
and the buddy protocol's /protocol/priority. A window orders what fair sharing mixes; protocols and
their failures stay correct under it; bad values are refused with their JSON path."""
import json

import pytest


def makespan(ftsim, config, out, *overrides):
    result = ftsim("run", config, "-o", out, *[a for o in overrides for a in ("--set", o)])
    assert result.returncode == 0, result.stderr
    return json.loads((out / "results.json").read_text())


def test_a_window_orders_what_fair_sharing_mixes(ftsim, source_dir, tmp_path):
    # The Lion platform at 60 tiles loads the network: sharing every message delays them all, an
    # order delivers the first ones early (docs/runtime.md#send-queue: 372 ms against 168 ms).
    config = source_dir / "configs" / "papers" / "lion2020-platform.json"
    shared = makespan(ftsim, config, tmp_path / "shared", "application.tiles=60")["makespan"]
    ordered = makespan(ftsim, config, tmp_path / "ordered", "application.tiles=60",
                       "platform.network.send_window=1")["makespan"]
    assert ordered < 0.6 * shared, (shared, ordered)
    # The window is part of the config the results record.
    results = json.loads((tmp_path / "ordered" / "results.json").read_text())
    assert results["config"]["platform"]["network"]["send_window"] == 1


@pytest.mark.parametrize("name", ["cholesky-buddy", "cholesky-global", "cholesky-cck", "cholesky-uncoordinated",
                                  "cholesky-lineage", "stencil-cck-flush-all", "cg-uncoordinated"])
def test_protocols_with_failures_stay_correct_under_a_window(ftsim, source_dir, tmp_path, name):
    # Every run checks the digest oracle: a reordering that broke a protocol's FIFO assumptions
    # (a marker overtaking the data before it) fails the run.
    config = source_dir / "configs" / "protocols" / f"{name}.json"
    results = makespan(ftsim, config, tmp_path / "out", "platform.network.send_window=1")
    assert results["failures"], "the config injects failures"


def test_checkpoint_priority_is_read_and_checked(ftsim, source_dir, tmp_path):
    config = source_dir / "configs" / "protocols" / "cholesky-buddy.json"
    for priority in ("max", "min", "iteration", 7):
        makespan(ftsim, config, tmp_path / f"p{priority}", "platform.network.send_window=2",
                 f"protocol.priority={json.dumps(priority)}")
    result = ftsim("run", config, "-o", tmp_path / "bad", "--set", "protocol.priority=\"highest\"")
    assert result.returncode == 2
    assert "/protocol/priority" in result.stderr and "iteration" in result.stderr
    result = ftsim("run", config, "-o", tmp_path / "bad2", "--set", "platform.network.send_window=-1")
    assert result.returncode == 2
    assert "/platform/network/send_window" in result.stderr
