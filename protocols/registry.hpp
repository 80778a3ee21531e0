#pragma once
// Protocols by id, as configs name them in /protocol/type.
#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"
#include "sim/core/protocol.hpp"

namespace ftsim::protocols {

core::ProtocolFactory make_protocol_factory(const config::Config& config, const graphs::TaskGraph& graph);

}  // namespace ftsim::protocols
