"""Every reproduction command that README.md and configs/papers/README.md list exits 0, at reduced size (issue 39,
item 4: `bench/besseron2006.py` exited 1 at Fig. 12 when the makespan moved from its config's constant, and nothing
ran it). The commands are read from the two files, so a new one cannot escape this test:

- README.md: the code block after "Reproductions of the papers' figures";
- configs/papers/README.md: every command (a code span that starts with `build/` or `/usr/bin/python3`) of the
  table's command column; each row has one.

Each runs as written from a directory that looks like the repository's root (configs/, bench/, build/), in its
reduced form:

- a bench script (`/usr/bin/python3 bench/X.py ...`) with `--smoke`, which every such script has (a few points,
  small graphs; its numbers mean nothing);
- `build/ftsim run|volumes|sweep CONFIG ...` on a copy of CONFIG made smaller by SMOKE_SIZES (JSON pointers), or
  as it is when it is not listed there (then it must already take seconds);
- `build/tests/ftsim_unit_tests TAGS` with `--list-test-names-only`: the tags must name tests (ctest runs each of
  them already; `[messages]` alone takes half a minute).

Each has a wall timeout: a command that takes minutes needs a reduced form, not a longer timeout."""
import json
import os
import re
import shlex
import subprocess
import time

import pytest

from conftest import BINARY, SOURCE_DIR

# Wall seconds per command in its reduced form (they take 1-10 s on 2 shared cores).
TIMEOUT = 120

# What makes a config of a listed ftsim command small: JSON pointer -> value.
SMOKE_SIZES = {
    "configs/papers/lion2020-table1.json": {"/application/tiles": 40},
    "configs/papers/lion2020-platform.json": {"/application/tiles": 24},
    "configs/papers/lion2020-calibrated.json": {"/application/tiles": 24},
    "configs/papers/lion2020-fig6.json": {"/application/tiles": 24},
    "configs/papers/cores2015-migration.json": {"/sweep/seeds": 1, "/sweep/grid/failures.prediction.recall": [0, 1],
                                                "/sweep/grid/failures.prediction.lead_time": ["100ms"]},
}


def readme_commands(text):
    """The commands of README.md's reproduction block."""
    section = text.split("Reproductions of the papers' figures", 1)[1]
    block = re.search(r"```\n(.*?)```", section, re.S).group(1)
    return [line.split(" #", 1)[0].strip() for line in block.splitlines() if line.split(" #", 1)[0].strip()]


def table_commands(text):
    """The commands of the command column of configs/papers/README.md's table, and the rows that have none."""
    commands, without = [], []
    lines = [line for line in text.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    column = header.index("command")
    for line in lines[2:]:
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        found = [span for span in re.findall(r"`([^`]+)`", cells[column])
                 if span.startswith(("build/", "/usr/bin/python3 "))]
        commands += found
        if not found:
            without.append(cells[0])
    return commands, without


def listed_commands():
    commands = readme_commands((SOURCE_DIR / "README.md").read_text(encoding="utf-8"))
    commands += table_commands((SOURCE_DIR / "configs" / "papers" / "README.md").read_text(encoding="utf-8"))[0]
    return list(dict.fromkeys(commands))


def set_pointer(document, pointer, value):
    *path, last = [step.replace("~1", "/").replace("~0", "~") for step in pointer.lstrip("/").split("/")]
    for step in path:
        document = document[int(step)] if isinstance(document, list) else document[step]
    document[last] = value


def smoke_form(command, root):
    """The argv that runs ``command`` at reduced size from ``root``."""
    argv = shlex.split(command)
    if argv[0] == "/usr/bin/python3" and argv[1].startswith("bench/"):
        return argv + ["--smoke"]
    if argv[0] == "build/tests/ftsim_unit_tests":
        return [argv[0], "--list-test-names-only", *argv[1:]]
    if argv[0] == "build/ftsim":
        for i, arg in enumerate(argv):
            if arg in SMOKE_SIZES:
                document = json.loads((SOURCE_DIR / arg).read_text(encoding="utf-8"))
                for pointer, value in SMOKE_SIZES[arg].items():
                    set_pointer(document, pointer, value)
                document.pop("$schema", None)
                smaller = root / "smoke" / arg
                smaller.parent.mkdir(parents=True, exist_ok=True)
                smaller.write_text(json.dumps(document), encoding="utf-8")
                argv[i] = str(smaller.relative_to(root))
        return argv
    raise AssertionError(f"{command}: no reduced form is known for this kind of command (add one to smoke_form)")


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """A directory that looks like the repository's root: configs/ and bench/ of the sources, build/ of the binary."""
    root = tmp_path_factory.mktemp("reproductions")
    for name in ("configs", "bench"):
        (root / name).symlink_to(SOURCE_DIR / name)
    (root / "build").mkdir()
    for name in ("ftsim", "ftsim-mpi", "tests", "python"):
        (root / "build" / name).symlink_to(BINARY.resolve().parent / name)
    return root


def test_the_lists_are_read():
    commands = listed_commands()
    assert "build/ftsim run configs/papers/lion2020-fig6.json" in commands
    assert "/usr/bin/python3 bench/besseron2006.py --figures 12" in commands
    assert "/usr/bin/python3 bench/buddy_table1.py" in commands
    _, without = table_commands((SOURCE_DIR / "configs" / "papers" / "README.md").read_text(encoding="utf-8"))
    assert without == [], f"rows of configs/papers/README.md without a command: {without}"


@pytest.mark.parametrize("command", listed_commands())
def test_the_command_runs_at_reduced_size(command, root):
    argv = smoke_form(command, root)
    env = dict(os.environ, FTSIM_BINARY=str(BINARY.resolve()), FTSIM_BUILD_DIR=str(BINARY.resolve().parent))
    start = time.monotonic()
    try:
        result = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{' '.join(argv)}: still running after {TIMEOUT} s: its reduced form must take seconds")
    detail = f"{' '.join(argv)} (from: {command})\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    if argv[0] == "build/tests/ftsim_unit_tests":  # Catch2's listing exits with the number of tests it lists
        assert result.returncode > 0 and result.stdout.strip(), f"the tags name no test: {detail}"
    else:
        assert result.returncode == 0, detail
    print(f"{command}: {time.monotonic() - start:.1f} s")


def test_every_bench_script_of_the_lists_has_a_smoke_option():
    scripts = {shlex.split(c)[1] for c in listed_commands() if c.startswith("/usr/bin/python3 bench/")}
    for script in scripts:
        assert '"--smoke"' in (SOURCE_DIR / script).read_text(encoding="utf-8"), script


# How long a command takes, as the lists say it: "about 35 s", "about a minute", "under a second", "a few seconds".
DURATION = re.compile(r"\b(about|under) (a|an|\d[\d.]*) ?(seconds?|minutes?|min|s)\b|\ba few seconds\b")


def test_every_listed_command_says_how_long_it_takes():
    """Issue 39, item 8: the README states how long each reproduction takes on a 2-core machine; so does the
    table of configs/papers/README.md, for each row's command."""
    silent = []
    text = (SOURCE_DIR / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```\n(.*?)```", text.split("Reproductions of the papers' figures", 1)[1], re.S).group(1)
    for line in block.splitlines():
        if line.strip() and not DURATION.search(line.partition(" #")[2]):
            silent.append(f"README.md: {line.strip()}")
    lines = [line for line in (SOURCE_DIR / "configs" / "papers" / "README.md").read_text(encoding="utf-8").splitlines()
             if line.startswith("|")]
    column = [cell.strip() for cell in lines[0].strip("|").split("|")].index("command")
    for line in lines[2:]:
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if not DURATION.search(re.sub(r"`[^`]*`", "", cells[column])):
            silent.append(f"configs/papers/README.md: {cells[column]}")
    assert silent == []
