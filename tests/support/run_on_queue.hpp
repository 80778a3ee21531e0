#pragma once
// A whole run (world driver, node hosts, protocols) of a config document on the in-process queue
// backend: no SimGrid.
#include <functional>
#include <string>

#include "graphs/application.hpp"
#include "graphs/cost_model.hpp"
#include "protocols/registry.hpp"
#include "sim/world/simulation.hpp"
#include "tests/support/planted_faults.hpp"
#include "tests/support/queue_backend.hpp"

namespace ftsim::testing {

// `wrap`, if given, wraps the config's own protocol factory (a test's observer around each process).
using FactoryWrapper = std::function<node::ProtocolFactory(node::ProtocolFactory)>;

inline node::RunMetrics run_on_queue(const config::Json& document, const std::string& origin, double latency = 1e-6,
                                     double bandwidth = 1e9, node::ProtocolFactory factory = {},
                                     const FactoryWrapper& wrap = {}) {
  // The config describes the network the queue backend models (the no-progress bound of the
  // world driver is derived from it).
  config::Json described = document;
  described["platform"]["network"]["latency"] = latency;
  described["platform"]["network"]["bandwidth"] = bandwidth;
  if (described["platform"].contains("storage")) described["platform"]["storage"]["bandwidth"] = bandwidth;
  const config::Config cfg = protocols::load_config_json(described, origin);
  const graphs::TaskGraph graph = graphs::build_application(cfg);
  const graphs::CostModel cost(cfg, graph);
  QueueBackend backend(graph.node_count(), cfg.platform.storage.hosts, latency, bandwidth);
  world::SimulationOptions options;
  if (cfg.run.time_limit) options.time_limit = *cfg.run.time_limit;
  options.test_faults = &planted_faults();
  if (!factory) {
    factory = protocols::make_protocol_factory(cfg, graph);
    if (wrap) factory = wrap(std::move(factory));
    options.protocol_metrics = protocols::protocol_metric_definitions(cfg);
  }
  world::Simulation simulation(cfg, graph, cost, factory, backend, options);
  backend.set_events(&simulation);
  simulation.start();
  backend.run();
  simulation.finish();
  return simulation.metrics();
}

}  // namespace ftsim::testing
