#include "protocols/registry.hpp"

#include "protocols/lineage_protocol.hpp"
#include "protocols/rollback_protocol.hpp"

namespace ftsim::protocols {

core::ProtocolFactory make_protocol_factory(const config::Config& config, const graphs::TaskGraph& graph) {
  switch (config.protocol.type) {
    case config::ProtocolType::none:
    case config::ProtocolType::global: {
      auto shared = make_rollback_shared(config, graph);
      return [shared](core::NodeId node, bool coordinator) {
        return std::make_unique<RollbackProtocol>(shared, node, coordinator);
      };
    }
    case config::ProtocolType::lineage: {
      auto shared = std::make_shared<LineageShared>();
      return [shared](core::NodeId, bool coordinator) { return std::make_unique<LineageProtocol>(shared, coordinator); };
    }
  }
  throw std::logic_error("unknown protocol type");
}

}  // namespace ftsim::protocols
