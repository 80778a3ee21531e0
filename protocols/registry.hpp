#pragma once
// The protocols there are, by id (/protocol/type): the modules of protocols/<id>/ folders
// (protocol_module.hpp), listed by the build. Each protocol owns its config block: it reads and
// validates its own keys (errors name the file and the JSON pointer, unknown keys get "did you
// mean"), and its schema.json describes them.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graphs/task_graph.hpp"
#include "protocols/protocol_module.hpp"
#include "sim/config/config.hpp"
#include "sim/node/protocol.hpp"

namespace ftsim::protocols {

// Every module, sorted by id.
std::span<const ProtocolModule* const> protocol_modules();
std::vector<std::string> protocol_ids();
// The module of an id; null if there is none.
const ProtocolModule* find_protocol(std::string_view id);
// The module a config names in /protocol/type (checked with a "did you mean" hint).
const ProtocolModule& protocol_module(const config::Config& config);

// Reads /protocol with the protocol's own reader; throws config::ConfigError on a bad block.
void check_protocol_config(const config::Config& config);

// config::load_config / load_config_json, then check_protocol_config: what every command that
// runs or validates a config uses.
config::Config load_config(const std::string& path);
config::Config load_config(const std::string& path, const std::vector<config::ConfigOverride>& overrides);
config::Config load_config_json(const config::Json& document, const std::string& origin);

// What protocols are given of the config: all of it but /failures (the failure schedule is the
// world's; a protocol learns of a failure from its notice).
config::Config without_failures(const config::Config& config);

// Makes a fresh protocol instance per process (checks the block first); its options are read
// from the config without /failures.
node::ProtocolFactory make_protocol_factory(const config::Config& config, const graphs::TaskGraph& graph);
// What /checkpoint_data does in this config: "" (no section), "applied", or "ignored: REASON" (a
// protocol that saves no checkpoint data, ProtocolModule::no_checkpoint_data).
std::string checkpoint_data_status(const config::Config& config);

// The named metrics of the config's protocol, in counting order.
std::vector<node::MetricDefinition> protocol_metric_definitions(const config::Config& config);

}  // namespace ftsim::protocols
