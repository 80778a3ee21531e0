#!/usr/bin/env python3
"""Does a speed change leave every result as it was? Two ftsim binaries on the same config variants.

Each config of configs/, configs/protocols/ and configs/examples/ (those `ftsim run` takes: no sweep)
runs under "flows" and, where its topology allows it, "nic", once with each binary; the two
results.json must be identical apart from their wall fields. Reports, per variant, identical,
different (the first differing JSON paths), or a hang, crash or bad input apart; exits 1 on any
difference or failure. With --logs, each run also writes events.log (every category) and trace.json,
which must be byte-identical too.

  bench/same_results.py --before /tmp/ftsim-old [--after build/ftsim] [--timeout 300] [--only stencil]
                        [--logs] [--new-keys failure_events,class]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_harness import BAD_INPUT, FTSIM, OK, RUN_FAILED, ROOT, run_ftsim  # noqa: E402

# Fields that measure the machine, not the model.
WALL_KEYS = {"wall", "wall_seconds", "setup_seconds", "events_per_second", "cpu_seconds", "simulation_cpu_seconds",
             "peak_rss_bytes", "created"}


def variants() -> list[tuple[str, dict]]:
    out = []
    for folder in ("", "protocols", "examples"):
        for path in sorted((ROOT / "configs" / folder).glob("*.json")):
            config = json.loads(path.read_text())
            if "sweep" in config:
                continue
            config.pop("$schema", None)
            base = f"{folder}/{path.stem}" if folder else path.stem
            # Relative paths (platform files, traces, logs) stay relative to the config's folder.
            out.append((f"{base} flows", rebase(config, path.parent)))
            network = config.get("platform", {}).get("network", {})
            if isinstance(network, dict) and network.get("topology", "star") in ("star", "cluster") and \
                    "backbone_bandwidth" not in network and "xml" not in config.get("platform", {}):
                nic = json.loads(json.dumps(config))
                nic["platform"].setdefault("network", {})["contention"] = "nic"
                out.append((f"{base} nic", rebase(nic, path.parent)))
    return out


def rebase(config, folder: Path):
    """The config with every string naming a file beside it (a platform file, a failure log, a
    workflow) made absolute: it runs from a temporary folder, never from the source tree."""
    if isinstance(config, dict):
        return {k: rebase(v, folder) for k, v in config.items()}
    if isinstance(config, list):
        return [rebase(v, folder) for v in config]
    if isinstance(config, str) and 0 < len(config) < 256 and "\n" not in config and not config.startswith("/") \
            and (folder / config).is_file():
        return str((folder / config).resolve())
    return config


def write_config(config: dict, work: Path, tag: str) -> Path:
    path = work / f"config-{tag}.json"
    path.write_text(json.dumps(config))
    return path


def strip(value):
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in WALL_KEYS}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def differences(a, b, path="", found=None, new_keys=frozenset()):
    """Up to 5 differing JSON paths; `new_keys`: keys a change added, ignored where only `b` has them."""
    found = [] if found is None else found
    if len(found) >= 5:
        return found
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k in b and k not in a and k in new_keys:
                continue
            if k not in a or k not in b:
                found.append(f"{path}/{k} only in {'after' if k in b else 'before'}")
            else:
                differences(a[k], b[k], f"{path}/{k}", found, new_keys)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            differences(x, y, f"{path}/{i}", found, new_keys)
    elif a != b:
        found.append(f"{path}: {str(a)[:60]} -> {str(b)[:60]}")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="the ftsim binary before the change (a copy)")
    parser.add_argument("--after", default=str(FTSIM), help="the ftsim binary after it (default: the build's)")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--only", default="", help="variants whose name contains this")
    parser.add_argument("--logs", action="store_true", help="also compare events.log and trace.json byte for byte")
    parser.add_argument("--new-keys", default="", help="comma-separated results.json keys the change added: ignored "
                        "where only the after run has them (e.g. failure_events,class,origin,burst)")
    args = parser.parse_args()
    cases = [(name, config) for name, config in variants() if args.only in name]
    print(f"{len(cases)} config variants, {args.before} against {args.after}", flush=True)
    bad = skipped = 0
    with tempfile.TemporaryDirectory(prefix="ftsim-same-results-") as tmp:
        work = Path(tmp)
        for i, (name, config) in enumerate(cases):
            tag = f"{i:03d}"
            path = write_config(config, work, tag)
            extra = ["--trace", "--log", "all"] if args.logs else []
            outcomes = [run_ftsim(path, work, f"{tag}-{side}", timeout=args.timeout, binary=binary, args=extra)
                        for side, binary in (("before", args.before), ("after", args.after))]
            kinds = [o.kind for o in outcomes]
            if kinds == [BAD_INPUT, BAD_INPUT] and outcomes[0].stderr_tail == outcomes[1].stderr_tail:
                skipped += 1  # not a run (e.g. an untimed example): both refuse it alike
                print(f"{name:45s} not a timed run: {outcomes[0].stderr_tail.splitlines()[-1][-120:]}", flush=True)
                continue
            if any(k not in (OK, RUN_FAILED) for k in kinds):
                bad += 1
                print(f"{name:45s} FAILED: before {outcomes[0].describe()} / after {outcomes[1].describe()}", flush=True)
                continue
            new_keys = frozenset(k for k in args.new_keys.split(",") if k)
            diff = differences(strip(outcomes[0].results), strip(outcomes[1].results), new_keys=new_keys)
            if kinds[0] != kinds[1]:
                diff.insert(0, f"outcome {kinds[0]} -> {kinds[1]}")
            if args.logs:
                for name_ in ("events.log", "trace.json"):
                    before, after = (o.output / name_ for o in outcomes)
                    if before.exists() != after.exists() or (before.exists() and before.read_bytes() != after.read_bytes()):
                        diff.append(f"{name_} differs")
            if diff:
                bad += 1
                print(f"{name:45s} DIFFERENT: " + "; ".join(diff), flush=True)
            else:
                print(f"{name:45s} identical ({outcomes[1].wall:.1f} s)", flush=True)
    print(f"{len(cases) - bad - skipped} of {len(cases) - skipped} identical apart from wall fields "
          f"({skipped} refused alike by both)", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
