#pragma once
// Protocols by id, as configs name them in /protocol/type. Each protocol owns its config block:
// it reads and validates its own keys (errors name the file and the JSON pointer, unknown keys
// get "did you mean"), and the schema (configs/schema/ftsim.schema.json) and docs/configs.md
// describe them per protocol.
#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"
#include "sim/core/protocol.hpp"

namespace ftsim::protocols {

// The ids of the protocols there are.
inline constexpr const char* kProtocolIds[] = {"none", "global", "lineage", "buddy"};

// Reads /protocol with the protocol's own reader; throws config::ConfigError on a bad block.
void check_protocol_config(const config::Config& config);

// config::load_config / load_config_json, then check_protocol_config: what every command that
// runs or validates a config uses.
config::Config load_config(const std::string& path);
config::Config load_config_json(const config::Json& document, const std::string& origin);

// Makes a fresh protocol instance per process (checks the block first).
core::ProtocolFactory make_protocol_factory(const config::Config& config, const graphs::TaskGraph& graph);

}  // namespace ftsim::protocols
