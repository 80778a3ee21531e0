#include "protocols/registry.hpp"

#include <algorithm>

#include "protocols/protocol_modules.hpp"

namespace ftsim::protocols {

namespace {

config::JsonReader protocol_block(const config::Config& config) {
  return config::JsonReader(config.protocol.block, config.file, "/protocol");
}

const ProtocolModule& module_of(config::JsonReader& block) {
  const std::vector<std::string> ids = protocol_ids();
  const std::string id = block.at("type").as_choice(ids);
  return *find_protocol(id);
}

// An unknown key of the block that is an option of other protocols: say whose ("`cow` is an
// option of `buddy`"), as a user who switched /protocol/type may have kept the old options.
config::ConfigError with_owners(const config::ConfigError& error, const config::JsonReader& block, std::string_view type) {
  const std::string prefix = block.pointer() + "/";
  if (error.pointer().rfind(prefix, 0) != 0 || error.message().rfind("unknown key", 0) != 0) return error;
  const std::string key = error.pointer().substr(prefix.size());
  if (key.find('/') != std::string::npos || !block.json().contains(key)) return error;
  std::vector<std::string> owners;
  for (const ProtocolOption& option : registered_protocol_options()) {
    if (key != option.option) continue;
    if (type == option.protocol) return error;  // its own option, refused for another reason
    owners.emplace_back(option.protocol);
  }
  if (owners.empty()) return error;
  std::string list;
  for (std::size_t i = 0; i < owners.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == owners.size() ? " and " : ", ") + ("`" + owners[i] + "`");
  }
  return config::ConfigError(error.file(), error.pointer(),
                             "`" + key + "` is an option of " + list + ", not of `" + std::string(type) + "`: " + error.message());
}

}  // namespace

std::span<const ProtocolModule* const> protocol_modules() { return registered_protocol_modules(); }

std::vector<std::string> protocol_ids() {
  std::vector<std::string> ids;
  for (const ProtocolModule* module : protocol_modules()) ids.emplace_back(module->id);
  return ids;
}

const ProtocolModule* find_protocol(std::string_view id) {
  for (const ProtocolModule* module : protocol_modules()) {
    if (id == module->id) return module;
  }
  return nullptr;
}

const ProtocolModule& protocol_module(const config::Config& config) {
  config::JsonReader block = protocol_block(config);
  return module_of(block);
}

void check_protocol_config(const config::Config& config) {
  config::JsonReader block = protocol_block(config);
  const ProtocolModule& module = module_of(block);
  try {
    module.check(config, block);
  } catch (const config::ConfigError& e) {
    throw with_owners(e, block, module.id);
  }
}

config::Config load_config(const std::string& path) {
  config::Config config = config::load_config(path);
  check_protocol_config(config);
  return config;
}

config::Config load_config(const std::string& path, const std::vector<config::ConfigOverride>& overrides) {
  config::Config config = config::load_config(path, overrides);
  try {
    check_protocol_config(config);
  } catch (const config::ConfigError& e) {
    throw config::name_override(e, overrides, path);
  }
  return config;
}

config::Config load_config_json(const config::Json& document, const std::string& origin) {
  config::Config config = config::load_config_json(document, origin);
  check_protocol_config(config);
  return config;
}

config::Config without_failures(const config::Config& config) {
  config::Config copy = config;
  copy.failures = config::FailureConfig{};
  copy.document.erase("failures");
  return copy;
}

core::ProtocolFactory make_protocol_factory(const config::Config& config, const graphs::TaskGraph& graph) {
  const config::Config job = without_failures(config);
  config::JsonReader block = protocol_block(job);
  const ProtocolModule& module = module_of(block);
  module.check(job, block);
  return module.factory(job, graph);
}

std::string checkpoint_data_status(const config::Config& config) {
  if (!config.checkpoint_data.enabled) return {};
  const ProtocolModule& module = protocol_module(config);
  return module.no_checkpoint_data ? std::string("ignored: ") + module.no_checkpoint_data : std::string("applied");
}

std::vector<core::MetricDefinition> protocol_metric_definitions(const config::Config& config) {
  const ProtocolModule& module = protocol_module(config);
  return {module.metrics.begin(), module.metrics.end()};
}

}  // namespace ftsim::protocols
