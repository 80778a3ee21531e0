"""Layering rules of DESIGN.md, checked on the sources.

Only the backends (sim/simgrid, sim/mpi) include SimGrid or MPI, never both; protocols see their own
process through core::ProtocolContext and nothing of the world driver, the backends or other
nodes' state.
"""
import os
import re
from pathlib import Path

import pytest

SOURCE = Path(os.environ.get("FTSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)
BACKEND_HEADERS = re.compile(r"^(simgrid/|xbt/|mpi\.h$|mpi/|openmpi/|smpi/)")
LAYERS_WITHOUT_BACKENDS = ["graphs", "sim/config", "sim/core", "protocols", "analysis"]
# `ftsim sweep` (sim/cli/CMakeLists.txt: ftsim_cli_sweep) and ftsim-mpi's sweep verb.
MPI_SWEEP_SOURCES = sorted((SOURCE / "sim/cli").glob("sweep_mpi.*"))
SWEEP_SOURCES = sorted(p for p in (SOURCE / "sim/cli").glob("sweep_*") if p not in MPI_SWEEP_SOURCES) + sorted(
    (SOURCE / "sim/cli").glob("sibling_executable.*"))


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
    files = sources("sim/mpi") + [SOURCE / "sim/cli/main_mpi.cpp", SOURCE / "sim/cli/run_report.cpp",
                                  SOURCE / "sim/cli/run_report.hpp"] + SWEEP_SOURCES + MPI_SWEEP_SOURCES
    offenders = [f"{p.relative_to(SOURCE)}: {h}" for p in files for h in includes(p)
                 if h.startswith(("simgrid/", "xbt/", "smpi/", "sim/simgrid/"))]
    offenders += [f"{p.relative_to(SOURCE)}: {h}" for p in sources("sim/mpi/kernels") for h in includes(p)
                  if BACKEND_HEADERS.match(h)]
    assert offenders == []
    simgrid_side = [f"{p.relative_to(SOURCE)}: {h}" for p in sources("sim/simgrid") for h in includes(p)
                    if h == "mpi.h" or h.startswith("sim/mpi/")]
    assert simgrid_side == []


def test_the_sweep_shared_by_ftsim_and_ftsim_mpi_includes_no_backend():
    # ftsim_cli_sweep is linked into ftsim (SimGrid) and ftsim-mpi (MPI): it includes neither; only
    # ftsim-mpi's own sweep file talks MPI.
    assert SWEEP_SOURCES and MPI_SWEEP_SOURCES
    offenders = [f"{p.relative_to(SOURCE)}: {h}" for p in SWEEP_SOURCES for h in includes(p)
                 if BACKEND_HEADERS.match(h) or h.startswith(("sim/simgrid/", "sim/mpi/"))]
    assert offenders == []


def test_protocols_see_only_their_context():
    # Protocols include the protocol interface and context, graphs and configs: never the world
    # driver, a node host, a backend or the node runtime's services.
    allowed_core = {"sim/core/protocol.hpp", "sim/core/protocol_context.hpp", "sim/core/wire.hpp",
                    "sim/core/message.hpp", "sim/core/digest.hpp"}
    offenders = []
    for path in sources("protocols"):
        for header in includes(path):
            if header.startswith("sim/") and not header.startswith("sim/config/") and header not in allowed_core:
                offenders.append(f"{path.relative_to(SOURCE)}: {header}")
    assert offenders == []


def test_the_protocol_context_offers_no_global_view():
    # What a protocol may call: nothing that names another node's runtime, true liveness, the
    # failure log or the run's metrics.
    context = (SOURCE / "sim/core/protocol_context.hpp").read_text(encoding="utf-8")
    for forbidden in ["runtime_of", "alive(", "tasks()", "detections()", "RunMetrics", "metrics()", "Simulation",
                      "latest_failure", "failure_record"]:
        assert forbidden not in context, forbidden
    for path in sources("protocols"):
        text = path.read_text(encoding="utf-8")
        for forbidden in ["runtime_of", "Shared", "static std::", "dynamic_cast", "shared_ptr<Rollback", "test_faults"]:
            assert forbidden not in text, f"{path.relative_to(SOURCE)}: {forbidden}"


def test_a_planted_violation_is_caught(tmp_path):
    # The include check itself can fail: a protocol source that includes SimGrid is reported.
    bad = tmp_path / "bad_protocol.cpp"
    bad.write_text('#include "simgrid/s4u.hpp"\n#include "sim/core/simulation.hpp"\n', encoding="utf-8")
    found = [h for h in includes(bad) if BACKEND_HEADERS.match(h) or h == "sim/core/simulation.hpp"]
    assert found == ["simgrid/s4u.hpp", "sim/core/simulation.hpp"]


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
