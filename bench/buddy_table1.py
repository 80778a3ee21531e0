#!/usr/bin/env python3
"""Lion & Thibault 2020 Table I, timed: the buddy protocol run on each placement of
configs/papers/lion2020-table1.json (9.2 M tasks, 25 nodes), its measured checkpoint bytes per
node beside `ftsim volumes` (analytic) and the paper's cached column. About a minute per row.

--smoke: a 24-tile Cholesky instead of 380 tiles (seconds), for the test suite
(tests/python/test_reproductions.py): it checks that the bench runs, its numbers are not Table I's.

usage: bench/buddy_table1.py [--build build] [--counts 1,2,4,8,16] [--smoke]
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

from run_harness import checked, run_ftsim

ROOT = pathlib.Path(__file__).resolve().parents[1]
GB = 1e9
SMOKE_TILES = 24


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--counts", default="1,2,4,8,16")
    parser.add_argument("--smoke", action="store_true", help=f"a {SMOKE_TILES}-tile Cholesky, for the test suite")
    args = parser.parse_args()
    ftsim = pathlib.Path(args.build) / "ftsim"
    work = pathlib.Path(tempfile.mkdtemp(prefix="ftsim-buddy-table1-"))
    base = json.loads((ROOT / "configs/papers/lion2020-table1.json").read_text())
    base.pop("$schema", None)
    base["application"]["file"] = None
    base["application"].pop("file")
    volumes_config = ROOT / "configs/papers/lion2020-table1.json"
    if args.smoke:
        base["application"]["tiles"] = SMOKE_TILES
        volumes_config = work / "table1-smoke.json"
        volumes_config.write_text(json.dumps(base))
    volumes_json = work / "volumes.json"
    subprocess.run([str(ftsim), "volumes", str(volumes_config), "--json", str(volumes_json)],
                   check=True, capture_output=True, timeout=600)
    analytic = {p["checkpoints"]: p for p in json.loads(volumes_json.read_text())["placements"]}
    paper = {v["checkpoints"]: v for v in base["reference"]["volumes"]}
    nodes = base["platform"]["nodes"]
    print("per node, GB      differential (volumes)  sent (measured)  cached-any (volumes)  free (measured)  paper cached")
    for count in [int(c) for c in args.counts.split(",")]:
        config = dict(base, name=f"table1-buddy-{count}", checkpoints={"count": count, "buddy": "next"},
                      protocol={"type": "buddy"})
        config.pop("reference", None)
        # A fresh output per run, a wall timeout, the exit code checked (bench/run_harness.py).
        starpu = checked(run_ftsim(config, work, f"table1-{count}", timeout=3600, binary=ftsim),
                         f"{count} checkpoints")["starpu"]
        a = analytic[count]
        print(f"{count:2} checkpoints     {a['differential']['average'] / GB:10.3f}  {starpu['CP_DATA_NORMAL_TOTAL_SIZE'] / nodes / GB:15.3f}"
              f"  {a['cached_any']['average'] / GB:20.3f}  {starpu['CP_DATA_CACHED_SIZE'] / nodes / GB:15.3f}  {paper[count]['cached']:>12}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
