#!/usr/bin/python3
"""ftsim.run from Python against `ftsim run` on the same config, in one run (a ratio): alternating
runs, fastest of each side (these machines are noisy). The Python side counts the whole call
(config to Result, results parsed); the CLI side the whole process (start, run, results.json
written, summary printed). Target (issue 10): within 5%.

usage: bench/python_overhead.py [--config configs/protocols/cholesky-buddy.json] [--repeat 5]"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

from measure import BUILD, FTSIM, ROOT, require_build, run

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--config", default=str(ROOT / "configs" / "protocols" / "cholesky-buddy.json"))
parser.add_argument("--repeat", type=int, default=5)
args = parser.parse_args()
require_build()
sys.path.insert(0, str(BUILD / "python"))
import ftsim  # noqa: E402

best = {"cli": float("inf"), "python": float("inf")}
with tempfile.TemporaryDirectory() as tmp:
    for _ in range(args.repeat):
        _, wall, _ = run([FTSIM, "run", args.config, "-o", tmp])
        best["cli"] = min(best["cli"], wall)
        start = time.monotonic()
        result = ftsim.run(args.config)
        best["python"] = min(best["python"], time.monotonic() - start)
        assert result.complete
ratio = best["python"] / best["cli"]
print(f"{Path(args.config).name}: cli {best['cli']:.3f} s, python {best['python']:.3f} s (fastest of {args.repeat})")
print(f"python / cli wall-time ratio: {ratio:.3f} (target: at most 1.05, {'met' if ratio <= 1.05 else 'NOT met'})")
