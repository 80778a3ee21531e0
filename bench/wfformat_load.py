#!/usr/bin/python3
"""Loading a large WfFormat instance: generates a layered workflow of N tasks (default 100,000;
each task reads the outputs of 2 tasks of the previous level and writes one file) and times
`ftsim graph --stats` on it. Target (issue 11): under 2 s for 100,000 tasks (docs/benchmarks.md).

    /usr/bin/python3 bench/wfformat_load.py [--tasks N] [--binary build/ftsim]
"""
import argparse
import json
import pathlib
import subprocess
import tempfile
import time


def generate(tasks, width=1000):
    spec_tasks, files, runs = [], [], []
    for i in range(tasks):
        level, slot = divmod(i, width)
        parents = [] if level == 0 else sorted({(level - 1) * width + slot, (level - 1) * width + (slot + 1) % width})
        parents = [p for p in parents if p < tasks]
        spec_tasks.append({"name": f"stage{level % 7}_ID{i:07d}", "id": f"ID{i:07d}",
                           "parents": [f"ID{p:07d}" for p in parents], "children": [],
                           "inputFiles": [f"f{p}" for p in parents] or [f"in{i}"], "outputFiles": [f"f{i}"]})
        if not parents:
            files.append({"id": f"in{i}", "sizeInBytes": 1 << 20})
        files.append({"id": f"f{i}", "sizeInBytes": 1 << 20})
        runs.append({"id": f"ID{i:07d}", "runtimeInSeconds": 1.0 + (i % 13) / 10, "machines": [f"host{i % 16}"]})
    return {"name": "bench", "schemaVersion": "1.5",
            "workflow": {"specification": {"tasks": spec_tasks, "files": files},
                         "execution": {"makespanInSeconds": 1, "executedAt": "2024-01-01T00:00:00Z", "tasks": runs,
                                       "machines": [{"nodeName": f"host{m}"} for m in range(16)]}}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--binary", default="build/ftsim")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        instance = tmp / "workflow.json"
        instance.write_text(json.dumps(generate(args.tasks)))
        config = tmp / "config.json"
        config.write_text(json.dumps({"application": {"type": "wfformat", "path": str(instance), "placement": "file"},
                                      "platform": {"nodes": 16, "core_gflops": 1}}))
        best = None
        for _ in range(args.repeat):
            start = time.perf_counter()
            result = subprocess.run([args.binary, "graph", str(config), "--stats"], capture_output=True, text=True,
                                    timeout=600)
            elapsed = time.perf_counter() - start
            if result.returncode != 0:
                raise SystemExit(result.stderr)
            best = elapsed if best is None else min(best, elapsed)
        size = instance.stat().st_size / 2**20
        print(result.stdout.splitlines()[0])
        print(f"{args.tasks} tasks, {size:.1f} MiB: ftsim graph --stats in {best:.2f} s (best of {args.repeat})")


if __name__ == "__main__":
    main()
