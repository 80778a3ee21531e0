// The `cck` protocol's module (Besseron et al. 2006): coordinated checkpoints whose channel flush
// talks only to the nodes a node expects data from, and a restart in which only the failed node
// restores its checkpoint while the survivors re-execute the tasks needed to re-send what it lost.
#include <cmath>
#include <numeric>

#include "protocols/cck/cck_metrics.hpp"
#include "protocols/cck/cck_protocol.hpp"
#include "protocols/protocol_module.hpp"

namespace ftsim::protocols {

namespace {

void check(const config::Config& config, config::JsonReader& block) { cck::read_cck_options(config, block); }

core::ProtocolFactory factory(const config::Config& config, const graphs::TaskGraph& graph) {
  auto options = std::make_shared<const cck::CckOptions>(config, graph);
  return [options](core::NodeId node, bool coordinator) {
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

// Survivors re-execute exactly T_a_re-executer: every re-execution the world counts is either the
// failed node redoing its lost work (the world counts those in the failure's record) or a planned
// re-execution the protocol reported in it; no other. And data is re-sent only as planned.
std::vector<std::string> invariants(const core::RunMetrics& metrics) {
  std::vector<std::string> broken;
  std::uint64_t reexecutions = 0, recorded = 0, recovery_messages = 0;
  for (const core::NodeMetrics& n : metrics.nodes) {
    reexecutions += n.reexecutions;
    recovery_messages += n.messages_sent[static_cast<std::size_t>(core::Traffic::recovery)];
  }
  for (const core::FailureRecord& f : metrics.failures) recorded += f.tasks_reexecuted;
  if (reexecutions != recorded) {
    broken.push_back(std::to_string(reexecutions) + " re-executions, but " + std::to_string(recorded) +
                     " accounted for (failed nodes redoing lost work + planned survivor re-executions)");
  }
  std::uint64_t resends = 0;
  for (const auto& named : metrics.protocol_metrics) {
    if (named.name == cck::kMetrics[cck::kResends].name) resends = named.value;
  }
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
};

}  // namespace ftsim::protocols
