#pragma once
// The buddy protocol's failure scenarios (issue 19): configs on 4 or 16 nodes with one or two
// buddies per node, overlapping failures, and the causes for which a run may end unrecoverable,
// checked against the scenario. Shared by the buddy campaign and its mutation check.
#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "tests/campaign/campaign_support.hpp"

namespace ftsim::campaign_support {

inline config::Json buddy_application(const std::string& name) {
  if (name == "cholesky") return {{"type", "cholesky"}, {"tiles", 8}, {"tile_size", 128}, {"order", "column"}};
  if (name == "stencil") return {{"type", "stencil"}, {"tiles", {4, 4}}, {"tile_size", {64, 64}}, {"iterations", 10}};
  return {{"type", "cg"}, {"grid", 64}, {"blocks", 8}, {"iterations", 8}};
}

// The buddies of each node: "next" (one buddy), or a ring of two (node i's buddies i+1 and i+2).
inline std::vector<std::vector<int>> ring(int nodes, int buddies) {
  std::vector<std::vector<int>> of(nodes);
  for (int i = 0; i < nodes; ++i) {
    for (int b = 1; b <= buddies; ++b) of[i].push_back((i + b) % nodes);
  }
  return of;
}

inline config::Json buddy_config(const std::string& app, int nodes, int buddies) {
  config::Json mapping = config::Json::array();
  for (const auto& list : ring(nodes, buddies)) mapping.push_back(list);
  return {{"name", "buddy-overlap-" + app},
          {"application", buddy_application(app)},
          {"platform", {{"nodes", nodes}, {"cores_per_node", 2}, {"core_gflops", {{"default", 2.0}}}}},
          {"checkpoints", {{"count", 3}, {"buddy", mapping}}},
          {"protocol", {{"type", "buddy"}}}};
}

enum class Cause { none, buddies_lost, other };

// Why a buddy run may end unrecoverable, checked against its scenario: every buddy of the named
// node failed too; or the named node failed with messages in transit forbidding its checkpoints
// and its senders' logs collected; or the documented limit of the cascade (a node that rolled
// back, alive, for another node cannot go further back). `none`: no such cause holds.
inline Cause unrecoverable_cause(const std::string& reason, const config::Json& document, int nodes, int buddies) {
  if (reason.rfind("unrecoverable: ", 0) != 0) return Cause::none;
  std::vector<int> failed;
  for (const auto& event : document["failures"]["events"]) failed.push_back(event["node"].get<int>());
  const auto has_failed = [&](int n) { return std::find(failed.begin(), failed.end(), n) != failed.end(); };
  const auto named = [&](const std::string& after) {
    const auto at = reason.find(after);
    return at == std::string::npos ? -1 : std::atoi(reason.c_str() + at + after.size());
  };
  if (reason.find("every one of its buddies had lost") != std::string::npos) {
    const int node = named("unrecoverable: node ");
    if (node < 0 || !has_failed(node)) return Cause::none;
    const auto buddies_of = ring(nodes, buddies);
    for (int b : buddies_of[node]) {
      if (!has_failed(b)) return Cause::none;
    }
    return Cause::buddies_lost;
  }
  if (reason.find("messages still in transit forbid") != std::string::npos) {
    return has_failed(named("unrecoverable: node ")) ? Cause::other : Cause::none;
  }
  if (reason.find("(the cascade of Lion 2022 §3.5)") != std::string::npos) {
    // "node X needs versions that node Y wrote before its own restart": X failed (or X rolls back,
    // alive, "for the failure of node Z", and Z failed), and a node never needs its own versions
    // from a log.
    const int needing = named("unrecoverable: node "), writer = named("needs versions that node ");
    const int on_behalf = named("rolling back for the failure of node ");
    const int cause = on_behalf >= 0 ? on_behalf : needing;
    return has_failed(cause) && writer >= 0 && writer != needing && failed.size() >= 2 ? Cause::other : Cause::none;
  }
  return Cause::none;
}

inline double buddy_makespan(const std::string& app, int nodes, int buddies) {
  const node::RunMetrics reference = run(buddy_config(app, nodes, buddies), "failure-free buddy " + app);
  INFO(reference.failure_reason);
  REQUIRE(reference.complete);
  REQUIRE(reference.oracle_ok);
  return reference.makespan;
}

// `count` failures within about one recovery window, 30% of the later ones hitting a buddy of the
// previous one, a fifth at the same instant as the first.
inline config::Json overlap_scenario(const std::string& app, std::uint64_t seed, double makespan, int nodes, int buddies,
                              int count) {
  std::mt19937_64 random(seed * 104729 + std::hash<std::string>{}(app));
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double detection = unit(random) * 0.002 * makespan;
  const double downtime = unit(random) * 0.004 * makespan;
  const double window = detection + downtime + 0.002 * makespan;  // about one recovery
  const double first = unit(random) * makespan;
  config::Json events = config::Json::array();
  int node = int(random() % nodes);
  for (int i = 0; i < count; ++i) {
    if (i > 0) node = random() % 10 < 3 ? (node + 1 + int(random() % buddies)) % nodes : int(random() % nodes);
    const double time = i == 0 || random() % 5 == 0 ? first : first + unit(random) * window;
    events.push_back({{"node", node}, {"time", time}});
  }
  config::Json document = buddy_config(app, nodes, buddies);
  document["seed"] = seed;
  document["failures"] = {{"model", "list"}, {"events", events}, {"detection", detection}, {"downtime", downtime}};
  return document;
}

}  // namespace ftsim::campaign_support
