#pragma once
// RunMetrics <-> JSON: the body of results.json, and how a forked simulation hands its metrics
// back to its parent.
#include <nlohmann/json.hpp>

#include "sim/node/run_metrics.hpp"

namespace ftsim::world {

nlohmann::json to_json(const node::RunMetrics& metrics);
node::RunMetrics run_metrics_from_json(const nlohmann::json& json);
// The traffic kinds as JSON keys, in Traffic order.
const char* traffic_key(std::size_t kind);

}  // namespace ftsim::world
