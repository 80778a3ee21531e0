"""Layering rules of DESIGN.md, checked on the sources and, exactly, on the built protocol library.

Only the backends (sim/simgrid, sim/mpi) include SimGrid or MPI, never both; protocols see their own
process through node::ProtocolContext and nothing of the world driver, the backends or other
nodes' state: the symbols the protocol library uses (nm) name none of them, nor the runtime's event
entry points, and it holds no writable global (objdump). Every protocol is one folder.
"""
import os
import re
from pathlib import Path

import pytest

SOURCE = Path(os.environ.get("FTSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)
BACKEND_HEADERS = re.compile(r"^(simgrid/|xbt/|mpi\.h$|mpi/|openmpi/|smpi/)")
LAYERS_WITHOUT_BACKENDS = ["graphs", "sim/config", "sim/node", "sim/world", "protocols", "analysis", "sim/sweep", "sim/estimate"]
# `ftsim sweep` (sim/sweep: ftsim_sweep) and ftsim-mpi's sweep verb.
MPI_SWEEP_SOURCES = sorted((SOURCE / "sim/mpi").glob("mpi_sweep.*"))
SWEEP_SOURCES = sorted((SOURCE / "sim/sweep").glob("*.[ch]pp"))


def sources(folder):
    return sorted(p for p in (SOURCE / folder).rglob("*") if p.suffix in {".hpp", ".cpp", ".h"})


def includes(path):
    return INCLUDE.findall(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("folder", LAYERS_WITHOUT_BACKENDS)
def test_no_simgrid_or_mpi_below_the_backends(folder):
    files = sources(folder)
    assert files, f"no sources under {folder}"
    offenders = [f"{p.relative_to(SOURCE)}: {h}" for p in files for h in includes(p) if BACKEND_HEADERS.match(h)]
    assert offenders == []


def test_the_mpi_backend_never_loads_simgrid():
    # SimGrid's library defines MPI symbols of its own (SMPI): what ftsim-mpi is built from must not
    # include SimGrid nor the SimGrid backend, and the kernels include neither backend.
    files = sources("sim/mpi") + [SOURCE / "sim/cli/main_mpi.cpp", SOURCE / "sim/run/run_report.cpp",
                                  SOURCE / "sim/run/run_report.hpp"] + SWEEP_SOURCES + MPI_SWEEP_SOURCES
    offenders = [f"{p.relative_to(SOURCE)}: {h}" for p in files for h in includes(p)
                 if h.startswith(("simgrid/", "xbt/", "smpi/", "sim/simgrid/"))]
    offenders += [f"{p.relative_to(SOURCE)}: {h}" for p in sources("graphs/apps/kernels") for h in includes(p)
                  if BACKEND_HEADERS.match(h)]
    assert offenders == []
    simgrid_side = [f"{p.relative_to(SOURCE)}: {h}" for p in sources("sim/simgrid") for h in includes(p)
                    if h == "mpi.h" or h.startswith("sim/mpi/")]
    assert simgrid_side == []


def test_the_sweep_shared_by_ftsim_and_ftsim_mpi_includes_no_backend():
    # ftsim_sweep is linked into ftsim (SimGrid) and ftsim-mpi (MPI): it includes neither; only
    # ftsim-mpi's own sweep file talks MPI.
    assert SWEEP_SOURCES and MPI_SWEEP_SOURCES
    offenders = [f"{p.relative_to(SOURCE)}: {h}" for p in SWEEP_SOURCES for h in includes(p)
                 if BACKEND_HEADERS.match(h) or h.startswith(("sim/simgrid/", "sim/mpi/"))]
    assert offenders == []


PRODUCTION_FOLDERS = LAYERS_WITHOUT_BACKENDS + ["sim/simgrid", "sim/mpi", "sim/run", "sim/cli", "python"]


@pytest.mark.parametrize("folder", PRODUCTION_FOLDERS)
def test_no_production_file_includes_the_tests(folder):
    # Planted faults reach a protocol through protocols/mutants.hpp only: its hooks are `false`
    # unless the file is compiled for the mutation tests, which define them in tests/support.
    offenders = [f"{p.relative_to(SOURCE)}: {h}" for p in sources(folder) for h in includes(p) if h.startswith("tests/")]
    assert offenders == []


def test_the_protocol_context_offers_no_global_view():
    # What a protocol may call: nothing that names another node's runtime, true liveness, the
    # failure log or the run's metrics.
    context = (SOURCE / "sim/node/protocol_context.hpp").read_text(encoding="utf-8")
    for forbidden in ["runtime_of", "alive(", "tasks()", "detections()", "RunMetrics", "metrics()", "Simulation",
                      "latest_failure", "failure_record"]:
        assert forbidden not in context, forbidden


def test_a_planted_violation_is_caught(tmp_path):
    # The include check itself can fail: a protocol source that includes SimGrid is reported.
    bad = tmp_path / "bad_protocol.cpp"
    bad.write_text('#include "simgrid/s4u.hpp"\n#include "sim/world/simulation.hpp"\n', encoding="utf-8")
    found = [h for h in includes(bad) if BACKEND_HEADERS.match(h) or h == "sim/world/simulation.hpp"]
    assert found == ["simgrid/s4u.hpp", "sim/world/simulation.hpp"]


# --- The exact check: no process-wide writable state in the protocol library (objdump) ---------
BUILD = Path(os.environ.get("FTSIM_BINARY", SOURCE / "build" / "ftsim")).parent
PROTOCOL_LIBRARY = BUILD / "protocols" / "libftsim_protocols.a"
WRITABLE_SECTION = re.compile(r"^\.(data|bss|tdata|tbss)(\.|$)")
# What the compiler itself writes: the exception-handling personality reference.
COMPILER_OBJECTS = {"DW.ref.__gxx_personality_v0"}


def writable_objects(archive):
    """Data objects of `archive` in writable sections (.data, .bss, thread-local): globals and
    statics a protocol instance could share with another. Type info and vtables live in
    .data.rel.ro (read-only once relocated) and are not listed."""
    import shutil
    import subprocess
    if shutil.which("objdump") is None:
        pytest.skip("objdump not found")
    table = subprocess.run(["objdump", "-t", "-C", str(archive)], capture_output=True, text=True, check=True).stdout
    found = []
    for line in table.splitlines():
        parts = line.split("\t")
        if len(parts) != 2:
            continue
        left = parts[0].split()
        if len(left) < 3 or "O" not in left[1:-1]:
            continue
        section = left[-1]
        name = parts[1].split(None, 1)[-1].replace(".hidden ", "").strip()
        if WRITABLE_SECTION.match(section) and not section.startswith(".data.rel.ro") and name not in COMPILER_OBJECTS:
            found.append(f"{section} {name}")
    return found


def test_the_protocol_library_has_no_writable_globals():
    if not PROTOCOL_LIBRARY.exists():
        pytest.fail(f"{PROTOCOL_LIBRARY} not built")
    assert writable_objects(PROTOCOL_LIBRARY) == []


def test_a_planted_writable_global_is_caught(tmp_path):
    import shutil
    import subprocess
    if shutil.which("g++") is None:
        pytest.skip("g++ not found")
    source = tmp_path / "planted.cpp"
    source.write_text("int shared_count;\nint next_id() { static int calls = 1; return ++calls + shared_count; }\n"
                      "const int read_only = 3;\nint get() { return read_only; }\n", encoding="utf-8")
    subprocess.run(["g++", "-O2", "-c", str(source), "-o", str(tmp_path / "planted.o")], check=True)
    subprocess.run(["ar", "rcs", str(tmp_path / "libplanted.a"), str(tmp_path / "planted.o")], check=True)
    found = writable_objects(tmp_path / "libplanted.a")
    assert any("shared_count" in f for f in found), found
    assert any("calls" in f for f in found), found
    assert not any("read_only" in f for f in found), found


# --- The exact check: what the protocol library calls (nm -u) ----------------------------------
# A protocol reaches its node only through ProtocolContext / ProtocolRuntime: never the world, a
# host, a backend, the failure schedule, the planted test faults (a mutation hook compiled in),
# nor the runtime's event entry points or store mutators (a version of its own choosing, a task done without running).
FORBIDDEN_SYMBOLS = [
    "ftsim::world::Simulation", "ftsim::node::NodeHost", "ftsim::node::HostEnvironment", "ftsim::mpi::",
    "ftsim::simgrid_backend::", "ftsim::world::FailureSchedule", "ftsim::testing::", "ftsim::mutants::",
    "ftsim::node::NodeRuntime::on_data", "ftsim::node::NodeRuntime::on_task_finished",
    "ftsim::node::NodeRuntime::mark_done", "ftsim::node::NodeRuntime::wipe",
    "ftsim::node::VersionStore::add_own", "ftsim::node::VersionStore::produce", "ftsim::node::VersionStore::add_copy",
    "ftsim::node::VersionStore::assign", "ftsim::node::NodeRuntime::store()",
]


def used_symbols(archive):
    import shutil
    import subprocess
    if shutil.which("nm") is None:
        pytest.skip("nm not found")
    table = subprocess.run(["nm", "-C", "-u", str(archive)], capture_output=True, text=True, check=True).stdout
    return [line.split(None, 1)[-1].strip() for line in table.splitlines() if line.strip().startswith("U ")]


def forbidden_uses(archive):
    return sorted({f"{symbol}" for symbol in used_symbols(archive) for f in FORBIDDEN_SYMBOLS if f in symbol})


def test_the_protocol_library_uses_nothing_beyond_its_context():
    if not PROTOCOL_LIBRARY.exists():
        pytest.fail(f"{PROTOCOL_LIBRARY} not built")
    used = used_symbols(PROTOCOL_LIBRARY)
    assert any("ftsim::node::NodeRuntime::restore" in u for u in used), "nm found no use of the runtime at all"
    assert forbidden_uses(PROTOCOL_LIBRARY) == []


def test_a_planted_forbidden_call_is_caught(tmp_path):
    import shutil
    import subprocess
    if shutil.which("g++") is None:
        pytest.skip("g++ not found")
    source = tmp_path / "planted.cpp"
    source.write_text(
        '#include "sim/node/node_runtime.hpp"\n'
        "void cheat(ftsim::node::NodeRuntime& r) { r.store().add_own(0, 1, 8, 42); r.on_data(0, 1, 2); }\n", encoding="utf-8")
    subprocess.run(["g++", "-std=c++20", "-O2", "-I", str(SOURCE), "-c", str(source), "-o", str(tmp_path / "planted.o")],
                   check=True)
    subprocess.run(["ar", "rcs", str(tmp_path / "libplanted.a"), str(tmp_path / "planted.o")], check=True)
    found = forbidden_uses(tmp_path / "libplanted.a")
    assert any("add_own" in f for f in found), found
    assert any("on_data" in f for f in found), found


# --- One folder per protocol --------------------------------------------------------------------
def test_every_protocol_is_a_folder_with_its_module_and_schema():
    folders = sorted(p.parent.name for p in (SOURCE / "protocols").glob("*/module.cpp"))
    assert {"none", "global", "lineage", "buddy"} <= set(folders)
    for name in folders:
        assert (SOURCE / "protocols" / name / "schema.json").exists(), f"protocols/{name}/schema.json"
        module = (SOURCE / "protocols" / name / "module.cpp").read_text(encoding="utf-8")
        symbol = name.replace("-", "_")  # protocols/CMakeLists.txt: the id as a C identifier
        assert f"extern const ProtocolModule {symbol}_module" in module, f"protocols/{name}/module.cpp"


def test_the_config_schema_has_every_protocol_fragment():
    import subprocess
    import sys
    result = subprocess.run([sys.executable, str(SOURCE / "scripts" / "protocol_schema.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
