"""Bad input that is not a config of the malformed corpus (tests/configs/malformed/): special files,
huge or deeply nested documents, failure traces with invisible bytes, platform files, graphs too
large for the machine. Every case must end quickly with exit code 2 and one error line naming the
file (and the JSON pointer), never hang or crash."""
import copy
import json
import os

import pytest

TIMEOUT = 10  # seconds: every case is refused before any work

BASE = {
    "application": {"type": "cholesky", "tiles": 6, "tile_size": 128},
    "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": 2, "storage": {"hosts": 1}},
}


def config(**sections):
    document = copy.deepcopy(BASE)
    document.update(copy.deepcopy(sections))
    return document


def write(path, document):
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def assert_bad_input(result, *fragments):
    assert result.returncode == 2, f"exit code {result.returncode}\nstdout: {result.stdout}\nstderr: {result.stderr}"
    assert result.stderr.startswith("error: "), result.stderr
    assert result.stderr.count("\n") == 1, f"one error line expected:\n{result.stderr[:2000]}"
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


@pytest.fixture(params=["validate", "run"])
def verb(request):
    return request.param


def check(ftsim, verb, path, tmp_path):
    """`ftsim validate PATH` or `ftsim run PATH`, which must not write results."""
    if verb == "run":
        result = ftsim("run", path, "-o", tmp_path / "out", timeout=TIMEOUT)
        assert not (tmp_path / "out" / "results.json").exists()
        return result
    return ftsim("validate", path, timeout=TIMEOUT)


# ------------------------------------------------------------------------- special and huge files


def test_config_that_is_a_fifo_is_refused_at_once(ftsim, tmp_path, verb):
    os.mkfifo(tmp_path / "c.json")  # nobody writes: opening it for reading used to block forever
    assert_bad_input(check(ftsim, verb, tmp_path / "c.json", tmp_path), f"{tmp_path / 'c.json'}: is a FIFO, not a regular file")


def test_config_that_is_a_device_is_refused_at_once(ftsim, tmp_path, verb):
    # /dev/zero used to be read until memory ran out.
    assert_bad_input(check(ftsim, verb, "/dev/zero", tmp_path), "/dev/zero: is a character device, not a regular file")


def test_graph_file_that_is_a_fifo_is_refused(ftsim, tmp_path, verb):
    os.mkfifo(tmp_path / "g.json")
    path = write(tmp_path / "c.json", {"application": {"type": "json", "file": "g.json"},
                                       "platform": {"nodes": 2, "core_gflops": 1}})
    assert_bad_input(check(ftsim, verb, path, tmp_path), "/application/file: ", "is a FIFO, not a regular file")


def test_config_larger_than_64_mib_is_refused(ftsim, tmp_path, verb):
    path = tmp_path / "c.json"
    with open(path, "w") as out:
        out.write('{"description": "')
        out.truncate(65 << 20)  # a sparse file: no 65 MiB written to disk
    assert_bad_input(check(ftsim, verb, path, tmp_path), f"{path}: is 68157440 bytes, more than the 64 MiB")


@pytest.mark.parametrize("kind", ["config", "graph"])
def test_json_nested_a_million_levels_is_refused(ftsim, tmp_path, verb, kind):
    """Copies and dumps of such a document overflowed the stack."""
    deep = "[" * 1_000_000 + "]" * 1_000_000
    if kind == "config":
        path = tmp_path / "c.json"
        path.write_text('{"application": {"type": "cholesky", "tiles": 6, "tile_size": ' + deep + "}}")
        named, pointer = path, "/application/tile_size/0/0/"
    else:
        (tmp_path / "g.json").write_text('{"format": "ftsim-graph", "kernels": ' + deep + "}")
        path = write(tmp_path / "c.json", {"application": {"type": "json", "file": "g.json"},
                                           "platform": {"nodes": 2, "core_gflops": 1}})
        named, pointer = tmp_path / "g.json", "/kernels/0/0/"
    assert_bad_input(check(ftsim, verb, path, tmp_path), f"{named}: {pointer}",
                     ": expected at most 64 levels of nested objects and arrays, got more")


def test_config_with_a_byte_order_mark_is_read(ftsim, tmp_path):
    path = tmp_path / "c.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(config()).encode())
    result = ftsim("validate", path, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr


def test_duplicate_key_in_a_graph_file_is_refused(ftsim, tmp_path, verb):
    (tmp_path / "g.json").write_text('{"format": "ftsim-graph", "kernels": [{"name": "f", "flops": 1, "flops": 2}], '
                                     '"data": [], "submission": []}')
    path = write(tmp_path / "c.json", {"application": {"type": "json", "file": "g.json"},
                                       "platform": {"nodes": 2, "core_gflops": 1}})
    assert_bad_input(check(ftsim, verb, path, tmp_path), f"{tmp_path / 'g.json'}: /kernels/0/flops: duplicate key \"flops\"")


# ----------------------------------------------------------------------------------- failure traces


def trace_config(tmp_path, text):
    (tmp_path / "trace.txt").write_bytes(text)
    return write(tmp_path / "c.json", config(failures={"model": "trace", "file": "trace.txt"}))


def test_trace_with_a_byte_order_mark_is_read(ftsim, tmp_path):
    path = trace_config(tmp_path, b"\xef\xbb\xbf6ms 1\r\n13ms 3\r\n")
    result = ftsim("validate", path, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr


def test_trace_errors_quote_a_short_printable_excerpt(ftsim, tmp_path, verb):
    path = trace_config(tmp_path, b"6ms 1\n7ms\x00 2\r\n")
    assert_bad_input(check(ftsim, verb, path, tmp_path), f"{tmp_path / 'trace.txt'}:2: ", 'got "7ms\\x00 2\\r"')
    path = trace_config(tmp_path, b"6ms 1\n" + b"x" * 2_000_000 + b"\n")
    result = check(ftsim, verb, path, tmp_path)
    assert_bad_input(result, f"{tmp_path / 'trace.txt'}:2: ", 'got "' + "x" * 60 + '..."')
    assert len(result.stderr) < 300


def test_trace_that_is_a_fifo_is_refused(ftsim, tmp_path, verb):
    os.mkfifo(tmp_path / "trace.txt")
    path = write(tmp_path / "c.json", config(failures={"model": "trace", "file": "trace.txt"}))
    assert_bad_input(check(ftsim, verb, path, tmp_path), "/failures/file: ", "is a FIFO, not a regular file")


# ------------------------------------------------------------------------------ sizes and memory


def physical_memory():
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(physical_memory() > 100e9, reason="the machine could hold this graph")
@pytest.mark.parametrize("command", ["validate", "graph", "volumes", "run"])
def test_graph_larger_than_memory_is_refused_before_building(ftsim, tmp_path, command):
    """6.8e8 tasks, about 140 GB: refused at once, with the estimate, by every command."""
    document = config(application={"type": "cholesky", "tiles": 1600, "tile_size": 128}, checkpoints={"count": 4})
    path = write(tmp_path / "c.json", document)
    extra = ["-o", tmp_path / "out"] if command == "run" else []
    result = ftsim(command, path, *extra, timeout=TIMEOUT)
    assert_bad_input(result, f"{path}: /application/tiles: expected a simulation that fits in memory, got a graph of about "
                             "6.84e+08 tasks", "of physical memory")


# ---------------------------------------------------------------------------------- platform files

HOSTS = ["node-0", "node-1", "node-2", "node-3", "storage-0", "manager"]


def test_platform_routes_across_zones_are_checked_by_run(ftsim, tmp_path):
    """Two zones and no zoneRoute between them: ftsim validate cannot see it (only routes within
    a zone are checked without SimGrid); ftsim run asks SimGrid for every route before simulating."""
    def zone(name, hosts):
        routes = "".join(f'<route src="{a}" dst="{b}"><link_ctn id="l-{name}"/></route>'
                         for i, a in enumerate(hosts) for b in hosts[i + 1:])
        return (f'<zone id="{name}" routing="Full">' + "".join(f'<host id="{h}" speed="1Gf"/>' for h in hosts) +
                f'<link id="l-{name}" bandwidth="1GBps" latency="1us"/>{routes}</zone>')
    (tmp_path / "p.xml").write_text('<?xml version="1.0"?>\n<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
                                    '<platform version="4.1"><zone id="top" routing="Full">' + zone("a", HOSTS[:3]) +
                                    zone("b", HOSTS[3:]) + "</zone></platform>\n")
    path = write(tmp_path / "c.json", config(platform={**BASE["platform"], "xml": "p.xml"}))
    assert_bad_input(check(ftsim, "run", path, tmp_path), f"{path}: /platform/xml: platform file", "node-0", "node-3")


# ------------------------------------------------------------------------------------- DOT export


def test_dot_export_escapes_names_of_graph_files(ftsim, tmp_path):
    """A kernel name with a quote, a backslash and a line break used to give invalid DOT."""
    name = 'say "hi"\\\nnow'
    (tmp_path / "g.json").write_text(json.dumps({
        "format": "ftsim-graph", "version": 1, "nodes": 1, "kernels": [{"name": name, "flops": 1}],
        "data": [{"name": "A", "bytes": 8, "owner": 0}],
        "submission": [{"kernel": name, "node": 0, "access": [["W", "A"]]}]}))
    path = write(tmp_path / "c.json", {"application": {"type": "json", "file": "g.json"}, "platform": {"nodes": 1}})
    result = ftsim("graph", path, "--dot", tmp_path / "g.dot", timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    lines = [line for line in (tmp_path / "g.dot").read_text().splitlines() if line.startswith("  t0 ")]
    assert lines == ['  t0 [label="say \\"hi\\"\\\\\\nnow#0\\nnode 0", fillcolor="#8dd3c7"];'], lines
