#!/usr/bin/env python3
"""Does spreading a failed machine's ranks reduce the load imbalance after a shrink? (docs/shrink.md)

On the same 4 machines of 2 cores (star, one storage server), each application (Cholesky, stencil,
CG) with protocol buddy and global runs with k = 1, 2, 4 ranks per machine (/platform/ranks_per_machine,
4k ranks): failure-free, then with one failure (machine 1 at 30% of that k's failure-free makespan)
and with two (machine 1 at 30%, machine 2 at 60%), no spare, "on_no_spare": "shrink". Prints the
makespan of each shrunk run against the failure-free run of the same k and protocol, as a Markdown
table; every run must complete with the digest oracle holding.

usage: bench/shrink_spread.py [--build build] [--ks 1,2,4] [--json OUT]
"""
import argparse
import json
import sys
import tempfile
from pathlib import Path

from run_harness import ROOT, checked, run_ftsim

MACHINES = 4
APPS = {  # large enough to give each of 16 ranks work
    "cholesky": {"type": "cholesky", "tiles": 16, "tile_size": 128, "precision": "double"},
    "stencil": {"type": "stencil", "tiles": [8, 8], "tile_size": 256, "iterations": 12},
    "cg": {"type": "cg", "grid": 512, "blocks": 16, "iterations": 8},
}
PROTOCOLS = {"buddy": {"type": "buddy"}, "global": {"type": "global", "at": "cuts", "storage": "stable"}}


def config(app, protocol, k, failures, makespan):
    c = {"name": f"spread-{app}-{protocol}-k{k}", "seed": 1, "application": APPS[app],
         "platform": {"nodes": MACHINES * k, "ranks_per_machine": k, "cores_per_node": 2,
                      "core_gflops": {"default": 2.0},
                      "network": {"topology": "star", "bandwidth": "10Gbps", "latency": "5us"},
                      "storage": {"hosts": 1, "bandwidth": "1GB/s"}, "spares": 0, "on_no_spare": "shrink"},
         "checkpoints": {"count": 4, "buddy": "next"}, "protocol": PROTOCOLS[protocol]}
    if failures:
        # A failure names machine m's first rank, m * k, and takes the machine.
        events = [{"node": 1 * k, "time": 0.3 * makespan}, {"node": 2 * k, "time": 0.6 * makespan}][:failures]
        c["failures"] = {"model": "list", "events": events, "downtime": 0.001, "detection": 0.001}
    return c


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--ks", default="1,2,4")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    binary = Path(args.build) / "ftsim"
    rows = []
    with tempfile.TemporaryDirectory(prefix="ftsim-spread-") as tmp:
        work = Path(tmp)
        for app in APPS:
            for protocol in PROTOCOLS:
                for k in map(int, args.ks.split(",")):
                    free = checked(run_ftsim(config(app, protocol, k, 0, 0), work, f"{app}-{protocol}-{k}-0", binary=binary),
                                   f"{app} {protocol} k={k} failure-free")
                    row = {"app": app, "protocol": protocol, "k": k, "failure_free": free["makespan"]}
                    for failures in (1, 2):
                        outcome = run_ftsim(config(app, protocol, k, failures, free["makespan"]), work,
                                            f"{app}-{protocol}-{k}-{failures}", binary=binary)
                        r = outcome.results
                        if r is None or outcome.returncode not in (0, 1):
                            raise SystemExit(f"{app} {protocol} k={k} {failures} failures: {outcome.describe()}")
                        if not r["complete"]:
                            # buddy's documented ending (a rank and the keeper of its checkpoint lost).
                            assert "unrecoverable" in r["failure_reason"], r["failure_reason"]
                            row[f"ratio_{failures}"] = row[f"max_load_{failures}"] = None
                            continue
                        assert r["oracle"]["ok"], r["oracle"]
                        shrink = r["shrink"]
                        assert shrink["nodes_at_end"] == MACHINES - failures, shrink
                        row[f"makespan_{failures}"] = r["makespan"]
                        row[f"ratio_{failures}"] = r["makespan"] / free["makespan"]
                        row[f"bytes_{failures}"] = shrink["redistribution_bytes"]
                        # The most ranks any machine runs at the end, over the failure-free k.
                        ranks = [0] * (MACHINES)
                        for n in range(MACHINES * k):
                            ranks[n // k] += 1
                        for d in shrink["redistributions"]:
                            ranks[d["from_machine"]] -= 1 if d["from_machine"] < MACHINES else 0
                            ranks[d["machine"]] += 1
                        row[f"max_load_{failures}"] = max(ranks) / k
                    rows.append(row)
                    print(json.dumps(row), file=sys.stderr, flush=True)
    print("| application | protocol | k | failure-free makespan (s) | 1 failure: makespan / failure-free | busiest machine (machines' worth) | 2 failures: makespan / failure-free | busiest machine |")
    print("|---|---|---|---|---|---|---|---|")
    cell = lambda x: "unrecoverable" if x is None else f"{x:.2f}"
    for r in rows:
        print(f"| {r['app']} | {r['protocol']} | {r['k']} | {r['failure_free']:.4f} | {cell(r['ratio_1'])} | {cell(r['max_load_1'])} "
              f"| {cell(r['ratio_2'])} | {cell(r['max_load_2'])} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
