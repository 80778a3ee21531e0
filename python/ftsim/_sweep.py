"""ftsim.sweep: runs `ftsim sweep` (docs/sweeps.md) and reads its rows into a DataFrame."""
from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Optional

from ftsim._config import ConfigError, ConfigLike, _Derived, apply_overrides, name_override

# The keys the loader reads relative to the config file (made absolute before the config moves).
_FILE_KEYS = (("application", "file"), ("application", "path"), ("platform", "xml"), ("failures", "file"))


def _binary() -> Path:
    """The ftsim executable: $FTSIM_BINARY, else the one this package was built beside."""
    if "FTSIM_BINARY" in os.environ:
        return Path(os.environ["FTSIM_BINARY"])
    return Path(__file__).resolve().parent.parent.parent / "ftsim"


def _config_file(config: ConfigLike, folder: Path) -> Path:
    """A file holding the config: the file itself, or the dict written into ``folder`` with its
    relative file paths made absolute (from the original file's folder, or the current one)."""
    if isinstance(config, (str, Path)):
        return Path(config)
    base = Path(config.origin).resolve().parent if isinstance(config, _Derived) and config.origin else Path.cwd()
    document = json.loads(json.dumps(config))
    for section, key in _FILE_KEYS:
        value = document.get(section, {}).get(key) if isinstance(document.get(section), dict) else None
        if isinstance(value, str) and not Path(value).is_absolute():
            document[section][key] = str(base / value)
    models = document.get("platform", {}).get("kernel_models") if isinstance(document.get("platform"), dict) else None
    for model in (models or {}).values():
        if isinstance(model, dict) and isinstance(model.get("file"), str) and not Path(model["file"]).is_absolute():
            model["file"] = str(base / model["file"])
    path = folder / "sweep-config.json"
    path.write_text(json.dumps(document, indent=1))
    return path


def _config_error(stderr: str, origin: str) -> ConfigError:
    for line in reversed(stderr.strip().splitlines()):
        line = line.removeprefix("error: ")
        match = re.match(r"^(.*?): (/[^:]*): (.*)$", line)
        if match:
            return ConfigError(*match.groups())
        if line:
            return ConfigError(origin, "", line)
    return ConfigError(origin, "", "ftsim sweep refused the config")


def _resolve_shard(shard: Optional[str]) -> Optional[str]:
    """``"K/N"`` as given, or for ``"auto"`` the Slurm job array's task: SLURM_ARRAY_TASK_ID of
    SLURM_ARRAY_TASK_COUNT (an array numbered from 0)."""
    if shard != "auto":
        return shard
    task, count = os.environ.get("SLURM_ARRAY_TASK_ID"), os.environ.get("SLURM_ARRAY_TASK_COUNT")
    if task is None or count is None:
        raise ValueError('shard="auto" needs SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (a Slurm job array)')
    return f"{task}/{count}"


def sweep(config: ConfigLike, *, jobs: int = 1, output: Optional[str | Path] = None, shard: Optional[str] = None,
          progress: bool = False, **overrides):
    """Runs the sweep config ``config`` (``ftsim sweep``; a path or a dict with a ``sweep``
    section, docs/sweeps.md) and returns one row per point as a pandas DataFrame.

    - ``jobs``: points run at once (each a child process);
    - ``output``: the sweep's directory (each point's results.json is in ``points/<id>/``: read
      one with ``ftsim.load``); run again with the same one, finished points are not recomputed
      (default: a temporary directory, removed afterwards);
    - ``shard``: ``"K/N"``, only the points whose index is K modulo N, or ``"auto"`` for the Slurm
      job array's task (``SLURM_ARRAY_TASK_ID`` / ``SLURM_ARRAY_TASK_COUNT``);
    - ``progress``: show the sweep's progress on stderr;
    - ``overrides``: keys of the base config to set, as for :func:`ftsim.run`
      (``**{"platform.nodes": 8}``).

    Columns (docs/sweeps.md): ``point``, ``id``, the varied keys (``protocol.type``, ``seed``...;
    a varied value with a unit is followed by its SI number: ``protocol.period_s``, ``*_bytes``,
    ``*_Bps``), ``status``, ``exit_code``, ``reason``, ``wall_seconds``, then the metrics:
    ``makespan``, with ``run.reference`` ``reference_makespan``, ``protocol_makespan``,
    ``overhead``, ``overhead_checkpointing`` and ``overhead_failures`` (fractions),
    ``checkpoint_duration`` (Daly's C under ``global`` and ``cck`` only), ``failure_count``, ``recovery_time``, traffic and counters.
    A point that fails is a row with ``status`` "failed" or "error"; a bad config raises
    :class:`ConfigError`. ``ftsim.plots`` draws these frames as they are.
    """
    import pandas as pd

    config = apply_overrides(config, overrides)
    shard = _resolve_shard(shard)
    origin = str(config) if isinstance(config, (str, Path)) else getattr(config, "origin", None) or "<dict>"
    with tempfile.TemporaryDirectory(prefix="ftsim-sweep-") as tmp:
        directory = Path(output) if output is not None else Path(tmp) / "sweep"
        directory.mkdir(parents=True, exist_ok=True)
        command = [str(_binary()), "sweep", str(_config_file(config, Path(tmp))), "-o", str(directory), "-j", str(jobs)]
        if shard:
            command += ["--shard", shard]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_"))}
        process = subprocess.run(command, stdout=subprocess.PIPE, stderr=None if progress else subprocess.PIPE,
                                 text=True, env=env)
        if process.returncode == 2:
            raise name_override(_config_error(process.stderr or "", origin), config)
        rows_file = directory / (f"rows.shard-{shard.replace('/', '-of-')}.jsonl" if shard else "rows.jsonl")
        if not rows_file.exists():
            raise RuntimeError(f"ftsim sweep wrote no rows (exit code {process.returncode}): {process.stderr}")
        rows = [json.loads(line) for line in rows_file.read_text().splitlines() if line.strip()]
    return pd.DataFrame(rows)
