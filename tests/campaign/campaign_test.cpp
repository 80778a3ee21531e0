// Failure campaign (issue acceptance): for each protocol (none, global, lineage) and each
// application (cholesky, stencil, cg), many seeded random failure scenarios (one to three
// failures at random times and nodes, some simultaneous, random or zero downtime and detection
// latency, for global a random period or the graph cuts and a random storage). Every run must
// terminate, and either complete with the digest oracle holding (every handle's final version
// held where it belongs with the failure-free digest, every task done, no task started without
// its input) or, for global with buddy storage, report an unrecoverable double failure with its
// reason. Never a stall, a time limit or a crash. Plus the seeds that once gave wrong results, and
// a mutation check of the oracle itself.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>

#include "graphs/application.hpp"
#include "graphs/cost_model.hpp"
#include "protocols/registry.hpp"
#include "sim/core/test_faults.hpp"
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

core::RunMetrics run(const config::Json& document, const std::string& origin) {
  const config::Config cfg = protocols::load_config_json(document, origin);
  const graphs::TaskGraph graph = graphs::build_application(cfg);
  const graphs::CostModel cost(cfg, graph);
  core::SimulationOptions options;
  options.time_limit = simgrid_backend::default_time_limit(cfg, graph, cost);
  return simgrid_backend::simulate(cfg, graph, cost, options).metrics;
}

// The scenario of one seed: one to three failures (some simultaneous), random downtime and
// detection latency, and for global a random period or the graph cuts and a random storage.
config::Json scenario(const std::string& protocol, const std::string& app, std::uint64_t seed, double makespan,
                      bool& buddy) {
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
  buddy = false;
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
  return document;
}

double failure_free_makespan(const std::string& app) {
  const core::RunMetrics reference = run(base_config(app), "failure-free " + app);
  REQUIRE(reference.complete);
  REQUIRE(reference.oracle_ok);
  return reference.makespan;
}

std::uint64_t inputs_missing(const core::RunMetrics& m) {
  std::uint64_t count = 0;
  for (const auto& n : m.nodes) count += n.inputs_missing_at_start;
  return count;
}

// One scenario under the digest oracle: a completed run has every final version with the
// failure-free digest and no task started without its input; a run that stops says why.
bool check_scenario(const std::string& protocol, const std::string& app, std::uint64_t seed, double makespan,
                    std::size_t& failures_injected) {
  bool buddy = false;
  const config::Json document = scenario(protocol, app, seed, makespan, buddy);
  const std::string origin = protocol + "/" + app + "/seed " + std::to_string(seed);
  const core::RunMetrics m = run(document, origin);
  failures_injected += m.failures.size();
  INFO(origin << ": " << document.dump());
  INFO("failure reason: " << m.failure_reason);
  for (const auto& line : m.stall_report) INFO("stall: " << line);
  for (const auto& line : m.oracle_missing) INFO("oracle missing: " << line);
  for (const auto& line : m.oracle_wrong) INFO("oracle wrong: " << line);
  const bool expected = m.complete ? m.oracle_ok && inputs_missing(m) == 0
                                    : buddy && m.failure_reason.find("unrecoverable") != std::string::npos;
  if (!expected) {
    // FTSIM_CAMPAIGN_DUMP=DIR keeps the config of every failing scenario, to rerun with ftsim run.
    if (const char* dir = std::getenv("FTSIM_CAMPAIGN_DUMP")) {
      std::ofstream(std::string(dir) + "/" + protocol + "-" + app + "-" + std::to_string(seed) + ".json") << document.dump(2);
    }
  }
  if (m.complete) {
    CHECK(m.oracle_ok);
    CHECK(inputs_missing(m) == 0);
    return true;
  }
  // Only a node and its buddy failing together may stop a run, and it must say so.
  CHECK(buddy);
  CHECK(m.failure_reason.find("unrecoverable") != std::string::npos);
  return false;
}

void campaign(const std::string& protocol, const std::string& app) {
  const double makespan = failure_free_makespan(app);
  std::size_t completed = 0, unrecoverable = 0, failures_injected = 0;
  const std::size_t scenarios = scenarios_per_case();
  for (std::uint64_t seed = 1; seed <= scenarios; ++seed) {
    if (check_scenario(protocol, app, seed, makespan, failures_injected)) {
      ++completed;
    } else {
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

// The seeds where a prototype value oracle found wrong results that the old existence check
// passed (issue: lineage fed tasks versions not in memory; global restored a checkpoint that a
// node and its buddy had both lost). Kept whatever the number of scenarios per case.
TEST_CASE("campaign: the seeds that once gave wrong results", "[campaign]") {
  std::size_t failures = 0;
  const double cholesky = failure_free_makespan("cholesky"), cg = failure_free_makespan("cg");
  for (std::uint64_t seed : {59, 681, 782, 816}) check_scenario("lineage", "cholesky", seed, cholesky, failures);
  for (std::uint64_t seed : {309, 352, 464}) check_scenario("lineage", "cg", seed, cg, failures);
  check_scenario("global", "cholesky", 650, cholesky, failures);
  CHECK(failures > 0);
}

// Mutation check: with a planted fault (recovery uses a stale version of a datum still needed)
// the digest oracle must see wrong data in at least 95% of the scenarios where the fault acted,
// while the old check (every final version exists, every task done) sees nothing.
TEST_CASE("campaign: the digest oracle catches a recovery that uses a stale version", "[campaign][mutation]") {
  core::test_faults().stale_recovery = true;  // inherited by each forked simulation
  std::size_t fired = 0, caught = 0, old_check_caught = 0;
  for (const char* protocol : {"global", "lineage"}) {
    for (const char* app : {"cholesky", "stencil", "cg"}) {
      const double makespan = failure_free_makespan(app);
      for (std::uint64_t seed = 1; seed <= std::max<std::size_t>(10, scenarios_per_case() / 3); ++seed) {
        bool buddy = false;
        const core::RunMetrics m = run(scenario(protocol, app, seed, makespan, buddy), "mutation");
        if (m.test_faults_fired == 0 || !m.complete) continue;
        ++fired;
        if (!m.oracle_wrong.empty()) ++caught;
        if (!m.oracle_missing.empty()) ++old_check_caught;
      }
    }
  }
  core::test_faults().stale_recovery = false;
  WARN("stale recovery acted in " << fired << " completed runs: digest oracle caught " << caught
                                  << ", existence check " << old_check_caught);
  REQUIRE(fired >= 20);
  CHECK(double(caught) >= 0.95 * double(fired));
  CHECK(old_check_caught == 0);
}

// ----------------------------------------------------------------------------- buddy, overlapping restarts
// Issue 19: three or more overlapping restarts never ended. Every run here must end: recovered
// with the oracle holding, or unrecoverable for a cause the test checks against the scenario.

namespace {

config::Json buddy_application(const std::string& name) {
  if (name == "cholesky") return {{"type", "cholesky"}, {"tiles", 8}, {"tile_size", 128}, {"order", "column"}};
  if (name == "stencil") return {{"type", "stencil"}, {"tiles", {4, 4}}, {"tile_size", {64, 64}}, {"iterations", 10}};
  return {{"type", "cg"}, {"grid", 64}, {"blocks", 8}, {"iterations", 8}};
}

// The buddies of each node: "next" (one buddy), or a ring of two (node i's buddies i+1 and i+2).
std::vector<std::vector<int>> ring(int nodes, int buddies) {
  std::vector<std::vector<int>> of(nodes);
  for (int i = 0; i < nodes; ++i) {
    for (int b = 1; b <= buddies; ++b) of[i].push_back((i + b) % nodes);
  }
  return of;
}

config::Json buddy_config(const std::string& app, int nodes, int buddies) {
  config::Json mapping = config::Json::array();
  for (const auto& list : ring(nodes, buddies)) mapping.push_back(list);
  return {{"name", "buddy-overlap-" + app},
          {"application", buddy_application(app)},
          {"platform", {{"nodes", nodes}, {"cores_per_node", 2}, {"core_gflops", {{"default", 2.0}}}}},
          {"checkpoints", {{"count", 3}, {"buddy", mapping}}},
          {"protocol", {{"type", "buddy"}}}};
}

struct Outcome {
  std::size_t recovered = 0, unrecoverable_buddies = 0, unrecoverable_other = 0;
};

enum class Cause { none, buddies_lost, other };

// Why a buddy run may end unrecoverable, checked against its scenario: every buddy of the named
// node failed too; or the named node failed with messages in transit forbidding its checkpoints
// and its senders' logs collected; or the documented limit of the cascade (a node that rolled
// back, alive, for another node cannot go further back). `none`: no such cause holds.
Cause unrecoverable_cause(const std::string& reason, const config::Json& document, int nodes, int buddies) {
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
    // "node X needs versions that node Y wrote before its own restart": X failed, and a node never
    // needs its own versions from a log.
    const int needing = named("unrecoverable: node "), writer = named("needs versions that node ");
    return has_failed(needing) && writer >= 0 && writer != needing && failed.size() >= 2 ? Cause::other : Cause::none;
  }
  return Cause::none;
}

// A run ends recovered (oracle ok, no task started without its input) or unrecoverable for a
// cause that holds in the scenario: every buddy of the named node failed too; or the node failed
// with messages in transit forbidding its checkpoints and its senders' logs collected; or the
// documented limit of the cascade (docs/protocols.md). Never a stall, a hang or a time limit.
void check_buddy_run(const config::Json& document, const std::string& origin, int nodes, int buddies, Outcome& outcome) {
  const core::RunMetrics m = run(document, origin);
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

double buddy_makespan(const std::string& app, int nodes, int buddies) {
  const core::RunMetrics reference = run(buddy_config(app, nodes, buddies), "failure-free buddy " + app);
  INFO(reference.failure_reason);
  REQUIRE(reference.complete);
  REQUIRE(reference.oracle_ok);
  return reference.makespan;
}

// `count` failures within about one recovery window, 30% of the later ones hitting a buddy of the
// previous one, a fifth at the same instant as the first.
config::Json overlap_scenario(const std::string& app, std::uint64_t seed, double makespan, int nodes, int buddies,
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

// Mutation check of the buddy restart (issue 19): each planted fault must be seen by the checks
// of the campaigns above (the oracle, inputs present at each start, an unrecoverable ending only
// for a real cause, never a stall) in the runs where it acted.
TEST_CASE("campaign: the buddy checks catch four planted restart faults", "[campaign][buddy][mutation]") {
  using Fault = core::TestFaults::Buddy;
  const std::pair<Fault, const char*> faults[] = {
      {Fault::restore_before_cut, "(a) restore the newest checkpoint strictly before N"},
      {Fault::replay_previous_digest, "(b) replayed sends carry the previous version's digest"},
      {Fault::cut_task_not_run, "(c) the task at the cut marked done without running"},
      {Fault::early_replays_dropped, "(d) replays that arrived before the restore dropped"},
  };
  std::map<std::string, double> makespans;
  for (const char* app : {"cholesky", "stencil", "cg"}) {
    makespans[std::string(app) + "/4"] = buddy_makespan(app, 4, 1);
    makespans[std::string(app) + "/16"] = buddy_makespan(app, 16, 2);
  }
  for (const auto& [fault, name] : faults) {
    core::test_faults().buddy = fault;  // inherited by each forked simulation
    std::size_t fired = 0, caught = 0;
    for (const char* app : {"cholesky", "stencil", "cg"}) {
      for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        // One failure on 4 nodes, or three overlapping ones on 16 nodes with two buddies each.
        const bool small = seed % 2 == 0;
        const config::Json document = small ? overlap_scenario(app, seed, makespans[std::string(app) + "/4"], 4, 1, 1)
                                            : overlap_scenario(app, seed, makespans[std::string(app) + "/16"], 16, 2, 3);
        const core::RunMetrics m = run(document, "buddy mutation");
        if (m.test_faults_fired == 0) continue;
        ++fired;
        const bool wrong = m.complete ? !m.oracle_ok || inputs_missing(m) > 0
                                      : unrecoverable_cause(m.failure_reason, document, small ? 4 : 16, small ? 1 : 2) ==
                                            Cause::none;
        if (wrong) ++caught;
        if (!wrong && std::getenv("FTSIM_MUTATION_VERBOSE")) {
          WARN(name << " not caught: " << (m.complete ? "complete, oracle ok" : m.failure_reason) << ": " << document.dump());
        }
      }
    }
    core::test_faults().buddy = Fault::none;
    WARN(name << ": acted in " << fired << " runs, caught in " << caught);
    // Where a fault goes unseen it had no effect: the stale or dropped version was not read again
    // (the run completes with every final digest right).
    CHECK(fired >= 15);
    CHECK(caught >= 10);
    CHECK(double(caught) >= 0.75 * double(fired));
  }
}
