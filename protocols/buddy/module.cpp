// The `buddy` protocol's module (Lion & Thibault 2020; Lion 2022).
#include <set>

#include "protocols/buddy/buddy_protocol.hpp"
#include "protocols/protocol_module.hpp"

namespace ftsim::protocols {

using namespace buddy;  // the protocol's own namespace: this file only registers it

namespace {

void check(const config::Config& config, config::JsonReader& block) { check_buddy_options(config, block); }

node::ProtocolFactory factory(const config::Config& config, const graphs::TaskGraph& graph) {
  auto options = std::make_shared<const BuddyOptions>(config, graph);
  return [options](node::NodeId, bool coordinator) { return std::make_unique<BuddyProtocol>(options, coordinator); };
}

// Two to four checkpoints, one buddy per node (the next one): a node failing with its buddy, at
// once or while the buddy's replacement holds nothing yet, is unrecoverable.
CampaignDraw campaign(std::mt19937_64& random, double) {
  const int count = 2 + int(random() % 3);
  return {{{"protocol", {{"type", "buddy"}}}, {"checkpoints", {{"count", count}, {"buddy", "next"}}}}, true};
}

// The endings docs/protocols.md documents: a failed node whose buddies all lost its checkpoint,
// senders that dropped log entries a restart from the input needs, or the cascade limit.
bool unrecoverable_reason_ok(const std::string& reason) {
  const auto has = [&](const char* text) { return reason.find(text) != std::string::npos; };
  if (has("unrecoverable")) return has("buddies") || has("log entries");
  return has("cascade of Lion 2022 §3.5 during a restore");
}

// Lion 2022 §3: only the failed node re-executes. A survivor re-executes only when it rolled back
// in the cascade of §3.5 (a failure record then counts more than one process rolled back).
std::vector<std::string> invariants(const node::RunMetrics& metrics) {
  std::vector<std::string> broken;
  bool cascade = false;
  std::set<node::NodeId> failed;
  for (const node::FailureRecord& f : metrics.failures) {
    failed.insert(f.node);
    cascade = cascade || f.processes_rolled_back > 1;
  }
  if (cascade) return broken;
  for (node::NodeId n = 0; n < metrics.nodes.size(); ++n) {
    if (failed.count(n) == 0 && metrics.nodes[n].reexecutions != 0) {
      broken.push_back("node " + std::to_string(n) + " never failed but re-executed " +
                       std::to_string(metrics.nodes[n].reexecutions) + " tasks with no cascade");
    }
  }
  return broken;
}

}  // namespace

extern const ProtocolModule buddy_module = {
    "buddy",
    "asynchronous differential checkpoints at graph cuts in the buddies' memory, message logging by reference, "
    "local restart of the failed node only",
    check,
    factory,
    {},
    campaign,
    unrecoverable_reason_ok,
    invariants,
    nullptr,
    nullptr,
};

}  // namespace ftsim::protocols
