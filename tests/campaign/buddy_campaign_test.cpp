// The buddy protocol's overlapping restarts (issue 19): three or more restarts at once used to
// livelock. Every run here must end: recovered with the oracle holding, or unrecoverable for a
// cause the test checks against the scenario.
#include <catch2/catch.hpp>

#include "tests/campaign/buddy_scenarios.hpp"

using namespace ftsim;
using namespace ftsim::campaign_support;

namespace {

struct Outcome {
  std::size_t recovered = 0, unrecoverable_buddies = 0, unrecoverable_other = 0;
};

// A run ends recovered (oracle ok, no task started without its input) or unrecoverable for a
// cause that holds in the scenario: every buddy of the named node failed too; or the node failed
// with messages in transit forbidding its checkpoints and its senders' logs collected; or the
// documented limit of the cascade (docs/protocols.md). Never a stall, a hang or a time limit.
void check_buddy_run(const config::Json& document, const std::string& origin, int nodes, int buddies, Outcome& outcome) {
  const node::RunMetrics m = run(document, origin);
  INFO(origin << ": " << document.dump());
  INFO("failure reason: " << m.failure_reason);
  for (const auto& line : m.stall_report) INFO("stall: " << line);
  for (const auto& line : m.oracle_wrong) INFO("oracle wrong: " << line);
  if (m.complete) {
    CHECK(m.oracle_ok);
    CHECK(inputs_missing(m) == 0);
    ++outcome.recovered;
    return;
  }
  const Cause cause = unrecoverable_cause(m.failure_reason, document, nodes, buddies);
  CHECK(cause != Cause::none);
  if (cause == Cause::buddies_lost) ++outcome.unrecoverable_buddies;
  if (cause == Cause::other) ++outcome.unrecoverable_other;
}

}  // namespace

TEST_CASE("campaign: buddy, 3 and 4 simultaneous failures at 4 and 16 nodes", "[campaign][buddy]") {
  Outcome outcome;
  for (const char* app : {"cholesky", "stencil", "cg"}) {
    for (int nodes : {4, 16}) {
      const double makespan = buddy_makespan(app, nodes, 1);
      for (int count : {3, 4}) {
        for (bool adjacent : {true, false}) {
          for (double at : {0.0002, 0.3, 0.7}) {
            config::Json document = buddy_config(app, nodes, 1);
            config::Json events = config::Json::array();
            const double time = at * makespan;
            for (int i = 0; i < count; ++i) {
              const int node = adjacent ? i : (i * nodes / count + (nodes == 4 ? 0 : 1)) % nodes;
              events.push_back({{"node", node}, {"time", time}});
            }
            document["failures"] = {{"model", "list"}, {"events", events}};
            const std::string origin = std::string(app) + " on " + std::to_string(nodes) + " nodes, " +
                                       std::to_string(count) + (adjacent ? " adjacent" : " spread") + " failures at " +
                                       std::to_string(at) + " x makespan";
            check_buddy_run(document, origin, nodes, 1, outcome);
          }
        }
      }
    }
  }
  WARN("simultaneous failures: " << outcome.recovered << " recovered, " << outcome.unrecoverable_buddies
                                 << " unrecoverable (a node and its buddy), " << outcome.unrecoverable_other
                                 << " unrecoverable (in-transit bound or cascade limit)");
  // Spread failures at 16 nodes never hit a node and its buddy: those must all recover.
  CHECK(outcome.recovered >= 3 * 2 * 3);
}

// The campaign that found the livelock: 16 nodes, two buddies per node (a ring), three failures
// within one recovery window, 30% of the later ones hitting a buddy of the previous one.
TEST_CASE("campaign: buddy, three failures in one recovery window, two buddies per node", "[campaign][buddy]") {
  constexpr int kNodes = 16, kBuddies = 2;
  Outcome outcome;
  const std::size_t scenarios = std::max<std::size_t>(20, scenarios_per_case());
  for (const char* app : {"cholesky", "stencil", "cg"}) {
    const double makespan = buddy_makespan(app, kNodes, kBuddies);
    for (std::uint64_t seed = 1; seed <= scenarios; ++seed) {
      const config::Json document = overlap_scenario(app, seed, makespan, kNodes, kBuddies, 3);
      check_buddy_run(document, std::string(app) + "/seed " + std::to_string(seed), kNodes, kBuddies, outcome);
    }
  }
  WARN("overlapping restarts, " << 3 * scenarios << " runs: " << outcome.recovered << " recovered, "
                                << outcome.unrecoverable_buddies << " unrecoverable (a node and both buddies), "
                                << outcome.unrecoverable_other << " unrecoverable (in-transit bound or cascade limit)");
  CHECK(outcome.recovered >= 3 * scenarios * 8 / 10);
}
