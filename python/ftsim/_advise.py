"""ftsim.estimate, ftsim.advise and ftsim.fit_failures: `ftsim estimate`, `ftsim advise` and
`ftsim failures fit` (docs/advise.md) from Python, their answers as DataFrames."""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Optional, Sequence

from ftsim._config import ConfigLike, apply_overrides, name_override
from ftsim._sweep import _binary, _config_error, _config_file


def _run(verb: list[str], config: ConfigLike, output: Path, progress: bool, origin: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_"))}
    process = subprocess.run([str(_binary()), *verb], stdout=subprocess.PIPE, stderr=None if progress else subprocess.PIPE,
                             text=True, env=env)
    if process.returncode == 2:
        raise name_override(_config_error(process.stderr or "", origin), config)
    if process.returncode not in (0, 1):
        raise RuntimeError(f"ftsim {verb[0]} ended with exit code {process.returncode}: {process.stderr}")


def _origin(config: ConfigLike) -> str:
    return str(config) if isinstance(config, (str, Path)) else getattr(config, "origin", None) or "<dict>"


def estimate(config: ConfigLike, *, samples: int = 100, method: str = "conditioned", long_job: bool = False,
             jobs: int = 1, seed_base: int = 0, output: Optional[str | Path] = None, progress: bool = False,
             **overrides):
    """The expected makespan and overheads of ``config`` under its failure model, with 90%
    intervals (``ftsim estimate``, docs/advise.md): one row per method ("conditioned", "brute",
    or "long-job" with ``long_job=True``). Columns: ``method``, ``samples``, ``probability``,
    ``makespan``, ``makespan_low``, ``makespan_high``, ``overhead``, ``overhead_low``,
    ``overhead_high``, ``overhead_checkpointing``, ``overhead_failures`` and, for the sampled
    methods, ``incomplete`` (the probability that a run does not complete). The whole
    estimate.json is in ``frame.attrs["estimate"]``. ``output`` keeps the runs (and resumes them)."""
    import pandas as pd

    config = apply_overrides(config, overrides)
    with tempfile.TemporaryDirectory(prefix="ftsim-estimate-") as tmp:
        directory = Path(output) if output is not None else Path(tmp) / "estimate"
        verb = ["estimate", str(_config_file(config, Path(tmp))), "-n", str(samples), "-j", str(jobs), "--seed-base",
                str(seed_base), "-o", str(directory)]
        verb += ["--long-job"] if long_job else ["--method", method]
        _run(verb, config, directory, progress, _origin(config))
        document = json.loads((directory / "estimate.json").read_text())
    reference = document.get("reference_makespan")
    rows = []
    if document.get("method") == "long-job":
        m = document["makespan"]
        overhead = document.get("overhead") or {}
        rows.append({"method": "long-job", "samples": document["failure_cost"]["samples"], "probability": None,
                     "makespan": m["mean"], "makespan_low": m["low"], "makespan_high": m["high"],
                     "overhead": overhead.get("mean"), "overhead_low": overhead.get("low"), "overhead_high": overhead.get("high"),
                     "overhead_checkpointing": document["failure_free_makespan"] / reference - 1 if reference else None,
                     "overhead_failures": (m["mean"] - document["failure_free_makespan"]) / reference if reference else None,
                     "incomplete": None})
    else:
        for e in document["estimates"]:
            rows.append({"method": e["method"], "samples": e["samples"], "probability": e["probability"],
                         "makespan": e["makespan"]["mean"], "makespan_low": e["makespan"]["low"],
                         "makespan_high": e["makespan"]["high"],
                         "overhead": e.get("overhead", {}).get("mean"), "overhead_low": e.get("overhead", {}).get("low"),
                         "overhead_high": e.get("overhead", {}).get("high"),
                         "overhead_checkpointing": e.get("overhead_checkpointing"),
                         "overhead_failures": e.get("overhead_failures", {}).get("mean"),
                         "incomplete": e["incomplete"]["mean"]})
    frame = pd.DataFrame(rows)
    frame.attrs["estimate"] = document
    return frame


def advise(config: ConfigLike, *, mtbf: Optional[str] = None, shape: Optional[float] = None,
           failures: Optional[str | Path] = None, format: str = "lanl", system: Optional[int] = None,
           protocols: Sequence[str] = ("global", "buddy", "cck", "uncoordinated"), budget: float = 600,
           samples: int = 40, jobs: int = 1, seed_base: int = 0, output: Optional[str | Path] = None,
           progress: bool = False, **overrides):
    """Which protocol and which checkpoint period cost least (``ftsim advise``, docs/advise.md):
    one row per protocol and candidate period, with columns ``protocol``, ``every`` (a
    checkpoint every that many iterations), ``period`` (seconds), ``method``, ``overhead``,
    ``overhead_low``, ``overhead_high`` (90%), ``std_error``, ``checkpointing``, ``failures``,
    ``recommended`` (the protocol's best period) and ``rank`` (of the protocol at its best period,
    1 first). The failure law: ``mtbf`` (and ``shape`` for Weibull), or ``failures`` a log fitted
    as ``ftsim failures fit`` does, or the config's own. The whole advice.json is in
    ``frame.attrs["advice"]``; ``ftsim.plots.advice(frame)`` draws it."""
    import pandas as pd

    config = apply_overrides(config, overrides)
    with tempfile.TemporaryDirectory(prefix="ftsim-advise-") as tmp:
        directory = Path(output) if output is not None else Path(tmp) / "advise"
        verb = ["advise", str(_config_file(config, Path(tmp))), "--protocols", ",".join(protocols), "--budget", str(budget),
                "-n", str(samples), "-j", str(jobs), "--seed-base", str(seed_base), "-o", str(directory)]
        if mtbf is not None:
            verb += ["--mtbf", str(mtbf)]
        if shape is not None:
            verb += ["--shape", str(shape)]
        if failures is not None:
            verb += ["--failures", str(failures), "--format", format]
            if system is not None:
                verb += ["--system", str(system)]
        _run(verb, config, directory, progress, _origin(config))
        document = json.loads((directory / "advice.json").read_text())
    rank = {protocol: i + 1 for i, protocol in enumerate(document["ranking"])}
    rows = []
    for p in document["protocols"]:
        for c in p.get("candidates") or []:
            rows.append({"protocol": p["protocol"], "every": c["every"], "period": c["period"], "method": c["method"],
                         "overhead": c["overhead"]["mean"], "overhead_low": c["overhead"]["low"],
                         "overhead_high": c["overhead"]["high"], "std_error": c["overhead"]["std_error"],
                         "checkpointing": c["checkpointing"], "failures": c["failures"],
                         "recommended": c["every"] == p["recommended"], "rank": rank.get(p["protocol"])})
    frame = pd.DataFrame(rows)
    frame.attrs["advice"] = document
    return frame


def advise_levels(config: ConfigLike, *, mtbf: Optional[str] = None, budget: float = 600, samples: int = 40, jobs: int = 1,
                  seed_base: int = 0, output: Optional[str | Path] = None, progress: bool = False, **overrides):
    """Which of global's checkpoint levels to use and how often (``ftsim advise --levels``,
    docs/multilevel.md): ``config``'s ``/protocol/levels`` are the candidates. One row per subset
    of them that ends with the most durable one, with columns ``levels`` (their storages, e.g.
    "buddy + stable"), ``model_overhead`` (the first-order model's H at its best pattern),
    ``bound``, ``counts`` (checkpoints of each level per pattern), ``work`` (seconds per pattern),
    ``cost`` and ``failure_rate`` (per level) and ``recommended``; ``skipped`` says why a subset
    was not evaluated. The whole advice.json, with the recommended protocol block and its estimated
    overhead, is in ``frame.attrs["advice"]``."""
    import pandas as pd

    config = apply_overrides(config, overrides)
    with tempfile.TemporaryDirectory(prefix="ftsim-advise-") as tmp:
        directory = Path(output) if output is not None else Path(tmp) / "advise"
        verb = ["advise", str(_config_file(config, Path(tmp))), "--levels", "--budget", str(budget), "-n", str(samples),
                "-j", str(jobs), "--seed-base", str(seed_base), "-o", str(directory)]
        if mtbf is not None:
            verb += ["--mtbf", str(mtbf)]
        _run(verb, config, directory, progress, _origin(config))
        document = json.loads((directory / "advice.json").read_text())
    chosen = document["recommended"]["levels"]
    rows = [{"levels": " + ".join(s["levels"]), "model_overhead": s.get("model_overhead"), "bound": s.get("bound"),
             "counts": s.get("counts"), "work": s.get("work"), "cost": s.get("cost"), "failure_rate": s.get("failure_rate"),
             "recommended": s["levels"] == chosen, "skipped": s.get("skipped")} for s in document["subsets"]]
    frame = pd.DataFrame(rows)
    frame.attrs["advice"] = document
    return frame


def fit_failures(log: str | Path, *, format: str = "lanl", system: Optional[int] = None, start: Optional[str] = None,
                 end: Optional[str] = None):
    """Exponential and Weibull fits of a failure log (``ftsim failures fit``, docs/advise.md): one
    row per system and level ("system": its interruptions, "node": the times between two failures
    of one node), with ``gaps``, ``mtbf_exponential`` (seconds) and its 90% ``_low``/``_high``,
    ``shape`` and ``shape_low``/``shape_high``, ``mtbf_weibull`` and its interval, and
    ``weibull_preferred``."""
    import pandas as pd

    with tempfile.TemporaryDirectory(prefix="ftsim-fit-") as tmp:
        out = Path(tmp) / "fit.json"
        verb = ["failures", "fit", str(log), "--format", format, "--json", str(out)]
        if system is not None:
            verb += ["--system", str(system)]
        if start is not None:
            verb += ["--from", start]
        if end is not None:
            verb += ["--to", end]
        _run(verb, str(log), out, False, str(log))
        document = json.loads(out.read_text())
    rows = []
    for s in document["systems"]:
        for level in ("system", "node"):
            fit = s[f"{level}_fit"]
            if "error" in fit:
                continue
            e, w = fit["exponential"]["mtbf"], fit["weibull"]
            rows.append({"system": s["system"], "level": level, "gaps": fit["gaps"],
                         "mtbf_exponential": e["value"], "mtbf_exponential_low": e["low"], "mtbf_exponential_high": e["high"],
                         "shape": w["shape"]["value"], "shape_low": w["shape"]["low"], "shape_high": w["shape"]["high"],
                         "mtbf_weibull": w["mtbf"]["value"], "mtbf_weibull_low": w["mtbf"]["low"],
                         "mtbf_weibull_high": w["mtbf"]["high"], "weibull_preferred": fit["weibull_preferred"]})
    return pd.DataFrame(rows)
