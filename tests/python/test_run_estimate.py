"""`ftsim validate` says what a run will cost before it runs (issue 39, item 8): its estimate of the
wall time and peak memory (sim/run/run_estimate.cpp, from bench/run_cost.py's rates) is within a
factor of 5 of what `ftsim run` then takes, on three small configs. The time compared is the run's
CPU time (user + system): on a loaded machine its wall time grows, its CPU time hardly."""
import json
import re
import subprocess

import pytest

FACTOR = 5
CONFIGS = {
    "cholesky": {"application": {"type": "cholesky", "tiles": 50, "tile_size": 320, "precision": "single"},
                 "distribution": {"type": "block-cyclic", "P": 4, "Q": 4},
                 "platform": {"nodes": 16, "cores_per_node": 8, "core_gflops": 20}},
    "stencil": {"application": {"type": "stencil", "tiles": 32, "tile_size": 256, "iterations": 30},
                "platform": {"nodes": 16, "cores_per_node": 4, "core_gflops": 10, "network": {"model": "SMPI"}}},
    "cg": {"application": {"type": "cg", "grid": 2048, "blocks": 64, "iterations": 30},
           "platform": {"nodes": 8, "cores_per_node": 4, "core_gflops": 5, "network": {"contention": "nic"}},
           "run": {"reference": True}},
}

UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1, "h": 3600, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}


def quantity(text):
    number, unit = text.split()
    return float(number) * UNITS[unit]


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_validate_estimates_the_wall_time_and_memory_of_the_run(ftsim_binary, tmp_path, name):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(dict(CONFIGS[name], name=name)))
    validate = subprocess.run([str(ftsim_binary), "validate", str(path)], capture_output=True, text=True)
    assert validate.returncode == 0, validate.stderr
    match = re.search(r"estimate\s+`ftsim run` takes about (\S+ \S+) of wall time and (\S+ \S+) of memory", validate.stdout)
    assert match, validate.stdout
    seconds, memory = quantity(match.group(1)), quantity(match.group(2))
    def run():
        # Under GNU time, a small process: a child forked from this (large) pytest process starts
        # with pytest's resident size as its peak, which exec does not reset (Linux's maxrss).
        usage_file = tmp_path / "usage"
        process = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", "-o", str(usage_file), str(ftsim_binary), "run",
                                  str(path), "-o", str(tmp_path / "out")], capture_output=True, text=True)
        assert process.returncode == 0, process.stderr
        kilobytes, user, system = usage_file.read_text().split()[-3:]
        return float(user) + float(system), int(kilobytes) * 1024
    cpu, peak = run()
    print(f"{name}: estimate {seconds:.3g} s and {memory:.3g} B, the run {cpu:.3g} s of CPU and {peak:.3g} B")
    assert cpu / FACTOR <= seconds <= cpu * FACTOR, f"estimate {seconds:.3g} s, the run took {cpu:.3g} s of CPU"
    assert peak / FACTOR <= memory <= peak * FACTOR, f"estimate {memory:.3g} B, the run's peak {peak:.3g} B"
