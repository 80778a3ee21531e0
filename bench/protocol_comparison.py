#!/usr/bin/python3
"""The protocol comparison of docs/protocols.md: none, global, lineage, buddy, cck and cck with the standard
protocol's full flush (cck-flush-all), uncoordinated in its three logging modes (uncoordinated: the
send-deterministic protocol; uncoordinated-none; uncoordinated-all) on each application of
configs/protocols/ (Cholesky on 25 nodes, stencil and CG on 64), each with one node failing at 50% of
its tasks.

Every config `configs/protocols/<app>-<protocol>.json` runs twice: as it is (one failure), and
failure-free (the same document without /failures, written to a temporary file). From the two
results.json it prints one markdown table per application:

  makespan            of the run with the failure
  failure-free        makespan of the failure-free run; overhead: against the failure-free `none` run
  failure cost        makespan with the failure - failure-free makespan of the same protocol
  checkpoint bytes    failure-free run: checkpoint data sent (StarPU's CP_DATA_NORMAL_TOTAL_SIZE), in all
                      and per node; "spared" is what buddy's cache did not send (CP_DATA_CACHED_SIZE), with
                      its share of the differential checkpoint (sent + spared); "sent per ckpt / app data"
                      is the bytes sent per checkpoint over the application's data (graph.data_bytes)
  buddy store peak    failure-free run: the most checkpoint data one node held for others at once
                      (IN_MEM_CP_DATA_MAX_AT_T)
  log peak            failure-free run: the largest message log held by one node (log.peak_bytes: the
                      bytes of the versions it logged by reference), and beside it what the log really
                      costs in memory: log.copies_peak_bytes (logged versions overwritten since, kept by
                      copy-on-write) when results.json has it, else "mem": the largest peak_memory_bytes
                      of a node minus that of the failure-free `none` run
  recovery time       failures[].recovery_time of the run with the failure (what it measures differs
                      per protocol: docs/results.md, docs/protocols.md)
  re-executed         completed re-executions in the run with the failure (reexecutions), and those of
                      the survivors (every node but the failed one)
  oracle              the run with the failure completed and its final data equal the failure-free
                      run's (oracle.ok); a failure-free run that failed is flagged too

With --shrink, each of global, lineage, buddy and cck among --protocols also runs with the failure and
no spare (/platform/spares: 0, /platform/on_no_spare: "shrink", docs/shrink.md), and one more table per
application compares it with the run where a spare takes the failed rank: makespan of both, what the
shrink costs more, the machines at the end, and the redistribution (bytes and seconds, results.json's
"shrink" object).

The `none` failure-free run is the reference of the overhead column; it runs even when --protocols
leaves `none` out. Runs are sequential (one simulation at a time); progress lines go to stderr.

The rows "<protocol>+data" run the config of <protocol> with /checkpoint_data (zero blocks, incremental
images of 8 KiB blocks with a full one every 3, zstd: docs/checkpoint-data.md); their checkpoint bytes are
the stored bytes, with the reduction against what they would have saved without the section.

--smoke runs graphs of a few hundred tasks (SMOKE_APPLICATIONS), the failure at half the failure-free `none`
makespan instead of its task count, and by default five of the protocols (SMOKE_PROTOCOLS: a blocking, an
asynchronous, a data-reducing and an uncoordinated one): seconds instead of hours, for the test suite
(tests/python/test_reproductions.py); its numbers mean nothing.

usage: bench/protocol_comparison.py [--binary PATH] [--apps cholesky,stencil,cg]
                                    [--protocols none,global,lineage,buddy,cck,cck-flush-all,
                                     uncoordinated,uncoordinated-none,uncoordinated-all,
                                     global+data,buddy+data,cck+data,uncoordinated+data] [--shrink] [--json OUT]
                                    [--smoke]
The binary is --binary, else $FTSIM_BINARY, else $FTSIM_BUILD_DIR/ftsim, else build/ftsim.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

from run_harness import BAD_INPUT, CRASH, HANG, run_ftsim

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "configs" / "protocols"
APPS = ["cholesky", "stencil", "cg"]
PROTOCOLS = ["none", "global", "lineage", "buddy", "cck", "cck-flush-all", "uncoordinated", "uncoordinated-none",
             "uncoordinated-all", "global+data", "buddy+data", "cck+data", "uncoordinated+data"]
# How a config suffix is named in the tables.
LABELS = {"cck-flush-all": "cck (flush all)", "uncoordinated": "uncoordinated (send-deterministic)",
          "uncoordinated-none": "uncoordinated (logging none)", "uncoordinated-all": "uncoordinated (logging all)",
          "global+data": "global + checkpoint data", "buddy+data": "buddy + checkpoint data",
          "cck+data": "cck + checkpoint data", "uncoordinated+data": "uncoordinated (send-det.) + checkpoint data"}
# "<protocol>+data": the config of <protocol> with smaller checkpoints (docs/checkpoint-data.md): zero
# blocks, incremental images of 8 KiB blocks (a full one every 3) and zstd, the sizes from each
# application's measured data profile and the CPU time charged to the nodes.
CHECKPOINT_DATA = {"zero_blocks": True, "incremental": {"block_size": "8KiB", "full_every": 3}, "compression": "zstd",
                   "level": 3}
SMOKE_PROTOCOLS = ["none", "global", "buddy", "cck+data", "uncoordinated"]
# --smoke: each application's keys replaced by these (room for the configs' checkpoint counts, 4 and 8).
SMOKE_APPLICATIONS = {"cholesky": {"tiles": 12, "tile_size": 64}, "stencil": {"tiles": [16, 8], "tile_size": 64, "iterations": 8},
                      "cg": {"grid": 512, "blocks": 128, "iterations": 8}}


def config_of(app: str, protocol: str, smoke: bool = False) -> dict:
    base = protocol[:-len("+data")] if protocol.endswith("+data") else protocol
    document = json.loads((CONFIGS / f"{app}-{base}.json").read_text())
    if smoke:
        document["application"].update(SMOKE_APPLICATIONS[app])
    if protocol.endswith("+data"):
        document["checkpoint_data"] = CHECKPOINT_DATA
        document["name"] = document.get("name", f"{app}-{base}") + "-data"
    return document


def default_binary() -> str:
    if os.environ.get("FTSIM_BINARY"):
        return os.environ["FTSIM_BINARY"]
    return str(pathlib.Path(os.environ.get("FTSIM_BUILD_DIR", ROOT / "build")) / "ftsim")


def progress(message: str) -> None:
    print(f"[protocol_comparison] {message}", file=sys.stderr, flush=True)


def simulate(binary: str, document: dict, work: pathlib.Path, tag: str, timeout: float) -> dict:
    """Runs one config document in a fresh output directory, with a wall timeout (bench/run_harness.py);
    returns its results.json (None for a hang, a crash or bad input) with the outcome, the exit code
    ("hang" when it had none) and the wall time of the whole command."""
    outcome = run_ftsim(document, work, tag, timeout, binary=binary)
    if outcome.kind in (HANG, CRASH, BAD_INPUT):
        progress(f"{tag}: {outcome.describe()}")
    return {"outcome": outcome.kind, "exit_code": outcome.returncode if outcome.returncode is not None else "hang",
            "wall_seconds": outcome.wall, "results": outcome.results,
            "stderr": outcome.stderr_tail.splitlines()[-1:] if outcome.returncode != 0 else []}


def checkpoints_taken(results: dict) -> int:
    return sum(1 for c in results.get("checkpoints", []) if c.get("committed") is not None)


def row_of(app: str, protocol: str, failed: dict, free: dict, reference_makespan) -> dict:
    rf, rr = failed["results"], free["results"]
    row = {"application": app, "protocol": protocol,
           "exit_code": failed["exit_code"], "failure_free_exit_code": free["exit_code"],
           "wall_seconds": failed["wall_seconds"], "failure_free_wall_seconds": free["wall_seconds"]}
    if rr is not None:
        nodes = len(rr["nodes"])
        sent = rr["starpu"]["CP_DATA_NORMAL_TOTAL_SIZE"]
        taken = checkpoints_taken(rr)
        row.update({
            "nodes": nodes,
            "data_bytes": rr["graph"]["data_bytes"],
            "tasks": rr["graph"]["tasks"],
            "failure_free_complete": rr["complete"],
            "failure_free_oracle_ok": rr["oracle"]["ok"],
            "failure_free_makespan": rr["makespan"],
            "overhead": (rr["makespan"] / reference_makespan - 1) if reference_makespan else None,
            "checkpoints": taken,
            "checkpoint_bytes": sent,
            "checkpoint_bytes_per_node": sent / nodes,
            "checkpoint_bytes_spared": rr["starpu"]["CP_DATA_CACHED_SIZE"],
            "checkpoint_bytes_per_checkpoint_over_data": (sent / taken / rr["graph"]["data_bytes"]) if taken else None,
            "checkpoint_store_peak": rr["starpu"]["IN_MEM_CP_DATA_MAX_AT_T"],
            "log_peak_bytes": rr["log"]["peak_bytes"],
            "log_bytes": rr["log"]["bytes"],
            "log_copies_peak_bytes": rr["log"].get("copies_peak_bytes"),  # absent before the log's copy accounting
            "peak_memory_bytes": max(n["peak_memory_bytes"] for n in rr["nodes"]),
            "application_bytes": rr["bytes_sent"]["application"],
        })
        data = rr.get("checkpoint_data")
        if data:
            row.update({"checkpoint_data_logical_bytes": data["logical_bytes"], "checkpoint_data_stored_bytes": data["stored_bytes"],
                        "checkpoint_data_reduction": data["reduction"], "checkpoint_data_cpu_seconds":
                        data["hash_seconds"] + data["compress_seconds"]})
    if rf is not None:
        failed_nodes = {f["node"] for f in rf["failures"]}
        recovery = [f["recovery_time"] for f in rf["failures"]]
        row.update({
            "complete": rf["complete"],
            "failure_reason": rf["failure_reason"],
            "oracle_ok": rf["oracle"]["ok"],
            "oracle_missing": rf["oracle"]["missing"],
            "oracle_wrong": rf["oracle"]["wrong"],
            "makespan": rf["makespan"],
            "failures": [{k: f[k] for k in ("node", "time", "recovery_time", "restart_point", "tasks_reexecuted",
                                             "processes_rolled_back", "work_lost_seconds")} for f in rf["failures"]],
            "recovery_time": None if any(r is None for r in recovery) else sum(recovery),
            "reexecutions": rf["reexecutions"],
            "reexecutions_survivors": sum(n["reexecutions"] for i, n in enumerate(rf["nodes"]) if i not in failed_nodes),
            "checkpoint_bytes_with_failure": rf["starpu"]["CP_DATA_NORMAL_TOTAL_SIZE"],
            "log_peak_bytes_with_failure": rf["log"]["peak_bytes"],
        })
        if rr is not None:
            row["failure_cost"] = rf["makespan"] - rr["makespan"]
    return row


def size(value) -> str:
    if value is None:
        return "—"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.0f} B"


def seconds(value) -> str:
    if value is None:
        return "—"
    return f"{value * 1e3:.1f} ms" if value < 1 else f"{value:.3f} s"


def markdown(app: str, rows: list, reference_memory) -> str:
    head = ["protocol", "makespan", "failure-free", "overhead vs none", "failure cost", "checkpoint bytes (per node)",
            "spared by cache (% of differential)", "sent per ckpt / app data", "buddy store peak", "log peak (its memory cost)", "recovery time", "re-executed (survivors)", "oracle"]
    lines = [f"### {app}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if "failure_free_makespan" in r:
            overhead = "—" if r.get("overhead") is None else f"{r['overhead'] * 100:+.1f}%"
            ckpt = f"{size(r['checkpoint_bytes'])} ({size(r['checkpoint_bytes_per_node'])})" if r["checkpoint_bytes"] else "0"
            if r.get("checkpoint_data_reduction") is not None:
                ckpt += f", {r['checkpoint_data_reduction'] * -100:+.0f}% by checkpoint data"
            spared = r["checkpoint_bytes_spared"]
            spared = f"{size(spared)} ({spared / (spared + r['checkpoint_bytes']) * 100:.2g}%)" if spared else "0"
            ratio = r["checkpoint_bytes_per_checkpoint_over_data"]
            ratio = "—" if ratio is None else f"{ratio:.2f} ({r['checkpoints']} ckpts)"
            log = size(r["log_peak_bytes"]) if r["log_peak_bytes"] else "0"
            if r.get("log_copies_peak_bytes") is not None:
                log += f" (copies {size(r['log_copies_peak_bytes'])})" if r["log_peak_bytes"] else ""
            elif reference_memory is not None and r["protocol"] != "none":
                extra = r["peak_memory_bytes"] - reference_memory
                log += f" ({'+' if extra >= 0 else '-'}{size(abs(extra))} mem)"
            store = size(r["checkpoint_store_peak"]) if r["checkpoint_store_peak"] else "0"
            free_ms = seconds(r["failure_free_makespan"])
        else:
            overhead = ckpt = spared = ratio = log = store = free_ms = "—"
        if "makespan" in r:
            oracle = "yes" if r["oracle_ok"] else ("**no**" if r["complete"] else f"**failed**: {r['failure_reason']}")
            if r.get("failure_free_oracle_ok") is False:
                oracle += " (**failure-free run failed**)"
            cost = seconds(r.get("failure_cost")) if r.get("failure_cost") is not None else "—"
            restart = ", ".join(f["restart_point"] for f in r["failures"] if f["restart_point"])
            recovery = seconds(r["recovery_time"]) + (f" ({restart})" if restart else "")
            cells = [seconds(r["makespan"]), free_ms, overhead, cost, ckpt, spared, ratio, store, log, recovery,
                     f"{r['reexecutions']} ({r['reexecutions_survivors']})", oracle]
        else:
            cells = ["**no results**", free_ms, overhead, "—", ckpt, spared, ratio, store, log, "—", "—",
                     f"**exit {r['exit_code']}**"]
        lines.append("| " + " | ".join([LABELS.get(r["protocol"], r["protocol"])] + cells) + " |")
    return "\n".join(lines)


SHRINKABLE = ("global", "lineage", "buddy", "cck")


def shrink_row(app: str, protocol: str, shrunk: dict, spared: dict) -> dict:
    """A row of the shrink table: the run with the failure and no spare against the one with a spare."""
    rs, rp = shrunk["results"], spared["results"]
    row = {"application": app, "protocol": protocol, "exit_code": shrunk["exit_code"]}
    if rs is not None:
        shrink = rs.get("shrink") or {}
        row.update({"complete": rs["complete"], "oracle_ok": rs["oracle"]["ok"], "failure_reason": rs["failure_reason"],
                    "makespan": rs["makespan"], "nodes_at_start": shrink.get("nodes_at_start"),
                    "nodes_at_end": shrink.get("nodes_at_end"),
                    "redistribution_bytes": shrink.get("redistribution_bytes"),
                    "redistribution_seconds": shrink.get("redistribution_seconds")})
    if rp is not None:
        row["makespan_with_spare"] = rp["makespan"]
        if rs is not None:
            row["shrink_cost"] = rs["makespan"] - rp["makespan"]
    return row


def shrink_markdown(app: str, rows: list) -> str:
    head = ["protocol", "makespan, a spare", "makespan, shrink", "shrink cost", "machines", "redistributed",
            "redistribution time", "oracle"]
    lines = [f"### {app}: one failure, no spare (shrink)", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if "makespan" not in r:
            lines.append(f"| {r['protocol']} | " + " | ".join(["—"] * (len(head) - 2)) + f" | **exit {r['exit_code']}** |")
            continue
        oracle = "yes" if r["oracle_ok"] else ("**no**" if r["complete"] else f"**failed**: {r['failure_reason']}")
        machines = "—" if r["nodes_at_end"] is None else f"{r['nodes_at_start']} → {r['nodes_at_end']}"
        cost = "—" if r.get("shrink_cost") is None else f"{'+' if r['shrink_cost'] >= 0 else '-'}{seconds(abs(r['shrink_cost']))}"
        lines.append("| " + " | ".join([r["protocol"], seconds(r.get("makespan_with_spare")), seconds(r["makespan"]), cost,
                                         machines, size(r["redistribution_bytes"]), seconds(r["redistribution_seconds"]),
                                         oracle]) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=default_binary(), help="the ftsim executable")
    parser.add_argument("--apps", default=",".join(APPS), help="comma-separated: cholesky,stencil,cg")
    parser.add_argument("--protocols", help="comma-separated, of: " + ",".join(PROTOCOLS) + " (default: all; with "
                        "--smoke " + ",".join(SMOKE_PROTOCOLS) + ")")
    parser.add_argument("--json", metavar="OUT", help="also write every row (all measured fields) to OUT")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory of the runs")
    parser.add_argument("--shrink", action="store_true",
                        help="also run global, lineage, buddy and cck with no spare (shrink) and print their tables")
    parser.add_argument("--timeout", type=float, default=1800, help="wall seconds per run before it counts as a hang")
    parser.add_argument("--smoke", action="store_true", help="tiny graphs, for the test suite: checks that it runs")
    args = parser.parse_args()
    apps = [a for a in args.apps.split(",") if a]
    protocols = [p for p in (args.protocols or ",".join(SMOKE_PROTOCOLS if args.smoke else PROTOCOLS)).split(",") if p]
    if not pathlib.Path(args.binary).exists():
        sys.exit(f"{args.binary} not found: build first, or give --binary / FTSIM_BINARY")
    for app in apps:
        for protocol in set(protocols) | {"none"}:
            base = protocol[:-len("+data")] if protocol.endswith("+data") else protocol
            if not (CONFIGS / f"{app}-{base}.json").exists():
                sys.exit(f"no config {CONFIGS / f'{app}-{base}.json'}")

    work = pathlib.Path(tempfile.mkdtemp(prefix="ftsim-protocol-comparison-"))
    version = subprocess.run([args.binary, "--version"], capture_output=True, text=True).stdout.strip()
    progress(f"binary {args.binary} ({version}); runs in {work}")
    rows, tables, failed_any = [], [], False
    for app in apps:
        app_rows, shrink_rows = [], []
        reference_makespan = reference_memory = None
        order = ["none"] + [p for p in protocols if p != "none"]  # the none failure-free run first: the reference
        for protocol in order:
            document = config_of(app, protocol, args.smoke)
            document.pop("$schema", None)
            if args.smoke and reference_makespan is not None:  # the failure halfway, as in the full run
                node = document["failures"]["events"][0]["node"]
                document["failures"]["events"] = [{"time": reference_makespan / 2, "node": node}]
            free_document = {k: v for k, v in document.items() if k != "failures"}
            free = simulate(args.binary, free_document, work, f"{app}-{protocol}-failure-free", args.timeout)
            progress(f"{app}/{protocol} failure-free: exit {free['exit_code']}, wall {free['wall_seconds']:.1f} s"
                     + (f", makespan {free['results']['makespan']:.4f} s" if free["results"] else ""))
            if protocol == "none" and free["results"] is not None and free["results"]["complete"]:
                reference_makespan = free["results"]["makespan"]
                reference_memory = max(n["peak_memory_bytes"] for n in free["results"]["nodes"])
            if protocol not in protocols:
                continue
            failed = simulate(args.binary, document, work, f"{app}-{protocol}", args.timeout)
            progress(f"{app}/{protocol} one failure: exit {failed['exit_code']}, wall {failed['wall_seconds']:.1f} s"
                     + (f", makespan {failed['results']['makespan']:.4f} s" if failed["results"] else "")
                     + (f" ({failed['stderr'][0]})" if failed["stderr"] else ""))
            failed_any |= failed["exit_code"] != 0 or free["exit_code"] != 0
            app_rows.append(row_of(app, protocol, failed, free, reference_makespan))
            if args.shrink and protocol in SHRINKABLE:
                shrink_document = json.loads(json.dumps(document))
                shrink_document["platform"].update({"spares": 0, "on_no_spare": "shrink"})
                shrunk = simulate(args.binary, shrink_document, work, f"{app}-{protocol}-shrink", args.timeout)
                progress(f"{app}/{protocol} one failure, shrink: exit {shrunk['exit_code']}, wall {shrunk['wall_seconds']:.1f} s"
                         + (f", makespan {shrunk['results']['makespan']:.4f} s" if shrunk["results"] else ""))
                failed_any |= shrunk["exit_code"] != 0
                shrink_rows.append(shrink_row(app, protocol, shrunk, failed))
        rows += app_rows + [dict(r, shrink=True) for r in shrink_rows]
        tables.append(markdown(app, app_rows, reference_memory))
        if shrink_rows:
            tables.append(shrink_markdown(app, shrink_rows))
    print("\n\n".join(tables))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"binary": args.binary, "version": version, "rows": rows}, indent=1) + "\n")
        progress(f"rows written to {args.json}")
    if not args.keep:
        import shutil
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed_any else 0


if __name__ == "__main__":
    sys.exit(main())
