#include "protocols/registry.hpp"

#include "protocols/lineage_protocol.hpp"
#include "protocols/rollback_protocol.hpp"

namespace ftsim::protocols {

core::ProtocolFactory make_protocol_factory(const config::Config& config, const graphs::TaskGraph& graph) {
  switch (config.protocol.type) {
    case config::ProtocolType::none:
    case config::ProtocolType::global: {
      // Options derived from the config are read-only and the same for every process.
      auto options = make_rollback_options(config, graph);
      return [options](core::NodeId, bool coordinator) { return std::make_unique<RollbackProtocol>(options, coordinator); };
    }
    case config::ProtocolType::lineage:
      return [](core::NodeId, bool coordinator) { return std::make_unique<LineageProtocol>(coordinator); };
  }
  throw std::logic_error("unknown protocol type");
}

}  // namespace ftsim::protocols
