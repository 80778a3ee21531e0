#!/usr/bin/python3
"""Issue targets for the graph layer, measured in one run on this machine:
  - the 380-tile Cholesky graph (~9.2 M tasks) builds in <= 10 s with <= 3 GB peak memory, and
    in <= 2 s for issue 25;
  - `ftsim volumes` on the Lion 2020 Table I config takes <= 10 s in total.
Prints the figures and the ratio to each target (< 1 is within target)."""
import re
import sys

from measure import FTSIM, ROOT, require_build, run

require_build()
table1 = ROOT / "configs" / "papers" / "lion2020-table1.json"

out, wall, peak = run([FTSIM, "graph", table1, "--stats"])
build = re.search(r"built in ([0-9.]+) (ms|s)", out)
build_seconds = float(build.group(1)) / (1000 if build.group(2) == "ms" else 1)
tasks = int(re.search(r"tasks (\d+)", out).group(1))
print(f"graph build: {tasks} tasks in {build_seconds:.2f} s ({tasks / build_seconds / 1e6:.2f} M tasks/s), "
      f"ftsim graph --stats {wall:.2f} s, peak memory {peak / 1e9:.2f} GB")
print(f"  build time / 10 s target   = {build_seconds / 10:.2f}")
print(f"  build time / 2 s target    = {build_seconds / 2:.2f}   (issue 25)")
print(f"  peak memory / 3 GB target  = {peak / 3e9:.2f}")

out, wall, peak = run([FTSIM, "volumes", table1])
print(f"ftsim volumes (Table I, 5 placements): {wall:.2f} s, peak memory {peak / 1e9:.2f} GB")
print(f"  volumes time / 10 s target = {wall / 10:.2f}")
