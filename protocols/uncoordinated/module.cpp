// The `uncoordinated` protocol's module (Guermouche et al. 2011).
#include <algorithm>

#include "protocols/protocol_module.hpp"
#include "protocols/uncoordinated/unco_metrics.hpp"
#include "protocols/uncoordinated/unco_protocol.hpp"

namespace ftsim::protocols {

namespace {

using namespace uncoordinated;

void check(const config::Config& config, config::JsonReader& block) { check_options(config, block); }

node::ProtocolFactory factory(const config::Config& config, const graphs::TaskGraph& graph) {
  std::shared_ptr<const Options> options = make_options(config, graph);
  return [options](node::NodeId node, bool coordinator) {
    return std::make_unique<UncoordinatedProtocol>(options, node, coordinator);
  };
}

// Each logging mode a third of the time, each schedule a third of the time (clusters: two
// clusters by METIS, or two fixed halves), a period of 5% to 30% of the failure-free makespan
// (several checkpoints per node before the failures). Stable storage never fails: every run must
// recover.
CampaignDraw campaign(std::mt19937_64& random, double makespan) {
  static constexpr const char* kLogging[] = {"send-deterministic", "none", "all"};
  config::Json block = {{"type", "uncoordinated"}, {"logging", kLogging[random() % 3]}};
  const double period = (0.05 + 0.25 * std::uniform_real_distribution<double>(0.0, 1.0)(random)) * makespan;
  block["period"] = period;
  switch (random() % 3) {
    case 0: block["schedule"] = "random"; break;
    case 1: block["schedule"] = "periodic"; break;
    default:
      block["schedule"] = "clusters";
      if (random() % 2 == 0) {
        block["clusters"] = 2;
      } else {
        block["clusters"] = config::Json::array({config::Json::array({0, 1}), config::Json::array({2, 3})});
      }
      break;
  }
  return {{{"protocol", block}}, false};
}

std::uint64_t named(const node::RunMetrics& metrics, const char* name) {
  for (const auto& m : metrics.protocol_metrics) {
    if (m.name == name) return m.value;
  }
  return 0;
}

// What every run with failures must show, whatever the logging mode.
std::vector<std::string> invariants(const node::RunMetrics& metrics) {
  std::vector<std::string> broken;
  for (std::size_t i = 0; i < metrics.failures.size(); ++i) {
    const node::FailureRecord& f = metrics.failures[i];
    if (f.processes_rolled_back < 1) {
      broken.push_back("failure " + std::to_string(i) + " of node " + std::to_string(f.node) + " rolled back no process (its node must restart)");
    }
  }
  if (!metrics.failures.empty() && named(metrics, "recoveries") == 0) broken.push_back("failures but no recovery line completed");
  if (named(metrics, "messages_logged") > named(metrics, "data_messages")) broken.push_back("more messages logged than sent");
  return broken;
}

// A random checkpoint schedule draws its dates from /seed: a seeds axis then varies the run.
bool draws_at_random(const config::Config& config) {
  const auto it = config.protocol.block.find("schedule");
  return it != config.protocol.block.end() && it->is_string() && it->get<std::string>() == "random";
}

}  // namespace

extern const ProtocolModule uncoordinated_module = {
    "uncoordinated",
    "uncoordinated checkpoints on stable storage; logging: send-deterministic (Guermouche 2011: only messages from a smaller "
    "epoch to a larger one, recovery line by the recovery process, phases), none (classic: orphans roll back, the domino effect) "
    "or all (pessimistic sender-based)",
    check,
    factory,
    kMetrics,
    campaign,
    nullptr,
    invariants,
    draws_at_random,
    nullptr,
};

}  // namespace ftsim::protocols
