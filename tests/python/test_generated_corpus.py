"""A generated corpus of extreme values (issue "every run ends"): every numeric field of three example
configs set in turn to 0, -0, 1e-300, 1e308, 2^31, 2^32 - 1 and 2^64, and every string with a
digit (durations, sizes, bandwidths) to "1e308d" and "1e308TB". Each run ends within 10 s with exit
0, 1 or 2, never by a signal, and writes results.json whenever it exits 0 or 1."""
import copy
import json
import os
import subprocess
from pathlib import Path

import pytest

SOURCE = Path(os.environ.get("FTSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
CONFIGS = ["configs/quickstart.json", "configs/examples/stencil-small.json", "configs/examples/failures-exponential.json"]
NUMBERS = [0, -0.0, 1e-300, 1e308, 2**31, 2**32 - 1, 2**64]
STRINGS = ["1e308d", "1e308TB"]


def leaves(value, path=()):
    if isinstance(value, dict):
        for key, item in value.items():
            if not key.startswith("$"):
                yield from leaves(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, path + (index,))
    else:
        yield path, value


def variants(config):
    for path, value in leaves(config):
        if isinstance(value, bool):
            continue
        if isinstance(value, (int, float)):
            yield from ((path, v) for v in NUMBERS)
        elif isinstance(value, str) and any(c.isdigit() for c in value):
            yield from ((path, v) for v in STRINGS)


@pytest.mark.parametrize("name", CONFIGS)
def test_every_extreme_value_ends_well(ftsim_binary, tmp_path, name):
    base = json.loads((SOURCE / name).read_text())
    application = base.get("application", {})
    if "file" in application:
        application["file"] = str((SOURCE / name).parent / application["file"])
    bad, count = [], 0
    for path, value in variants(base):
        config = copy.deepcopy(base)
        target = config
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        file, out = tmp_path / "config.json", tmp_path / "out"
        file.write_text(json.dumps(config))
        (out / "results.json").unlink(missing_ok=True)
        where = "/" + "/".join(map(str, path)) + f" = {value!r}"
        count += 1
        try:
            result = subprocess.run([str(ftsim_binary), "run", str(file), "-o", str(out)], capture_output=True,
                                    text=True, timeout=10)
        except subprocess.TimeoutExpired:
            bad.append(f"{where}: still running after 10 s")
            continue
        if result.returncode not in (0, 1, 2):
            bad.append(f"{where}: exit {result.returncode}: {result.stderr[-200:]}")
        elif result.returncode in (0, 1) and not (out / "results.json").exists():
            bad.append(f"{where}: exit {result.returncode} without results.json")
    assert count > 50
    assert bad == []
