#include "protocols/registry.hpp"

#include "protocols/buddy_protocol.hpp"
#include "protocols/lineage_protocol.hpp"
#include "protocols/rollback_protocol.hpp"

namespace ftsim::protocols {

namespace {

config::JsonReader protocol_block(const config::Config& config) {
  return config::JsonReader(config.protocol.block, config.file, "/protocol");
}

// The id, checked with a "did you mean" hint.
std::string protocol_id(config::JsonReader& block) {
  static_assert(std::size(kProtocolIds) == 4, "list every protocol id here");
  return block.at("type").as_choice({kProtocolIds[0], kProtocolIds[1], kProtocolIds[2], kProtocolIds[3]});
}

}  // namespace

void check_protocol_config(const config::Config& config) {
  config::JsonReader block = protocol_block(config);
  const std::string id = protocol_id(block);
  if (id == "lineage") {
    block.finish();  // lineage has no option
    return;
  }
  if (id == "buddy") {
    check_buddy_options(config, block);
    return;
  }
  read_rollback_options(config, block);
}

config::Config load_config(const std::string& path) {
  config::Config config = config::load_config(path);
  check_protocol_config(config);
  return config;
}

config::Config load_config_json(const config::Json& document, const std::string& origin) {
  config::Config config = config::load_config_json(document, origin);
  check_protocol_config(config);
  return config;
}

core::ProtocolFactory make_protocol_factory(const config::Config& config, const graphs::TaskGraph& graph) {
  config::JsonReader block = protocol_block(config);
  const std::string id = protocol_id(block);
  if (id == "lineage") {
    block.finish();
    return [](core::NodeId, bool coordinator) { return std::make_unique<LineageProtocol>(coordinator); };
  }
  if (id == "buddy") {
    check_buddy_options(config, block);
    auto options = std::make_shared<const BuddyOptions>(config, graph);
    return [options](core::NodeId, bool coordinator) { return std::make_unique<BuddyProtocol>(options, coordinator); };
  }
  // none and global: options derived from the config are read-only and the same for every process.
  auto options = make_rollback_options(config, block, graph);
  return [options](core::NodeId, bool coordinator) { return std::make_unique<RollbackProtocol>(options, coordinator); };
}

}  // namespace ftsim::protocols
