#!/usr/bin/python3
"""Cores 2015 (PhD thesis, CPPC), Ch. 2.5.1 / Figs. 2.5-2.6, the NPB CG headlines: ftsim's checkpoint
sizes with /checkpoint_data beside the thesis's.

The thesis (16 processes, NPB CG class C, 8K-element blocks; digest §4): against the application-
level base (ALC Base: every user variable), live-variable analysis alone saves 56%, full checkpoints
with zero-block exclusion 65% and incremental checkpoints 98% (the first incremental after a full;
"successive incrementals are of similar size"); compression saves 20-25% on average over the NPB codes.

ftsim's checkpoints hold only live data by construction (the versions a node holds: its stored
matrix and its vectors), so its base is the thesis's LiveVar column: the comparable figures are the
thesis's reductions relative to LiveVar (0.35 / 0.44 and 0.02 / 0.44 of ALC Base), printed too.

It runs configs/papers/cores2015-table2.json (a simulation: the sizes follow the data profiles of
graphs/apps/data_profiles.cpp, measured on the real CG kernels) four ways, failure-free:
  base          without /checkpoint_data (every checkpoint full, as it is);
  zero blocks   {"zero_blocks": true} (every checkpoint full);
  incremental   the config's section: zero blocks and incremental, a full one every 3;
  + zstd        the same with zstd level 3,
and prints, per node, the mean full checkpoint and the first incremental after a full one, as
reductions against the base.

--smoke (the reduced form every bench of configs/papers/README.md has, for tests/python/test_reproductions.py)
changes nothing here: the full run takes about a second.

--json FILE also writes the per-node sizes of the four runs (bench/reproduce.py reads them).

usage: bench/cores2015_table2.py [--binary build/ftsim] [--block-size 64KiB] [--smoke] [--json FILE]
"""
import argparse
import copy
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "papers" / "cores2015-table2.json"

# Thesis, Ch. 2.5.1 (digest §4): reductions against ALC Base, 16 processes, NPB CG.
THESIS = {"livevar": 0.56, "full": 0.65, "incremental": 0.98, "compression_average": (0.20, 0.25)}


def run(binary: str, document: dict, work: pathlib.Path, tag: str) -> dict:
    path = work / f"{tag}.json"
    path.write_text(json.dumps(document))
    out = work / f"out-{tag}"
    proc = subprocess.run([binary, "run", str(path), "-o", str(out)], capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        sys.exit(f"{tag}: ftsim exited {proc.returncode}\n{proc.stdout}{proc.stderr}")
    return json.loads((out / "results.json").read_text())


def per_node(results: dict) -> dict:
    """Mean stored bytes per node of the full images and of the incrementals right after a full one."""
    nodes = len(results["nodes"])
    data = results["checkpoint_data"]
    if data is None:  # the base: the checkpoint records' bytes (every node's snapshot)
        committed = [c["bytes"] for c in results["checkpoints"] if c["committed"] is not None and not c["aborted"]]
        return {"full": sum(committed) / len(committed) / nodes, "incremental": None, "checkpoints": len(committed)}
    rows = sorted(data["checkpoints"], key=lambda c: c["id"])
    full = [c["stored_bytes"] for c in rows if c["full_images"] > 0]
    first_incremental = [rows[i]["stored_bytes"] for i in range(1, len(rows))
                         if rows[i]["incremental_images"] > 0 and rows[i - 1]["full_images"] > 0]
    return {"full": sum(full) / len(full) / nodes if full else None,
            "incremental": sum(first_incremental) / len(first_incremental) / nodes if first_incremental else None,
            "checkpoints": len(rows), "logical": data["logical_bytes"], "stored": data["stored_bytes"],
            "hash_seconds": data["hash_seconds"], "compress_seconds": data["compress_seconds"]}


def mb(value) -> str:
    return "—" if value is None else f"{value / 1e6:.2f} MB"


def reduction(value, base) -> str:
    return "—" if value is None else f"{(value / base - 1) * 100:+.1f}%"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.environ.get("FTSIM_BINARY", str(ROOT / "build" / "ftsim")))
    parser.add_argument("--block-size", help="the block size instead of the config's (e.g. 8KiB)")
    parser.add_argument("--smoke", action="store_true", help="for the test suite: the same run, it takes a second")
    parser.add_argument("--json", help="also write the per-node sizes of the four runs here")
    args = parser.parse_args()
    document = json.loads(CONFIG.read_text())
    document.pop("$schema", None)
    section = document["checkpoint_data"]
    if args.block_size:
        section["incremental"]["block_size"] = args.block_size
    block = section["incremental"]["block_size"]
    variants = {
        "base": None,
        "zero blocks": {"zero_blocks": True, "block_size": block},
        "incremental": section,
        "incremental + zstd": dict(section, compression="zstd", level=3),
    }
    rows = {}
    with tempfile.TemporaryDirectory(prefix="ftsim-cores2015-") as work:
        for name, data in variants.items():
            d = copy.deepcopy(document)
            d.pop("checkpoint_data")
            if data is not None:
                d["checkpoint_data"] = data
            rows[name] = per_node(run(args.binary, d, pathlib.Path(work), name.replace(" ", "-").replace("+", "")))
            print(f"[cores2015_table2] {name}: done", file=sys.stderr, flush=True)
    base = rows["base"]["full"]
    livevar = 1 - THESIS["livevar"]
    print(f"Cores 2015, NPB CG (16 processes, class C) against ftsim's {document['name']} "
          f"({document['platform']['nodes']} nodes, blocks of {block}); sizes per node and checkpoint\n")
    print("| checkpoint | thesis vs ALC Base | thesis vs LiveVar | ftsim size | ftsim vs its base |")
    print("|---|---|---|---|---|")
    print(f"| base (ftsim: live data only, every checkpoint full) | LiveVar {-THESIS['livevar'] * 100:+.0f}% | 0% | {mb(base)} | 0% |")
    full = rows["zero blocks"]["full"]
    print(f"| full, zero blocks excluded | {-THESIS['full'] * 100:+.0f}% | {((1 - THESIS['full']) / livevar - 1) * 100:+.0f}% "
          f"| {mb(full)} | {reduction(full, base)} |")
    incremental = rows["incremental"]["incremental"]
    print(f"| first incremental after a full | {-THESIS['incremental'] * 100:+.0f}% | "
          f"{((1 - THESIS['incremental']) / livevar - 1) * 100:+.0f}% | {mb(incremental)} | {reduction(incremental, base)} |")
    zfull, zincr = rows["incremental + zstd"]["full"], rows["incremental + zstd"]["incremental"]
    lo, hi = THESIS["compression_average"]
    print(f"| full, zero blocks, zstd | compression: {-lo * 100:.0f}% to {-hi * 100:.0f}% on average (all NPB codes) | — "
          f"| {mb(zfull)} | {reduction(zfull, base)} |")
    print(f"| first incremental, zstd | — | — | {mb(zincr)} | {reduction(zincr, base)} |")
    inc = rows["incremental"]
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))
    print(f"\nincremental run: {inc['checkpoints']} checkpoints, {mb(inc['stored'])} stored of {mb(inc['logical'])} "
          f"({reduction(inc['stored'], inc['logical'])} over the run); CPU charged: hashing {inc['hash_seconds']:.3f} s, "
          f"compressing {inc['compress_seconds']:.3f} s (all nodes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
