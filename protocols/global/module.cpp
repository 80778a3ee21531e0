// The `global` protocol's module: blocking coordinated checkpoints and global rollback.
#include "protocols/global/global_protocol.hpp"
#include "protocols/protocol_module.hpp"

namespace ftsim::protocols {

using namespace global;  // the protocol's own namespace: this file only registers it

namespace {

void check(const config::Config& config, config::JsonReader& block) { read_global_options(config, block); }

node::ProtocolFactory factory(const config::Config& config, const graphs::TaskGraph& graph) {
  auto options = make_global_options(config, config::JsonReader(config.protocol.block, config.file, "/protocol"), graph);
  return [options](node::NodeId, bool coordinator) { return std::make_unique<GlobalProtocol>(options, coordinator); };
}

// A random period or the graph cuts, on stable storage or in the buddies' memory (where a node
// and its buddy failing together is unrecoverable).
CampaignDraw campaign(std::mt19937_64& random, double makespan) {
  const bool buddy = random() % 2 == 0;
  config::Json block = {{"type", "global"}, {"storage", buddy ? "buddy" : "stable"}};
  if (random() % 2 == 0) {
    block["period"] = (0.1 + 0.4 * std::uniform_real_distribution<double>(0.0, 1.0)(random)) * makespan;
  } else {
    block["at"] = "cuts";
  }
  return {{{"protocol", block}}, buddy};
}

}  // namespace

extern const ProtocolModule global_module = {
    "global",
    "blocking coordinated checkpoints (stop, flush, save, commit) and global rollback to the last committed one",
    check,
    factory,
    {},
    campaign,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    true,
};

}  // namespace ftsim::protocols
