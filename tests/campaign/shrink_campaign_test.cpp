// Shrink campaign (/platform/on_no_spare: "shrink", docs/shrink.md): for global, cck, buddy,
// lineage, uncoordinated and none on Cholesky, stencil and CG, seeded scenarios with more failures than spares (0 or 1
// spare, one to three failures more, on distinct nodes, at random times in the first 80% of the
// failure-free makespan, random downtime and detection latency; the protocol's options drawn by its
// module). Every run must complete with the digest oracle holding and no task started without its
// input, and report the shrink: fewer machines at the end than at the start, one redistribution
// per rank re-hosted, its bytes (restore and recovery traffic it received) and its recovery time;
// or end unrecoverable where the protocol's module allows it, with a reason it recognises. Never a
// stall, a time limit or a crash.
// FTSIM_SHRINK_SCENARIOS sets the seeds per case (default 10, the CI size; bench/shrink_campaign.py
// runs 50); FTSIM_SHRINK_SEED_BASE the first seed (default 1).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "protocols/registry.hpp"
#include "tests/campaign/campaign_support.hpp"

using namespace ftsim;

namespace {

// Every protocol: none of them knows the placement (docs/shrink.md).
constexpr const char* kProtocols[] = {"global", "cck", "buddy", "lineage", "uncoordinated", "none"};

std::size_t env_count(const char* name, std::size_t fallback) {
  const char* value = std::getenv(name);
  return value ? std::strtoul(value, nullptr, 10) : fallback;
}

// k ranks per machine (/platform/ranks_per_machine): 4 machines, 4k ranks.
config::Json base_config(const std::string& app, int k) {
  config::Json platform = campaign_support::platform();
  if (k > 1) {
    platform["nodes"] = 4 * k;
    platform["ranks_per_machine"] = k;
  }
  return {{"name", "shrink-" + app},
          {"application", campaign_support::application(app)},
          {"platform", platform},
          {"checkpoints", {{"count", 3}, {"buddy", "next"}}}};
}

struct Scenario {
  config::Json document;
  bool may_be_unrecoverable = false;
  int spares = 0;
  int failures = 0;
  int k = 1;
};

Scenario scenario(const protocols::ProtocolModule& module, const std::string& app, std::uint64_t seed, double makespan,
                  int k) {
  const std::string salt = k > 1 ? "shrink/k" + std::to_string(k) + "/" : "shrink/";
  std::mt19937_64 random(seed * 104729 + std::hash<std::string>{}(salt + module.id + app));
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Scenario s;
  s.k = k;
  s.document = base_config(app, k);
  s.document["seed"] = seed;
  s.spares = int(random() % 2);
  s.failures = s.spares + 1 + int(random() % 3);  // more failures than spares; at most 4 nodes
  if (s.failures > 3) s.failures = 3;             // one machine survives
  // Distinct machines: each failure takes a machine (a failure of a re-hosted rank takes its
  // host's); with k ranks per machine it names one of machine m's ranks m*k .. m*k+k-1.
  std::vector<int> nodes = {0, 1, 2, 3};
  std::shuffle(nodes.begin(), nodes.end(), random);
  config::Json events = config::Json::array();
  for (int i = 0; i < s.failures; ++i) {
    const int rank = k > 1 ? nodes[i] * k + int(random() % std::uint64_t(k)) : nodes[i];
    events.push_back({{"time", (0.05 + 0.75 * unit(random)) * makespan}, {"node", rank}});
  }
  const double downtime = random() % 4 == 0 ? 0.0 : unit(random) * 0.1 * makespan;
  const double detection = random() % 4 == 0 ? 0.0 : unit(random) * 0.05 * makespan;
  s.document["failures"] = {{"model", "list"}, {"events", events}, {"downtime", downtime}, {"detection", detection}};
  const protocols::CampaignDraw draw = module.campaign(random, makespan);
  for (const auto& [key, value] : draw.patch.items()) s.document[key] = value;
  // Fixed clusters are drawn for 4 ranks: the same halves of 4k ranks.
  if (k > 1 && s.document["protocol"].contains("clusters") && s.document["protocol"]["clusters"].is_array()) {
    config::Json halves = config::Json::array({config::Json::array(), config::Json::array()});
    for (int r = 0; r < 4 * k; ++r) halves[r < 2 * k ? 0 : 1].push_back(r);
    s.document["protocol"]["clusters"] = halves;
  }
  s.document["platform"]["spares"] = s.spares;
  s.document["platform"]["on_no_spare"] = "shrink";
  s.may_be_unrecoverable = draw.may_be_unrecoverable;
  return s;
}

struct Tally {
  std::size_t completed = 0, unrecoverable = 0, shrunk = 0, redistributions = 0;
  std::uint64_t bytes = 0;
};

void check_scenario(const protocols::ProtocolModule& module, const std::string& app, std::uint64_t seed, double makespan,
                    int k, Tally& tally) {
  const Scenario s = scenario(module, app, seed, makespan, k);
  const std::string origin = std::string(module.id) + "/" + app + "/k " + std::to_string(k) + "/seed " + std::to_string(seed);
  // FTSIM_SHRINK_DUMP=DIR keeps every scenario's config, to rerun with ftsim run.
  if (const char* dir = std::getenv("FTSIM_SHRINK_DUMP")) {
    std::ofstream(std::string(dir) + "/" + module.id + "-" + app + "-k" + std::to_string(k) + "-" + std::to_string(seed) + ".json")
        << s.document.dump(2);
  }
  const node::RunMetrics m = campaign_support::run(s.document, origin);
  INFO(origin << ": " << s.document.dump());
  INFO("failure reason: " << m.failure_reason);
  std::string lines;
  for (const auto& line : m.stall_report) lines += "\n  stall: " + line;
  for (const auto& line : m.oracle_missing) lines += "\n  oracle missing: " + line;
  for (const auto& line : m.oracle_wrong) lines += "\n  oracle wrong: " + line;
  INFO(lines);
  REQUIRE(m.shrink_enabled);
  CHECK(m.machines_at_start == 4);
  CHECK(m.ranks_per_machine == std::uint32_t(k));
  if (!m.complete) {
    const bool reason_ok = module.unrecoverable_reason_ok ? module.unrecoverable_reason_ok(m.failure_reason)
                                                          : m.failure_reason.find("unrecoverable") != std::string::npos;
    CHECK(s.may_be_unrecoverable);
    CHECK(reason_ok);
    ++tally.unrecoverable;
    return;
  }
  ++tally.completed;
  CHECK(m.oracle_ok);
  CHECK(campaign_support::inputs_missing(m) == 0);
  const std::vector<std::string> broken = module.invariants ? module.invariants(m) : std::vector<std::string>{};
  for (const auto& b : broken) INFO("invariant broken: " << b);
  CHECK(broken.empty());
  // Each failure record is a rank that died; the ranks of one machine die at the same instant
  // (the scenario's failures are at distinct random times): that many machines failed. The ranks
  // of the first `spares` machines to fail took a spare machine (one per failed machine), the
  // others were re-hosted on a survivor.
  std::set<node::NodeId> failed_ranks;
  std::map<double, std::size_t> ranks_by_failure_time;
  for (const auto& f : m.failures) {
    failed_ranks.insert(f.node);
    ++ranks_by_failure_time[f.time];
  }
  const std::size_t spares_used = std::min<std::size_t>(std::size_t(s.spares), ranks_by_failure_time.size());
  std::size_t ranks_on_spares = 0;
  for (auto it = ranks_by_failure_time.begin(); it != ranks_by_failure_time.end() && it != std::next(ranks_by_failure_time.begin(), std::ptrdiff_t(spares_used)); ++it) {
    CHECK(it->second == std::size_t(k));  // before any shrink a machine runs its k ranks
    ranks_on_spares += it->second;
  }
  CHECK(m.redistributions.size() == m.failures.size() - ranks_on_spares);
  CHECK(m.machines_at_end == 4 - ranks_by_failure_time.size() + spares_used);
  // Spread: at the first shrink every machine up runs k ranks (a spare takes a whole machine) and
  // 3 are up, unless another machine failed while this one's ranks were down: the failed
  // machine's k ranks, re-hosted at one instant, land on k different ones.
  if (!m.redistributions.empty()) {
    const node::RedistributionRecord& first = m.redistributions.front();
    double failed_at = -1;
    for (const auto& f : m.failures) {
      if (f.node == first.node && f.time <= first.time) failed_at = std::max(failed_at, f.time);
    }
    bool overlapped = false;
    for (const auto& f : m.failures) overlapped = overlapped || (f.time > failed_at && f.time <= first.time);
    std::set<std::uint32_t> machines;
    std::size_t moved = 0;
    for (const auto& r : m.redistributions) {
      if (r.time != first.time || r.from_machine != first.from_machine) continue;
      machines.insert(r.machine);
      CHECK(r.machine != r.from_machine);
      ++moved;
    }
    CHECK(moved == std::size_t(k));
    if (!overlapped) CHECK(machines.size() == moved);
  }
  // Each rank's last redistribution is recovered (an earlier one may end with its new machine
  // failing first).
  std::map<node::NodeId, const node::RedistributionRecord*> last;
  for (const auto& r : m.redistributions) {
    CHECK(failed_ranks.count(r.node) == 1);
    CHECK(r.machine_rank != r.node);
    last[r.node] = &r;
    tally.bytes += r.bytes;
  }
  for (const auto& [node, r] : last) CHECK(r->recovered_at >= r->time);
  if (!m.redistributions.empty()) ++tally.shrunk;
  tally.redistributions += m.redistributions.size();
}

double failure_free_makespan(const std::string& app, int k) {
  const node::RunMetrics reference = campaign_support::run(base_config(app, k), "failure-free " + app);
  REQUIRE(reference.complete);
  return reference.makespan;
}

}  // namespace

namespace {

void run_campaign(int k, std::size_t scenarios, std::size_t base) {
  for (const char* protocol : kProtocols) {
    const protocols::ProtocolModule* module = protocols::find_protocol(protocol);
    REQUIRE(module);
    DYNAMIC_SECTION(protocol) {
      for (const char* app : {"cholesky", "stencil", "cg"}) {
        const double makespan = failure_free_makespan(app, k);
        Tally tally;
        for (std::uint64_t seed = base; seed < base + scenarios; ++seed) check_scenario(*module, app, seed, makespan, k, tally);
        // The campaign must exercise shrinks that complete (global with buddy storage and buddy
        // may lose a node with its buddy's copy: up to three failures on four nodes often do).
        CHECK(tally.shrunk > 0);
        WARN("shrink " << protocol << " on " << app << ", " << k << " ranks per machine (seeds " << base << ".." << base + scenarios - 1 << "): "
                       << tally.completed << " completed (" << tally.shrunk << " on fewer machines, "
                       << tally.redistributions << " redistributions, " << tally.bytes << " B moved), "
                       << tally.unrecoverable << " unrecoverable");
      }
    }
  }
}

}  // namespace

TEST_CASE("shrink campaign: more failures than spares, the run goes on with fewer machines", "[campaign][shrink]") {
  run_campaign(1, env_count("FTSIM_SHRINK_SCENARIOS", 10), env_count("FTSIM_SHRINK_SEED_BASE", 1));
}

// Over-decomposition (/platform/ranks_per_machine 2): 8 ranks on 4 machines, a failure takes a
// machine's two ranks, a spare machine takes both, a shrink spreads them over two survivors.
// FTSIM_SHRINK_SCENARIOS_K2 seeds per case (default 4, to keep the CI time a few seconds).
TEST_CASE("shrink campaign: two ranks per machine, a failed machine's ranks spread over the survivors", "[campaign][shrink]") {
  run_campaign(2, env_count("FTSIM_SHRINK_SCENARIOS_K2", 4), env_count("FTSIM_SHRINK_SEED_BASE", 1));
}
