#!/usr/bin/python3
"""Engine speed against plain SimGrid, measured in one run (ratios, not bare times):
  (simulated tasks + messages per wall second of `ftsim run`) /
  (activities per wall second of bench/raw_s4u doing exec + comm on the same hosts and cores).
Target: >= 0.9 (issue 25). With --full, also the failure-free 380-tile Cholesky on 25 nodes x 24 cores
(configs/papers/lion2020-platform.json): target <= 3 minutes and <= 8 GB."""
import json
import sys
import tempfile
from pathlib import Path

from measure import BUILD, FTSIM, ROOT, require_build, run

require_build()
hosts, cores = 25, 24
raw_out, _, _ = run([BUILD / "bench" / "raw_s4u", hosts, cores, 300, 3000])
raw = json.loads(raw_out)
raw_rate = raw["activities"] / raw["wall_seconds"]

config = {
    "name": "engine-speed",
    "application": {"type": "cholesky", "tiles": 120, "tile_size": 320, "precision": "single"},
    "distribution": {"type": "block-cyclic", "P": 5, "Q": 5},
    "platform": {"nodes": hosts, "cores_per_node": cores, "core_gflops": {"default": 60.2},
                 "network": {"topology": "cluster", "bandwidth": "40Gbps", "latency": "1us"}},
}
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "engine-speed.json"
    path.write_text(json.dumps(config))
    run([FTSIM, "run", path, "-o", tmp])
    results = json.loads((Path(tmp) / "results.json").read_text())
engine_rate = results["wall"]["events_per_second"]
print(f"raw S4U : {raw['activities']} exec+comm activities in {raw['wall_seconds']:.2f} s = {raw_rate:,.0f} /s "
      f"({hosts} hosts x {cores} cores)")
print(f"ftsim   : {results['events']} task completions + message deliveries in "
      f"{results['wall']['simulation_seconds']:.2f} s = {engine_rate:,.0f} /s (cholesky 120 tiles, same hosts), "
      f"makespan {results['makespan']:.6f} s")
print(f"engine / raw S4U = {engine_rate / raw_rate:.2f}   (target >= 0.9)")

if "--full" in sys.argv:
    with tempfile.TemporaryDirectory() as tmp:
        out, wall, peak = run([FTSIM, "run", ROOT / "configs" / "papers" / "lion2020-platform.json", "-o", tmp])
        results = json.loads((Path(tmp) / "results.json").read_text())
    print(f"380-tile Cholesky, 25 x 24 cores, failure-free: {results['graph']['tasks']} tasks, makespan "
          f"{results['makespan']:.2f} s simulated, {wall:.1f} s wall in total, peak memory {peak / 1e9:.2f} GB")
    print(f"  wall / 180 s target = {wall / 180:.2f}   peak memory / 8 GB target = {peak / 8e9:.2f}")
