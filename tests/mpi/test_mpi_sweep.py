"""`mpirun -np 3 ftsim sweep` (docs/sweeps.md#mpirun): ftsim execs ftsim-mpi, the points are dealt out
to the ranks, each runs its own as child `ftsim run` processes and rank 0 writes every row. The rows
are those of a serial sweep."""
import json
import os
import re
import subprocess

from conftest import BINARY, SOURCE_DIR

PROTOCOLS_SWEEP = SOURCE_DIR / "configs" / "sweeps" / "protocols.json"


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def without_wall_clock(rows):
    return [{k: v for k, v in r.items() if k != "wall_seconds" and not k.startswith("wall.")} for r in rows]


def test_mpirun_gives_the_rows_of_a_serial_sweep(tmp_path):
    serial = subprocess.run([str(BINARY), "sweep", str(PROTOCOLS_SWEEP), "-o", str(tmp_path / "serial")], capture_output=True,
                            text=True, timeout=300)
    assert serial.returncode == 0, serial.stdout + serial.stderr
    command = ["mpirun", "--oversubscribe", "-np", "3"]
    if os.geteuid() == 0:
        command.insert(1, "--allow-run-as-root")
    out = tmp_path / "mpi"
    job = subprocess.run(command + [str(BINARY), "sweep", str(PROTOCOLS_SWEEP), "-o", str(out)], capture_output=True, text=True,
                         timeout=300)
    assert job.returncode == 0, job.stdout + job.stderr
    assert job.stdout.count("sweep sweep-protocols: 27 points, 27 with rows (27 run now") == 1  # rank 0 reports, alone
    rows = read_jsonl(out / "rows.jsonl")
    assert without_wall_clock(rows) == without_wall_clock(read_jsonl(tmp_path / "serial" / "rows.jsonl"))
    assert (out / "rows.csv").read_text().count("\n") == 28
    # Every rank ran points: each point's command.txt names its rank.
    ranks = {re.search(r"# run by rank (\d) of 3", (out / "points" / r["id"] / "command.txt").read_text()).group(1) for r in rows}
    assert ranks == {"0", "1", "2"}
    # Run again under mpirun: every point has its row, none runs.
    again = subprocess.run(command + [str(BINARY), "sweep", str(PROTOCOLS_SWEEP), "-o", str(out)], capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0 and "(0 run now" in again.stdout, again.stdout + again.stderr


def test_bad_input_under_mpirun_is_said_once(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"application": {"type": "cg", "grid": 64, "blocks": 4, "iterations": 2},
                               "platform": {"nodes": 2, "core_gflops": 1}, "sweep": {"grid": {"protocol.type": ["nne"]}}}))
    command = ["mpirun", "--oversubscribe", "-np", "3"]
    if os.geteuid() == 0:
        command.insert(1, "--allow-run-as-root")
    job = subprocess.run(command + [str(BINARY), "sweep", str(bad), "-o", str(tmp_path / "out")], capture_output=True, text=True,
                         timeout=300)
    assert job.returncode == 2, job.stdout + job.stderr
    assert job.stderr.count(f"error: {bad}: /protocol/type: unknown value \"nne\"") == 1, job.stderr
