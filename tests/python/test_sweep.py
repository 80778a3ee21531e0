"""`ftsim sweep CONFIG` (docs/sweeps.md): the points of a sweep section (grid, zip, seeds; JSON
pointer and dotted keys), bad sweep sections, a failing point recorded in its row, parallel runs,
interruption and resumption, shards, and the protocol comparison of configs/sweeps/protocols.json.
MPI (`mpirun -np 3 ftsim sweep`) is in tests/mpi/test_mpi_sweep.py."""
import csv
import fcntl
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

SOURCE = Path(os.environ.get("FTSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
PROTOCOLS_SWEEP = SOURCE / "configs" / "sweeps" / "protocols.json"

# A small base config: a Cholesky of 6 x 6 tiles on 2 nodes (a run takes about 0.1 s).
BASE = {
    "name": "t",
    "application": {"type": "cholesky", "tiles": 6, "tile_size": 64},
    "platform": {"nodes": 2, "cores_per_node": 1, "core_gflops": 1},
}


def write_sweep(tmp_path, sweep, name="sweep.json", **base):
    document = json.loads(json.dumps(BASE))
    document.update(base)
    document["sweep"] = sweep
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


def points(ftsim, path, *extra):
    result = ftsim("sweep", path, "--list-json", *extra)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def read_jsonl(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def without_wall_clock(rows):
    """Rows without the columns that measure real time (they differ between two runs of a point)."""
    return [{k: v for k, v in r.items() if k != "wall_seconds" and not k.startswith("wall.")} for r in rows]


def sweep(ftsim, path, out, *extra, timeout=300):
    return ftsim("sweep", path, "-o", out, *extra, timeout=timeout)


def known_protocols(ftsim, tmp_path):
    """Every protocol id ftsim knows, from the loader's list of choices."""
    bad = dict(BASE, protocol={"type": "no-such-protocol"})
    path = tmp_path / "bad-protocol.json"
    path.write_text(json.dumps(bad))
    result = ftsim("validate", path)
    assert result.returncode == 2
    listed = re.search(r"expected one of (.*)$", result.stderr.strip()).group(1)
    return set(re.findall(r'"([^"]+)"', listed))


# ------------------------------------------------------------------------------ points


def test_points_are_the_product_of_zip_grid_and_seeds_first_axis_slowest(ftsim, tmp_path):
    path = write_sweep(tmp_path, {
        "zip": {"/application/tiles": [4, 6], "application.tile_size": [32, 64]},
        "grid": {"/protocol": [{"type": "none"}, {"type": "lineage"}], "platform.cores_per_node": [1, 2, 3]},
        "seeds": 2,
    })
    listed = points(ftsim, path)
    assert len(listed) == 2 * 2 * 3 * 2
    assert [p["point"] for p in listed] == list(range(24))
    assert len({p["id"] for p in listed}) == 24
    # zip first (slowest), then the grid keys (sorted: "/protocol" before "platform..."), seeds last.
    expected = [(t, s, proto, cores, seed) for t, s in [(4, 32), (6, 64)] for proto in ["none", "lineage"]
                for cores in [1, 2, 3] for seed in [1, 2]]
    got = [(p["values"]["application.tiles"], p["values"]["application.tile_size"], p["values"]["protocol.type"],
            p["values"]["platform.cores_per_node"], p["values"]["seed"]) for p in listed]
    assert got == expected
    for p in listed:  # each value is set in the point's config; the rest is the base
        c = p["config"]
        assert c["application"]["tiles"] == p["values"]["application.tiles"]
        assert c["application"]["tile_size"] == p["values"]["application.tile_size"]
        assert c["protocol"]["type"] == p["values"]["protocol.type"]
        assert c["platform"]["cores_per_node"] == p["values"]["platform.cores_per_node"]
        assert c["seed"] == p["values"]["seed"]
        assert c["platform"]["core_gflops"] == 1 and "sweep" not in c
        assert c["name"] == f"t-{p['id']}"


def test_zip_groups_seed_lists_and_added_keys(ftsim, tmp_path):
    path = write_sweep(tmp_path, {
        "zip": [{"platform.nodes": [2, 4]}, {"run.reference": [True, False], "/run/time_limit": ["1h", "2h"]}],
        "seeds": [7, 9],
    })
    listed = points(ftsim, path)
    assert [(p["values"]["platform.nodes"], p["values"]["run.reference"], p["values"]["run.time_limit"], p["values"]["seed"])
            for p in listed] == [(n, r, t, s) for n in [2, 4] for r, t in [(True, "1h"), (False, "2h")] for s in [7, 9]]
    assert listed[0]["config"]["run"] == {"reference": True, "time_limit": "1h"}  # "run" did not exist: added


def test_pointer_and_dotted_keys_name_the_same_key_and_ids_survive_a_grown_sweep(ftsim, tmp_path):
    a = points(ftsim, write_sweep(tmp_path, {"grid": {"/platform/cores_per_node": [1, 2]}}, name="a.json"))
    b = points(ftsim, write_sweep(tmp_path, {"grid": {"platform.cores_per_node": [1, 2, 3]}}, name="b.json",
                                  description="a new description does not change the points"))
    assert [p["id"] for p in a] == [p["id"] for p in b][:2]
    assert [p["values"] for p in a] == [{"platform.cores_per_node": 1}, {"platform.cores_per_node": 2}]
    # A step of digits indexes an array.
    c = points(ftsim, write_sweep(tmp_path, {"grid": {"failures.events.0.node": [0, 1]}}, name="c.json",
                                  failures={"model": "list", "events": [{"time": 1, "node": 0}]}))
    assert [p["config"]["failures"]["events"][0]["node"] for p in c] == [0, 1]


def test_validate_checks_every_point_of_a_sweep(ftsim):
    result = ftsim("validate", PROTOCOLS_SWEEP)
    assert result.returncode == 0, result.stderr
    assert "27 points" in result.stdout


BAD_SWEEPS = [
    ({"grid": {}}, "/sweep/grid: expected a non-empty object"),
    ({"grid": {"platform.nodes": []}}, "/sweep/grid/platform.nodes: expected a non-empty array"),
    ({"grid": {"platform.nodes": 4}}, "/sweep/grid/platform.nodes: expected a non-empty array"),
    ({"grid": {"platform..nodes": [2]}}, "/sweep/grid/platform..nodes: expected a key of the config"),
    ({"grid": {"/platform/~2": [2]}}, "/sweep/grid/~1platform~1~02: expected a key of the config"),
    ({"grid": {"sweep.grid": [2]}}, "/sweep/grid/sweep.grid: a sweep cannot vary its own"),
    ({"grid": {"/platform/nodes": [2], "platform.nodes": [4]}}, "/platform/nodes is varied twice"),
    ({"grid": {"platform": [{}], "platform.nodes": [4]}}, "/platform/nodes overlaps /platform"),
    ({"grid": {"platform.nodes.x": [4]}}, "/sweep/grid/platform.nodes.x: cannot set /platform/nodes/x"),
    ({"zip": {"platform.nodes": [2, 4], "platform.cores_per_node": [1]}},
     "/sweep/zip/platform.nodes: expected 1 value, as many as /sweep/zip/platform.cores_per_node"),
    ({"zip": []}, "/sweep/zip: expected a non-empty array of zip groups"),
    ({"seeds": 0}, "/sweep/seeds: expected an integer in [1, 1000000]"),
    ({"seeds": [1, -2]}, "/sweep/seeds/1: expected a non-negative integer"),
    ({"seeds": [3, 3]}, "/sweep: points 0 and 1 are the same config"),
    ({"grid": {"/seed": [1]}, "seeds": 2}, "/sweep/seeds: /seed is varied twice"),
    ({"gird": {"seed": [1]}}, '/sweep/gird: unknown key "gird" (did you mean "grid"?)'),
    ({}, '/sweep: expected at least one of "grid", "zip" and "seeds"'),
    ([], "/sweep: expected an object"),
    ({"grid": {f"run.k{i}": list(range(10)) for i in range(7)}}, "/sweep: expected at most 1000000 points"),
    # A point whose config does not load: the loader's pointer, the point and its values.
    ({"grid": {"/protocol/type": ["none", "budy"]}},
     '/protocol/type: unknown value "budy" (did you mean "buddy"?); expected one of "buddy", "cck", "example-defer", "example-hold-flush", "example-storage-checkpoint", "global", "lineage", "none", "uncoordinated" '
     "(in sweep point 1 of 2: protocol.type=budy)"),
    ({"grid": {"platform.core_gflops": [1, 0]}}, "/platform/core_gflops: expected a positive number, got 0 (in sweep point 1 of 2"),
]


@pytest.mark.parametrize("section,message", BAD_SWEEPS, ids=[m[:40] for _, m in BAD_SWEEPS])
def test_bad_sweep_sections_are_refused_with_the_pointer(ftsim, tmp_path, section, message):
    path = write_sweep(tmp_path, section)
    for verb in (["sweep", path, "-o", tmp_path / "out"], ["validate", path]):
        result = ftsim(*verb)
        assert result.returncode == 2, result.stdout + result.stderr
        assert result.stderr.startswith(f"error: {path}: "), result.stderr
        assert result.stderr.count("\n") == 1, result.stderr
        assert message in result.stderr, result.stderr
    assert not (tmp_path / "out" / "points").exists()  # nothing ran


def test_a_sweep_config_is_not_a_run_config_and_a_run_config_is_not_a_sweep(ftsim, tmp_path):
    path = write_sweep(tmp_path, {"seeds": 2})
    result = ftsim("run", path, "-o", tmp_path / "out")
    assert result.returncode == 2
    assert f"{path}: /sweep: a config with a sweep section is run by `ftsim sweep`" in result.stderr
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(BASE))
    result = ftsim("sweep", plain)
    assert result.returncode == 2
    assert f'{plain}: /: missing required key "sweep"' in result.stderr


@pytest.mark.parametrize("shard", ["3/3", "1/0", "a/2", "1", "-1/2"])
def test_bad_shards_are_refused(ftsim, tmp_path, shard):
    result = ftsim("sweep", write_sweep(tmp_path, {"seeds": 2}), "--shard", shard)
    assert result.returncode == 2
    assert "--shard" in result.stderr and "K/N" in result.stderr, result.stderr


# ------------------------------------------------------------------------------ running


def test_a_failing_point_is_recorded_and_the_sweep_goes_on(ftsim, tmp_path):
    # time_limit 1us: the run fails (exit 1, results.json says why). A graph file with an unknown
    # kernel: the run is bad input (exit 2, no results.json), found by the point's run, not up front.
    graphs = tmp_path / "graphs"
    graphs.mkdir()
    (graphs / "bad.json").write_text(json.dumps({"format": "ftsim-graph", "version": 1, "kernels": [{"name": "f"}], "data": [],
                                                 "submission": [{"kernel": "g", "node": 0, "access": []}]}))
    path = write_sweep(tmp_path, {
        "zip": {"application": [BASE["application"], {"type": "json", "file": "graphs/bad.json"}]},
        "grid": {"run.time_limit": ["1us", "1h"]},
    })
    result = sweep(ftsim, path, tmp_path / "out", "-j", "2")
    assert result.returncode == 1, result.stdout + result.stderr
    rows = read_jsonl(tmp_path / "out" / "rows.jsonl")
    assert [(r["point"], r["status"], r["exit_code"]) for r in rows] == [(0, "failed", 1), (1, "ok", 0), (2, "error", 2), (3, "error", 2)]
    assert rows[0]["reason"].startswith("time limit reached at") and rows[0]["complete"] is False
    assert rows[1]["reason"] is None and rows[1]["complete"] is True and rows[1]["makespan"] > 0
    assert rows[2]["reason"] == f'{graphs / "bad.json"}: /submission/0/kernel: unknown kernel "g" (did you mean "f"?)'
    assert rows[2]["makespan"] is None
    assert "1 ok, 3 not ok" in result.stdout
    point = tmp_path / "out" / "points" / rows[2]["id"]
    assert "unknown kernel" in (point / "stderr.txt").read_text()
    assert (point / "command.txt").read_text().split()[1:3] == ["run", str(point / "config.json")]


@pytest.fixture(scope="module")
def serial_protocol_rows(ftsim_binary, tmp_path_factory):
    """The protocol comparison, one point at a time."""
    out = tmp_path_factory.mktemp("serial")
    result = subprocess.run([str(ftsim_binary), "sweep", str(PROTOCOLS_SWEEP), "-o", str(out)], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def test_the_protocol_comparison_covers_every_protocol_and_three_applications(ftsim, tmp_path, serial_protocol_rows):
    result = sweep(ftsim, PROTOCOLS_SWEEP, tmp_path / "out", "-j", "2")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "27 points, 27 with rows (27 run now" in result.stdout
    rows = read_jsonl(tmp_path / "out" / "rows.jsonl")
    # Every protocol but the examples of docs/writing-a-protocol.md (protocols/example-*).
    compared = {p for p in known_protocols(ftsim, tmp_path) if not p.startswith("example-")}
    assert {r["protocol.type"] for r in rows} == compared
    assert {r["application.type"] for r in rows} == {"cholesky", "stencil", "cg"}
    # cck twice (its neighbour-only flush and the standard full flush), uncoordinated in its three logging modes.
    assert len({(r["protocol.type"], r.get("protocol.flush"), r.get("protocol.logging"), r["application.type"]) for r in rows}) == len(rows) == 27
    for r in rows:
        assert r["status"] == "ok" and r["exit_code"] == 0 and r["oracle.ok"] is True, r
        assert r["failure_count"] == 1 and r["recovered_count"] == 1
        assert r["makespan"] > r["reference_makespan"] > 0
        assert (r["checkpoint_count"] > 0) == (r["protocol.type"] in ("global", "buddy", "cck", "uncoordinated"))
    # -j 2 gives the rows of a serial sweep, in point order, in both files.
    serial_jsonl = read_jsonl(serial_protocol_rows / "rows.jsonl")
    assert without_wall_clock(rows) == without_wall_clock(serial_jsonl)
    assert [r["point"] for r in rows] == list(range(27))
    assert without_wall_clock(read_csv(tmp_path / "out" / "rows.csv")) == without_wall_clock(read_csv(serial_protocol_rows / "rows.csv"))


def test_csv_and_json_lines_have_the_same_rows_and_the_documented_columns(serial_protocol_rows):
    jsonl = read_jsonl(serial_protocol_rows / "rows.jsonl")
    table = read_csv(serial_protocol_rows / "rows.csv")
    assert list(table[0].keys()) == list(jsonl[0].keys())
    for typed, text in zip(jsonl, table):
        for column, value in typed.items():
            if value is None:
                assert text[column] == ""
            elif isinstance(value, (bool, list, dict)):
                assert json.loads(text[column]) == value
            elif isinstance(value, (int, float)):
                assert float(text[column]) == pytest.approx(value, rel=1e-15)
            else:
                assert text[column] == value
    docs = (SOURCE / "docs" / "sweeps.md").read_text()
    varied = {"application.precision", "application.tile_size", "application.tiles", "application.type", "application.iterations",
              "application.blocks", "application.grid", "failures.events.0.after_tasks", "protocol.type", "protocol.at",
              "protocol.storage"}
    assert varied <= set(jsonl[0])
    for column in set(jsonl[0]) - varied:
        assert f"`{column}`" in docs, f"column {column} is not documented in docs/sweeps.md"


def slow_sweep(tmp_path, points=8):
    """Points of about 0.3 s each: a Cholesky of 80 x 80 tiles, one per seed."""
    return write_sweep(tmp_path, {"seeds": points}, application={"type": "cholesky", "tiles": 80, "tile_size": 128})


def test_an_interrupted_sweep_resumes_without_running_its_finished_points_again(ftsim_binary, ftsim, tmp_path):
    path = slow_sweep(tmp_path)
    out = tmp_path / "out"
    process = subprocess.Popen([str(ftsim_binary), "sweep", str(path), "-o", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    rows_file = out / "rows.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if rows_file.exists() and len(rows_file.read_text().splitlines()) >= 2:
            break
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 1, stdout + stderr
    assert "interrupted" in stderr and "run the same command again" in stderr
    first = read_jsonl(rows_file)
    assert 2 <= len(first) < 8, "the sweep ended before the interruption: make its points slower"
    assert len(read_csv(out / "rows.csv")) == len(first)
    assert all(r["status"] == "ok" for r in first)  # the point in flight has no row
    assert subprocess.run(["pgrep", "-f", str(out / "points")], capture_output=True).returncode == 1  # no child left
    done = {r["id"]: (out / "points" / r["id"] / "results.json").stat().st_mtime_ns for r in first}

    result = sweep(ftsim, path, out)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"8 points, 8 with rows ({8 - len(first)} run now" in result.stdout
    rows = read_jsonl(rows_file)
    assert [r["point"] for r in rows] == list(range(8)) and len({r["id"] for r in rows}) == 8
    for row in first:  # finished points were not run again: same row, same results.json
        assert (out / "points" / row["id"] / "results.json").stat().st_mtime_ns == done[row["id"]]
        assert next(r for r in rows if r["id"] == row["id"]) == row
    assert len(read_csv(out / "rows.csv")) == 8
    again = sweep(ftsim, path, out)  # nothing left to run
    assert again.returncode == 0 and "(0 run now" in again.stdout


def test_a_row_cut_short_is_dropped_and_foreign_rows_are_refused(ftsim, tmp_path):
    path = write_sweep(tmp_path, {"seeds": 3})
    out = tmp_path / "out"
    assert sweep(ftsim, path, out).returncode == 0
    rows_file = out / "rows.jsonl"
    lines = rows_file.read_text().splitlines()
    rows_file.write_text("\n".join(lines[:2]) + "\n" + lines[2][:40])  # a kill during the last write
    result = sweep(ftsim, path, out)
    assert result.returncode == 0, result.stderr
    assert "line 3: an incomplete row" in result.stderr and "(1 run now" in result.stdout
    assert len(read_jsonl(rows_file)) == 3
    other = write_sweep(tmp_path, {"seeds": [4, 5]}, name="other.json")
    result = sweep(ftsim, other, out)
    assert result.returncode == 2
    assert f"{rows_file}: line 1: point " in result.stderr and "is not a point of" in result.stderr
    rows_file.write_text("not json\n" + "\n".join(lines) + "\n")
    result = sweep(ftsim, path, out)
    assert result.returncode == 2 and f"{rows_file}: line 1: not a JSON row of a sweep" in result.stderr


def test_two_sweeps_cannot_write_the_same_rows(ftsim, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    with open(out / "rows.jsonl.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        result = sweep(ftsim, write_sweep(tmp_path, {"seeds": 2}), out)
    assert result.returncode == 2 and "another sweep is writing these rows" in result.stderr


def test_shards_give_the_rows_of_a_serial_sweep(ftsim, tmp_path, serial_protocol_rows):
    out = tmp_path / "out"
    shard_rows = []
    for k in range(3):
        result = sweep(ftsim, PROTOCOLS_SWEEP, out, "--shard", f"{k}/3")
        assert result.returncode == 0, result.stdout + result.stderr
        rows = read_jsonl(out / f"rows.shard-{k}-of-3.jsonl")
        assert [r["point"] for r in rows] == list(range(k, 27, 3))
        shard_rows += rows
    serial = read_jsonl(serial_protocol_rows / "rows.jsonl")
    assert without_wall_clock(sorted(shard_rows, key=lambda r: r["point"])) == without_wall_clock(serial)
    # A sweep without --shard in the same directory takes the shards' rows in and runs nothing.
    result = sweep(ftsim, PROTOCOLS_SWEEP, out)
    assert result.returncode == 0 and "27 with rows (0 run now" in result.stdout
    assert without_wall_clock(read_jsonl(out / "rows.jsonl")) == without_wall_clock(serial)


def test_varied_quantities_with_units_get_si_columns_and_the_split_is_in_the_rows(ftsim, tmp_path):
    path = write_sweep(tmp_path, {"grid": {"platform.network.bandwidth": ["10Gbps", "1Gbps"],
                                           "protocol.period": ["2ms", "0.5s"]}},
                       platform=dict(BASE["platform"], storage={"hosts": 1}),
                       protocol={"type": "global", "period": "1ms", "storage": "stable"},
                       failures={"model": "list", "events": [{"node": 1, "after_tasks": 20}]},
                       run={"reference": True})
    result = sweep(ftsim, path, tmp_path / "out")
    assert result.returncode == 0, result.stderr
    rows = read_jsonl(tmp_path / "out" / "rows.jsonl")
    columns = list(rows[0])
    assert columns.index("platform.network.bandwidth_Bps") == columns.index("platform.network.bandwidth") + 1
    assert columns.index("protocol.period_s") == columns.index("protocol.period") + 1
    assert sorted({r["protocol.period_s"] for r in rows}) == [0.002, 0.5]
    assert sorted({r["platform.network.bandwidth_Bps"] for r in rows}) == [1.25e8, 1.25e9]
    for r in rows:
        assert r["status"] == "ok"
        assert r["overhead_checkpointing"] + r["overhead_failures"] == pytest.approx(r["overhead"], abs=1e-9)
        assert r["protocol_makespan"] > 0
    assert any(r["checkpoint_duration"] is not None and r["checkpoint_duration"] > 0 for r in rows)
    # A mix of kinds (or plain numbers) gets no SI column.
    mixed = write_sweep(tmp_path, {"grid": {"seed": [1, 2]}}, name="mixed.json")
    assert "seed_s" not in points(ftsim, mixed)[0]["values"]


def test_a_seeds_axis_over_a_config_that_draws_nothing_is_warned(ftsim, tmp_path):
    listed = write_sweep(tmp_path, {"seeds": 3}, name="listed.json",
                         failures={"model": "list", "events": [{"node": 1, "after_tasks": 10}]})
    result = ftsim("validate", listed)
    assert result.returncode == 0
    assert "warning: " in result.stderr and "/sweep/seeds" in result.stderr and "draws nothing at random" in result.stderr
    drawn = write_sweep(tmp_path, {"seeds": 3}, name="drawn.json",
                        failures={"model": "exponential", "mtbf": "1s", "max_failures": 1})
    result = ftsim("validate", drawn)
    assert result.returncode == 0 and "warning" not in result.stderr
    # A protocol that draws its checkpoint dates from /seed (uncoordinated, random schedule) varies too.
    for schedule, warned in (("random", False), ("periodic", True)):
        document = json.loads((SOURCE / "configs" / "examples" / "uncoordinated-domino.json").read_text())
        document["protocol"]["schedule"] = schedule
        document["sweep"] = {"seeds": 2}
        path = tmp_path / f"unco-{schedule}.json"
        path.write_text(json.dumps(document))
        result = ftsim("validate", path)
        assert result.returncode == 0 and ("draws nothing at random" in result.stderr) == warned, result.stderr


def test_shard_auto_takes_a_slurm_array_task(ftsim_binary, tmp_path):
    path = write_sweep(tmp_path, {"seeds": 6})
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}

    def listed(extra_env):
        result = subprocess.run([str(ftsim_binary), "sweep", str(path), "--shard", "auto", "--list"], capture_output=True,
                                text=True, env={**env, **extra_env}, timeout=60)
        return result

    by_count = listed({"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "3"})
    assert by_count.returncode == 0, by_count.stderr
    assert [line.split()[0] for line in by_count.stdout.splitlines()] == ["1", "4"]
    by_range = listed({"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_MAX": "7"})
    assert [line.split()[0] for line in by_range.stdout.splitlines()] == ["2", "5"]
    outside = listed({})
    assert outside.returncode == 2 and "SLURM_ARRAY_TASK_ID is not set" in outside.stderr


# ------------------------------------------------------------------------------ summary (issue 39, item 7)


def summary_lines(stdout):
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("summary:"))
    return lines[start:]


PERCENT = r"([+-]\d+\.\d)%"


def test_a_sweep_ends_with_its_answer_and_summary_reprints_it(ftsim, tmp_path):
    # Three seeds of random failures per protocol, with the failure-free references: each group has
    # a makespan, an overhead and its split, with intervals that never leave their range.
    path = write_sweep(tmp_path, {"grid": {"protocol.type": ["none", "lineage"]}, "seeds": 3},
                       failures={"model": "exponential", "mtbf": "30ms", "max_failures": 1}, run={"reference": True})
    result = sweep(ftsim, path, tmp_path / "out", "-j", "2")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = summary_lines(result.stdout)
    header = lines[1].split("  ")
    assert [h.strip() for h in header if h.strip()][:3] == ["protocol.type", "n ok", "makespan [95% interval]"]
    assert "overhead [95% interval]" in lines[1] and "checkpointing [95% interval]" in lines[1] and "failures [95% interval]" in lines[1]
    rows = {line.split()[0]: line for line in lines[2:4]}
    assert set(rows) == {"none", "lineage"}
    rows_file = read_jsonl(tmp_path / "out" / "rows.jsonl")
    for protocol, line in rows.items():
        assert line.split()[1] == "3"  # n: three ok rows, one per seed
        makespans = [r["makespan"] for r in rows_file if r["protocol.type"] == protocol]
        mean, low, high = (float(x) for x in re.findall(r"(\d+(?:\.\d+)?) ms", line)[:3])
        assert low <= mean <= high and low > 0
        assert min(makespans) * 1e3 * 0.5 < mean < max(makespans) * 1e3 * 1.5
        for value, low, high in re.findall(rf"{PERCENT} \[{PERCENT}, {PERCENT}\]", line):
            assert -100 < float(low) <= float(value) <= float(high)
    again = ftsim("sweep", "--summary", tmp_path / "out")
    assert again.returncode == 0, again.stderr
    assert summary_lines(again.stdout) == lines
    assert ftsim("sweep").returncode == 2
    assert ftsim("sweep", "--summary", tmp_path / "nothing").returncode == 2
