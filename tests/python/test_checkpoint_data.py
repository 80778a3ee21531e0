"""/checkpoint_data (docs/checkpoint-data.md) from the command line: its config errors name the JSON
path; `ftsim validate` says what it does or why a protocol ignores it; a simulated run of every
protocol that saves data, with one failure that a replacement restores from a chain of images,
completes under the digest oracle with fewer bytes saved, and results.json reports the images
(full and incremental), the blocks and the CPU time charged. The seeded failure campaign runs the
same (tests/campaign/campaign_test.cpp, "campaign: checkpoint data ...")."""
import json

import pytest

DATA = {"zero_blocks": True, "incremental": {"block_size": "8KiB", "full_every": 3}, "compression": "zstd", "level": 3}


def base(protocol, app="cg"):
    applications = {
        "cg": {"type": "cg", "grid": 256, "blocks": 8, "iterations": 12},
        "cholesky": {"type": "cholesky", "tiles": 8, "tile_size": 128},
        "stencil": {"type": "stencil", "tiles": [4, 4], "tile_size": 128, "iterations": 12},
    }
    return {
        "name": f"data-{app}",
        "application": applications[app],
        "platform": {"nodes": 4, "cores_per_node": 2, "core_gflops": 2,
                     "network": {"topology": "star", "bandwidth": "10Gbps", "latency": "5us"},
                     "storage": {"hosts": 1, "bandwidth": "1GB/s"}},
        "checkpoints": {"count": 6, "buddy": "next"},
        "protocol": protocol,
        "checkpoint_data": DATA,
    }


def write(tmp_path, document, name="config.json"):
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize("patch, pointer, words", [
    ({"level": 3, "compression": "none"}, "/checkpoint_data/level", "needs \"compression\": \"zstd\""),
    ({"zero_blocks": False, "incremental": False, "compression": "none", "level": None}, "/checkpoint_data",
     "nothing to do"),
    ({"block_size": "100B"}, "/checkpoint_data/block_size", "multiple of 8"),
    ({"block_size": "4KiB"}, "/checkpoint_data/incremental/block_size", "give the block size once"),
    ({"incremental": {"full_every": 0}}, "/checkpoint_data/incremental/full_every", ""),
    ({"compression": "gzip"}, "/checkpoint_data/compression", "zstd"),
    ({"zero_block": True}, "/checkpoint_data/zero_block", "did you mean \"zero_blocks\""),
    ({"profile": {"zero_fraction": 1.5}}, "/checkpoint_data/profile/zero_fraction", ""),
    ({"profile": {"compression_ratio": 0.5}}, "/checkpoint_data/profile/compression_ratio", ""),
    ({"profile": {"families": {"B": {"changed_fraction": 0}}}}, "/checkpoint_data/profile/families/B",
     "no data family \"B\""),
])
def test_config_errors_name_the_path(ftsim, tmp_path, patch, pointer, words):
    document = base({"type": "global", "at": "cuts", "storage": "stable"})
    data = dict(DATA)
    for key, value in patch.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    document["checkpoint_data"] = data
    result = ftsim("validate", write(tmp_path, document))
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{pointer}:" in result.stderr, result.stderr
    assert words in result.stderr


def test_validate_says_what_it_does_and_who_ignores_it(ftsim, tmp_path):
    applied = ftsim("validate", write(tmp_path, base({"type": "global", "at": "cuts", "storage": "stable"})))
    assert applied.returncode == 0, applied.stderr
    assert "zero blocks, incremental (a full checkpoint every 3), zstd level 3" in applied.stdout
    assert ": applied" in applied.stdout
    for protocol in ("none", "lineage"):
        ignored = ftsim("validate", write(tmp_path, base({"type": protocol}), f"{protocol}.json"))
        assert ignored.returncode == 0, ignored.stderr
        assert "ignored: the " + protocol + " protocol saves no checkpoint data" in ignored.stdout


PROTOCOLS = [
    ("global-stable", {"type": "global", "at": "cuts", "storage": "stable"}),
    ("global-buddy", {"type": "global", "at": "cuts", "storage": "buddy"}),
    ("buddy", {"type": "buddy"}),
    ("cck", {"type": "cck", "at": "cuts"}),
    ("uncoordinated", {"type": "uncoordinated", "logging": "send-deterministic", "period": "2ms"}),
]


def run(ftsim, tmp_path, document, name):
    out = tmp_path / f"out-{name}"
    result = ftsim("run", write(tmp_path, document, f"{name}.json"), "-o", out)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads((out / "results.json").read_text()), result.stdout


@pytest.mark.parametrize("name, protocol", PROTOCOLS, ids=[p[0] for p in PROTOCOLS])
def test_a_failure_restores_from_a_chain_of_smaller_images(ftsim, tmp_path, name, protocol):
    plain = base(protocol)
    del plain["checkpoint_data"]
    without, _ = run(ftsim, tmp_path, plain, name + "-plain")
    document = base(protocol)
    # Node 1 fails late, after several checkpoints: its replacement reads a chain back.
    document["failures"] = {"model": "list", "events": [{"node": 1, "after_tasks": 110}], "downtime": "1ms"}
    results, summary = run(ftsim, tmp_path, document, name)
    assert results["complete"] and results["oracle"]["ok"], results["failure_reason"]
    data = results["checkpoint_data"]
    assert data["status"] == "applied"
    assert data["incremental"]["images"] > 0 and data["full"]["images"] > 0
    assert data["stored_bytes"] < data["logical_bytes"]
    assert data["hash_seconds"] > 0 and data["compress_seconds"] > 0
    assert data["images"] and {"process", "checkpoint", "kind", "logical_bytes", "stored_bytes"} <= set(data["images"][0])
    assert data["checkpoints"] and "incremental_stored_bytes" in data["checkpoints"][0]
    # What the protocol saved is the stored bytes, fewer than without the section.
    assert results["starpu"]["CP_DATA_NORMAL_TOTAL_SIZE"] < without["starpu"]["CP_DATA_NORMAL_TOTAL_SIZE"]
    assert "checkpoint data: stored / without" in summary
    if name != "global-buddy" and name != "buddy":
        assert data["restores"] >= 1 and data["restore_images"] >= 1


def test_protocols_that_save_nothing_ignore_it(ftsim, tmp_path):
    for protocol in ("none", "lineage"):
        document = base({"type": protocol})
        document["failures"] = {"model": "list", "events": [{"node": 1, "after_tasks": 100}]}
        results, summary = run(ftsim, tmp_path, document, protocol)
        assert results["complete"] and results["oracle"]["ok"]
        assert results["checkpoint_data"]["status"].startswith("ignored: the " + protocol)
        assert results["checkpoint_data"]["stored_bytes"] == 0
        assert "ignored" in summary


def test_without_the_section_results_say_null(ftsim, tmp_path):
    document = base({"type": "global", "at": "cuts", "storage": "stable"})
    del document["checkpoint_data"]
    results, _ = run(ftsim, tmp_path, document, "plain")
    assert results["checkpoint_data"] is None
