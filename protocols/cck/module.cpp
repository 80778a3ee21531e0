// The `cck` protocol's module (Besseron et al. 2006): coordinated checkpoints whose channel flush
// talks only to the nodes a node expects data from, and a restart in which only the failed node
// restores its checkpoint while the survivors re-execute the tasks needed to re-send what it lost.
#include <algorithm>
#include <set>

#include "protocols/cck/cck_metrics.hpp"
#include "protocols/cck/cck_protocol.hpp"
#include "protocols/protocol_module.hpp"

namespace ftsim::protocols {

namespace {

void check(const config::Config& config, config::JsonReader& block) { cck::read_cck_options(config, block); }

node::ProtocolFactory factory(const config::Config& config, const graphs::TaskGraph& graph) {
  auto options = std::make_shared<const cck::CckOptions>(config, graph);
  return [options](node::NodeId node, bool coordinator) {
    return std::make_unique<cck::CckProtocol>(options, node, coordinator);
  };
}

// A short period (checkpoints take much of the run, so failures often strike during one) or the
// graph cuts; the neighbour or the full flush; with or without §3.7.1 and §3.7.2; the coordinator
// on its own host or on node 0 (which may fail). Stable storage: never unrecoverable.
CampaignDraw campaign(std::mt19937_64& random, double makespan) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  config::Json block = {{"type", "cck"}};
  if (random() % 3 != 0) {
    block["period"] = (0.03 + 0.2 * unit(random)) * makespan;
  } else {
    block["at"] = "cuts";
  }
  if (random() % 4 == 0) block["flush"] = "all";
  if (random() % 4 == 0) block["coordinator"] = 0;
  block["reexecution"] = {{"keep_in_memory", random() % 2 == 0}, {"reorder", random() % 2 == 0}};
  config::Json patch = {{"protocol", block}};
  if (block.contains("at")) patch["checkpoints"] = {{"count", 2 + int(random() % 3)}};
  return {patch, false};
}

// Survivors re-execute exactly T_a_re-executer: a node that never failed re-executes only the
// tasks it was told to (its re-executions, as the world counts them, are its completed planned
// re-executions); no more planned re-executions complete than were planned; data is re-sent only
// as planned (C_total). (A node that failed also redoes its own lost work, which the world counts.)
// A named metric's index in the run's metrics (their order there is the node counters' order,
// which a results.json read back sorts by name).
std::size_t metric_index(const node::RunMetrics& metrics, cck::Metric metric) {
  for (std::size_t i = 0; i < metrics.protocol_metrics.size(); ++i) {
    if (metrics.protocol_metrics[i].name == cck::kMetrics[metric].name) return i;
  }
  return node::kMaxProtocolMetrics;
}

std::vector<std::string> invariants(const node::RunMetrics& metrics) {
  std::vector<std::string> broken;
  const std::size_t survivor = metric_index(metrics, cck::kSurvivorReexecutions);
  const std::size_t planned_index = metric_index(metrics, cck::kPlannedReexecutions);
  const std::size_t resends_index = metric_index(metrics, cck::kResends);
  if (std::max({survivor, planned_index, resends_index}) >= node::kMaxProtocolMetrics) {
    return {"the run's metrics lack cck's named metrics"};
  }
  std::set<node::NodeId> failed;
  for (const node::FailureRecord& f : metrics.failures) failed.insert(f.node);
  std::uint64_t recovery_messages = 0, completed = 0, planned = 0;
  for (node::NodeId n = 0; n < metrics.nodes.size(); ++n) {
    const node::NodeMetrics& node = metrics.nodes[n];
    recovery_messages += node.messages_sent[static_cast<std::size_t>(node::Traffic::recovery)];
    const std::uint64_t done = node.counters.named[survivor];
    completed += done;
    planned += node.counters.named[planned_index];
    if (failed.count(n) == 0 && node.reexecutions != done) {
      broken.push_back("node " + std::to_string(n) + " never failed and re-executed " + std::to_string(node.reexecutions) +
                       " tasks, but " + std::to_string(done) + " of T_a_re-executer");
    }
  }
  if (completed > planned) {
    broken.push_back(std::to_string(completed) + " planned re-executions completed, more than the " +
                     std::to_string(planned) + " planned");
  }
  std::uint64_t resends = 0;
  for (const auto& node : metrics.nodes) resends += node.counters.named[resends_index];
  if (recovery_messages > resends) {
    broken.push_back(std::to_string(recovery_messages) + " data messages re-sent, more than the " +
                     std::to_string(resends) + " of C_total");
  }
  return broken;
}

}  // namespace

extern const ProtocolModule cck_module = {
    "cck",
    "coordinated checkpoints flushing only the channels a node expects data on (PING/PONG); a failed node restarts "
    "from its checkpoint, survivors re-execute only what re-sends its lost messages (Besseron et al. 2006)",
    check,
    factory,
    cck::kMetrics,
    campaign,
    nullptr,
    invariants,
    nullptr,
    nullptr,
};

}  // namespace ftsim::protocols
