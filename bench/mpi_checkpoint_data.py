#!/usr/bin/python3
"""/checkpoint_data measured on the MPI backend: every config of configs/mpi/ with zero blocks,
incremental images (a full one every 3) and zstd level 3, one failure each (cholesky-none gets one
too), run under mpirun; prints, per config, the bytes the checkpoints hold (logical) against the bytes
the protocol really wrote (stored, measured on the buffers), the full and incremental images, what
the replacement read back, and the verification (bit-exact against the failure-free MPI run).
tests/mpi/test_mpi_checkpoint_data.py checks the same on every config.

usage: bench/mpi_checkpoint_data.py [--binary build/ftsim] [--block-size 1KiB]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]


def size(value) -> str:
    for unit, scale in (("MB", 1e6), ("KB", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.0f} B"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.environ.get("FTSIM_BINARY", str(ROOT / "build" / "ftsim")))
    parser.add_argument("--block-size", default="1KiB")
    args = parser.parse_args()
    data = {"zero_blocks": True, "incremental": {"block_size": args.block_size, "full_every": 3}, "compression": "zstd",
            "level": 3}
    print(f"| config | protocol | checkpoints hold | written | reduction | full / incremental images | "
          f"restore: images read | verification |")
    print("|---|---|---|---|---|---|---|---|")
    failed = False
    with tempfile.TemporaryDirectory(prefix="ftsim-mpi-data-") as work:
        for path in sorted((ROOT / "configs" / "mpi").glob("*.json")):
            config = json.loads(path.read_text())
            config.pop("$schema", None)
            config["checkpoint_data"] = data
            config.setdefault("failures", {"model": "list", "events": [{"node": 1, "after_tasks": 6}],
                                           "detection": "1 ms", "downtime": "2 ms"})
            file = pathlib.Path(work) / path.name
            file.write_text(json.dumps(config))
            out = pathlib.Path(work) / f"out-{path.stem}"
            command = ["mpirun", "--oversubscribe", "-np", str(config["platform"]["nodes"] + 1), args.binary, "run",
                       "--backend", "mpi", str(file), "-o", str(out)]
            if os.geteuid() == 0:
                command.insert(1, "--allow-run-as-root")
            proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
            if proc.returncode != 0:
                failed = True
                print(f"| {path.stem} | exit {proc.returncode} | | | | | | {proc.stderr.strip()[-200:]} |")
                continue
            r = json.loads((out / "results.json").read_text())
            d = r["checkpoint_data"]
            v = r["mpi"]["verification"]
            verified = "bit-exact" if v["bit_exact"] else "**not bit-exact**"
            protocol = r["protocol"]
            if d["status"] != "applied":
                print(f"| {path.stem} | {protocol} | — | — | {d['status']} | | | {verified} |")
                continue
            restart = ", ".join(f["restart_point"] for f in r["failures"])
            print(f"| {path.stem} | {protocol} | {size(d['logical_bytes'])} | {size(d['stored_bytes'])} | "
                  f"{-d['reduction'] * 100:+.1f}% | {d['full']['images']} / {d['incremental']['images']} | "
                  f"{d['restore_images']} ({restart}) | {verified} |")
            failed |= not (r["complete"] and r["oracle"]["ok"] and v["bit_exact"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
