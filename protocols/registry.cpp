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

// A key of the block that is not an option of its protocol but of others: say whose ("`cow` is an
// option of `buddy`"), as a user who switched /protocol/type may have kept the old options. The
// options are the schemas' (protocol_modules.hpp); other unknown keys are the module's to refuse.
void refuse_options_of_others(const config::JsonReader& block, std::string_view type) {
  if (!block.is_object()) return;
  for (const auto& [key, unused] : block.json().items()) {
    std::vector<std::string> owners;  // the other protocols that have this option
    std::string own;                  // the options of the block's protocol
    bool is_own = false;
    for (const ProtocolOption& option : registered_protocol_options()) {
      const bool mine = type == option.protocol;
      if (mine) own += (own.empty() ? "" : ", ") + std::string(option.option);
      if (key != option.option) continue;
      if (mine) {
        is_own = true;
      } else {
        owners.emplace_back(option.protocol);
      }
    }
    if (is_own || owners.empty()) continue;
    std::string list;
    for (std::size_t i = 0; i < owners.size(); ++i) {
      list += (i == 0 ? "" : i + 1 == owners.size() ? " and " : ", ") + ("`" + owners[i] + "`");
    }
    throw config::ConfigError(block.file(), block.pointer() + "/" + config::escape_pointer_token(key),
                              "unknown key \"" + key + "\": `" + key + "` is an option of " + list + ", not of `" + std::string(type) +
                                  "`" + (own.empty() ? " (which has none)" : " (whose options are " + own + ")"));
  }
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
  refuse_options_of_others(block, module.id);
  module.check(config, block);
}

config::Config load_config(const std::string& path) {
  config::Config config = config::load_config(path);
  check_protocol_config(config);
  return config;
}

config::Config load_config(const std::string& path, const std::vector<config::ConfigOverride>& overrides) {
  // The config layer names the override of an error the check finds (this library catches nothing:
  // tests/python/test_architecture.py).
  return config::load_config(path, overrides, &check_protocol_config);
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

node::ProtocolFactory make_protocol_factory(const config::Config& config, const graphs::TaskGraph& graph) {
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

std::vector<node::MetricDefinition> protocol_metric_definitions(const config::Config& config) {
  const ProtocolModule& module = protocol_module(config);
  return {module.metrics.begin(), module.metrics.end()};
}

}  // namespace ftsim::protocols
