// Failure campaign (issue acceptance): for each protocol (none, global, lineage) and each
// application (cholesky, stencil, cg), many seeded random failure scenarios (one to three
// failures at random times and nodes, some simultaneous, random or zero downtime and detection
// latency, for global a random period or the graph cuts and a random storage). Every run must terminate, and either complete with the oracle holding
// (every handle's final version exists where it belongs, every task done) or, for global with
// buddy storage, report an unrecoverable double failure with its reason. Never a stall, a time
// limit or a crash.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <random>

#include "graphs/application.hpp"
#include "graphs/cost_model.hpp"
#include "sim/simgrid/simulate.hpp"

using namespace ftsim;

namespace {

std::size_t scenarios_per_case() {
  const char* value = std::getenv("FTSIM_CAMPAIGN_SCENARIOS");
  return value ? std::strtoul(value, nullptr, 10) : 100;
}

config::Json application(const std::string& name) {
  if (name == "cholesky") {
    return {{"type", "cholesky"}, {"tiles", 10}, {"tile_size", 128}, {"precision", "double"}};
  }
  if (name == "stencil") {
    return {{"type", "stencil"}, {"tiles", {4, 4}}, {"tile_size", 256}, {"iterations", 12}};
  }
  return {{"type", "cg"}, {"grid", 256}, {"blocks", 8}, {"iterations", 8}};
}

config::Json base_config(const std::string& app) {
  return {{"name", "campaign-" + app},
          {"application", application(app)},
          {"platform",
           {{"nodes", 4},
            {"cores_per_node", 2},
            {"core_gflops", {{"default", 2.0}}},
            {"network", {{"topology", "star"}, {"bandwidth", "10Gbps"}, {"latency", "5us"}}},
            {"storage", {{"hosts", 1}, {"bandwidth", "1GB/s"}}}}},
          {"checkpoints", {{"count", 3}, {"buddy", "next"}}}};
}

struct Outcome {
  core::RunMetrics metrics;
};

core::RunMetrics run(const config::Json& document, const std::string& origin) {
  const config::Config cfg = config::load_config_json(document, origin);
  const graphs::TaskGraph graph = graphs::build_application(cfg);
  const graphs::CostModel cost(cfg, graph);
  core::SimulationOptions options;
  options.time_limit = simgrid_backend::default_time_limit(cfg, graph, cost);
  return simgrid_backend::simulate(cfg, graph, cost, options).metrics;
}

void campaign(const std::string& protocol, const std::string& app) {
  config::Json failure_free = base_config(app);
  const core::RunMetrics reference = run(failure_free, "failure-free " + app);
  REQUIRE(reference.complete);
  REQUIRE(reference.oracle_ok);
  const double makespan = reference.makespan;

  std::size_t completed = 0, unrecoverable = 0, failures_injected = 0;
  const std::size_t scenarios = scenarios_per_case();
  for (std::uint64_t seed = 1; seed <= scenarios; ++seed) {
    std::mt19937_64 random(seed * 7919 + std::hash<std::string>{}(protocol + app));
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    config::Json document = base_config(app);
    document["seed"] = seed;
    const int count = 1 + int(random() % 3);
    config::Json events = config::Json::array();
    for (int i = 0; i < count; ++i) {
      // A third of the later failures strike at the same instant as the first (edge cases of
      // concurrent recoveries), the others at random times.
      const bool simultaneous = i > 0 && random() % 3 == 0;
      const double time = simultaneous ? events[0]["time"].get<double>() : unit(random) * 1.2 * makespan;
      events.push_back({{"time", time}, {"node", int(random() % 4)}});
    }
    // Sometimes no downtime or an immediate detection: the replacement may come up first.
    const double downtime = random() % 4 == 0 ? 0.0 : unit(random) * 0.2 * makespan;
    const double detection = random() % 4 == 0 ? 0.0 : unit(random) * 0.05 * makespan;
    document["failures"] = {{"model", "list"}, {"events", events}, {"downtime", downtime}, {"detection", detection}};
    bool buddy = false;
    if (protocol == "global") {
      buddy = random() % 2 == 0;
      config::Json p = {{"type", "global"}, {"storage", buddy ? "buddy" : "stable"}};
      if (random() % 2 == 0) {
        p["period"] = (0.1 + 0.4 * unit(random)) * makespan;
      } else {
        p["at"] = "cuts";
      }
      document["protocol"] = p;
    } else {
      document["protocol"] = {{"type", protocol}};
    }
    const std::string origin = protocol + "/" + app + "/seed " + std::to_string(seed);
    const core::RunMetrics m = run(document, origin);
    failures_injected += m.failures.size();
    INFO(origin << ": " << document.dump());
    INFO("failure reason: " << m.failure_reason);
    for (const auto& line : m.stall_report) INFO("stall: " << line);
    for (const auto& line : m.oracle_missing) INFO("oracle: " << line);
    if (m.complete) {
      CHECK(m.oracle_ok);
      ++completed;
    } else {
      // Only a node and its buddy failing together may stop a run, and it must say so.
      CHECK(buddy);
      CHECK(m.failure_reason.find("unrecoverable") != std::string::npos);
      ++unrecoverable;
    }
  }
  // The campaign must actually exercise failures and recoveries.
  CHECK(completed > scenarios / 2);
  CHECK(failures_injected > scenarios / 2);
  WARN(protocol << " on " << app << ": " << completed << " completed, " << unrecoverable << " unrecoverable, "
                << failures_injected << " failures injected");
}

}  // namespace

TEST_CASE("campaign: none restarts from scratch", "[campaign]") {
  for (const char* app : {"cholesky", "stencil", "cg"}) campaign("none", app);
}

TEST_CASE("campaign: global rolls back to the last committed checkpoint", "[campaign]") {
  for (const char* app : {"cholesky", "stencil", "cg"}) campaign("global", app);
}

TEST_CASE("campaign: lineage recomputes lost versions", "[campaign]") {
  for (const char* app : {"cholesky", "stencil", "cg"}) campaign("lineage", app);
}
