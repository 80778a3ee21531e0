"""What is configured is what is simulated: SimGrid's network model (/platform/network/model), the
factors `ftsim run` reports for it (summary line, results.json `network_model`), and that they are
the ones simulated.

configs/examples/platform-cm02.json: one 1 GB datum owned by node 0 and read by a zero-flop task on
node 1, a single transfer over node 0's up link and node 1's down link (8 Gbps = 1 GB/s and 10 us
each), so the makespan is that transfer's time:
bytes / (bandwidth x bandwidth factor) + 2 links x latency x latency factor.
"""
import json

import pytest

BYTES, BANDWIDTH, LATENCY = 1e9, 1e9, 10e-6
SIMGRID_PRECISION = 1e-8  # SimGrid rounds simulated times to about 1e-9 s (surf/precision)


@pytest.fixture(scope="module")
def one_transfer(ftsim, source_dir, tmp_path_factory):
    """Runs the example with the given network model (None: the key absent) or platform file."""
    root = tmp_path_factory.mktemp("network-model")
    example = json.loads((source_dir / "configs" / "examples" / "platform-cm02.json").read_text())
    example["application"]["file"] = str(source_dir / "configs" / "examples" / "graphs" / "one-transfer.json")
    counter = iter(range(1_000_000))

    def go(model, xml=None):
        config = json.loads(json.dumps(example))
        config["name"] = f"one-transfer-{next(counter)}"
        if model is None:
            del config["platform"]["network"]["model"]
        else:
            config["platform"]["network"]["model"] = model
        if xml is not None:
            (root / f"{config['name']}.xml").write_text(xml)
            config["platform"]["xml"] = f"{config['name']}.xml"
        path = root / f"{config['name']}.json"
        path.write_text(json.dumps(config))
        proc = ftsim("run", path, "-o", root / config["name"], timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        results = json.loads((root / config["name"] / "results.json").read_text())
        assert results["bytes_sent"]["application"] == BYTES and results["messages_sent"]["application"] == 1
        return proc.stdout, results

    return go


def test_cm02_simulates_the_configured_network(one_transfer):
    stdout, results = one_transfer("CM02")
    assert results["makespan"] == pytest.approx(BYTES / BANDWIDTH + 2 * LATENCY, abs=SIMGRID_PRECISION)  # 1.00002 s
    assert "network model CM02 (latency x1, bandwidth x1: as configured)\n" in stdout


def test_lv08_is_the_default_and_says_so(one_transfer):
    stdout, results = one_transfer(None)
    assert results["makespan"] == pytest.approx(1.0312, rel=1e-3)  # 1 GB / 0.97 GB/s + 2 x 130.1 us
    assert results["network_model"] == {
        "name": "LV08", "latency_factor": 13.01, "bandwidth_factor": 0.97, "factors_by_message_size": False,
        "contention": "flows", "solver": "grouped",
    }
    assert "network model LV08 (latency x13.01, bandwidth x0.97)\n" in stdout
    assert one_transfer("LV08")[1]["makespan"] == results["makespan"]


@pytest.mark.parametrize("model", ["LV08", "CM02", "SMPI", "IB"])
def test_reported_factors_are_the_simulated_ones(one_transfer, model):
    stdout, results = one_transfer(model)
    reported = results["network_model"]
    assert reported["name"] == model
    assert f"network model {model} (" in stdout
    # SMPI and IB: a 1 GB message gets the factors of messages over 65472 B, the ones reported;
    # IB's contention penalties need two transfers at once.
    expected = BYTES / (BANDWIDTH * reported["bandwidth_factor"]) + 2 * LATENCY * reported["latency_factor"]
    assert results["makespan"] == pytest.approx(expected, abs=SIMGRID_PRECISION)


# A split-duplex link: SimGrid's cross-traffic (a transfer also loads its reverse route with 5% of
# its rate) would otherwise slow a transfer over a shared link by 1.05.
PLATFORM_FILE = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  {config}
  <zone id="one-link" routing="Full">
    <host id="node-0" speed="1Gf"/>
    <host id="node-1" speed="1Gf"/>
    <host id="manager" speed="1Gf"/>
    <link id="link" bandwidth="8Gbps" latency="10us" sharing_policy="SPLITDUPLEX"/>
    <!-- every host must reach every other; the coordinator's routes carry nothing here -->
    <link id="control" bandwidth="8Gbps" latency="10us"/>
    <route src="node-0" dst="node-1"><link_ctn id="link" direction="UP"/></route>
    <route src="node-0" dst="manager"><link_ctn id="control"/></route>
    <route src="node-1" dst="manager"><link_ctn id="control"/></route>
  </zone>
</platform>
"""


def test_a_platform_file_gets_the_model_too(one_transfer):
    xml = PLATFORM_FILE.format(config="")
    assert one_transfer("CM02", xml)[1]["makespan"] == pytest.approx(1.00001, abs=SIMGRID_PRECISION)  # one link
    assert one_transfer(None, xml)[1]["makespan"] == pytest.approx(1 / 0.97 + 13.01 * LATENCY, abs=SIMGRID_PRECISION)


def test_the_config_model_wins_over_the_platform_files(one_transfer):
    xml = PLATFORM_FILE.format(config='<config><prop id="network/model" value="CM02"/></config>')
    _, results = one_transfer(None, xml)
    assert results["network_model"]["name"] == "LV08"
    assert results["makespan"] == pytest.approx(1 / 0.97 + 13.01 * LATENCY, abs=SIMGRID_PRECISION)
