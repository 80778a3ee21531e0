#pragma once
// The correction factors that SimGrid's network models apply to every configured latency and
// bandwidth, for the run summary and results.json: what is simulated, not only what is configured.
// No SimGrid header: the CLI uses it in the parent process, which never starts SimGrid.
#include <string>

#include "sim/config/run_config.hpp"

namespace ftsim::simgrid_backend {

struct NetworkModelFactors {
  double latency = 1;    // simulated latency = configured latency x this
  double bandwidth = 1;  // simulated bandwidth = configured bandwidth x this
  // SMPI and IB: the factors above are those of messages over 65472 bytes; smaller ones get others.
  bool by_message_size = false;
};

// SimGrid 3.32's values (src/surf/network_cm02.cpp; the SMPI ones: smpi/lat-factor and
// smpi/bw-factor in src/simgrid/sg_config.cpp).
NetworkModelFactors network_model_factors(config::NetworkModel model);

// One line, e.g. "LV08 (latency x13.01, bandwidth x0.97)".
std::string describe_network_model(config::NetworkModel model);

}  // namespace ftsim::simgrid_backend
