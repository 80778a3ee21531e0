// Failure campaign: for each protocol (every module of protocols/, with its own campaign entry)
// and each application (cholesky, stencil, cg), many seeded random failure scenarios (one to three
// failures at random times and nodes, some simultaneous, random or zero downtime and detection
// latency; the protocol's options drawn by its module). Every run must terminate, and either
// complete with the digest oracle holding (every handle's final version held where it belongs with
// the failure-free digest, every task done and run at least once, no task started without its
// input) and the protocol's own invariants, or end unrecoverable where the module allows it
// (e.g. global with buddy storage, buddy), with a reason the module recognises. Never a stall, a time limit or a crash. Plus the seeds that once gave wrong results, and
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
#include "sim/simgrid/simulate.hpp"
#include "tests/campaign/campaign_support.hpp"

using namespace ftsim;
using campaign_support::inputs_missing;
using campaign_support::run;
using campaign_support::scenarios_per_case;

namespace {

config::Json base_config(const std::string& app) {
  return {{"name", "campaign-" + app},
          {"application", campaign_support::application(app)},
          {"platform", campaign_support::platform()},
          {"checkpoints", {{"count", 3}, {"buddy", "next"}}}};
}

// The scenario of one seed: one to three failures (some simultaneous), random downtime and
// detection latency, then what the protocol's module draws (its options, e.g. for global a random
// period or the graph cuts and a random storage).
config::Json scenario(const protocols::ProtocolModule& module, const std::string& app, std::uint64_t seed,
                      double makespan, bool& may_be_unrecoverable) {
  std::mt19937_64 random(seed * 7919 + std::hash<std::string>{}(std::string(module.id) + app));
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
  const protocols::CampaignDraw draw = module.campaign(random, makespan);
  for (const auto& [key, value] : draw.patch.items()) document[key] = value;
  may_be_unrecoverable = draw.may_be_unrecoverable;
  return document;
}

double failure_free_makespan(const std::string& app) {
  const node::RunMetrics reference = run(base_config(app), "failure-free " + app);
  REQUIRE(reference.complete);
  REQUIRE(reference.oracle_ok);
  return reference.makespan;
}

// One scenario under the digest oracle: a completed run has every final version with the
// failure-free digest and no task started without its input; a run that stops says why.
bool check_scenario(const protocols::ProtocolModule& module, const std::string& app, std::uint64_t seed,
                    double makespan, std::size_t& failures_injected) {
  bool may_be_unrecoverable = false;
  const std::string protocol = module.id;
  const config::Json document = scenario(module, app, seed, makespan, may_be_unrecoverable);
  const std::string origin = protocol + "/" + app + "/seed " + std::to_string(seed);
  INFO(origin << ": " << document.dump());  // before the run: an exception names the scenario too
  const node::RunMetrics m = run(document, origin);
  failures_injected += m.failures.size();
  INFO("failure reason: " << m.failure_reason);
  // (An INFO lives until the end of its scope: one per list, not one per line of a loop.)
  auto lines = [](const std::vector<std::string>& list, const char* prefix) {
    std::string text;
    for (const auto& line : list) text += "\n  " + std::string(prefix) + line;
    return text;
  };
  INFO(lines(m.stall_report, "stall: ") << lines(m.oracle_missing, "oracle missing: ") << lines(m.oracle_wrong, "oracle wrong: "));
  const bool reason_ok = module.unrecoverable_reason_ok
                             ? module.unrecoverable_reason_ok(m.failure_reason)
                             : m.failure_reason.find("unrecoverable") != std::string::npos;
  const std::vector<std::string> broken =
      m.complete && module.invariants ? module.invariants(m) : std::vector<std::string>{};
  INFO(lines(broken, "invariant broken: "));
  const bool expected = m.complete ? m.oracle_ok && inputs_missing(m) == 0 && broken.empty()
                                   : may_be_unrecoverable && reason_ok;
  if (!expected) {
    // FTSIM_CAMPAIGN_DUMP=DIR keeps the config of every failing scenario, to rerun with ftsim run.
    if (const char* dir = std::getenv("FTSIM_CAMPAIGN_DUMP")) {
      std::ofstream(std::string(dir) + "/" + protocol + "-" + app + "-" + std::to_string(seed) + ".json") << document.dump(2);
    }
  }
  if (m.complete) {
    CHECK(m.oracle_ok);
    CHECK(inputs_missing(m) == 0);
    CHECK(broken.empty());
    return true;
  }
  // Only what the protocol documents may stop a run (e.g. a node and its buddy failing together),
  // and it must say so.
  CHECK(may_be_unrecoverable);
  CHECK(reason_ok);
  return false;
}

void campaign(const protocols::ProtocolModule& module, const std::string& app) {
  const std::string protocol = module.id;
  const double makespan = failure_free_makespan(app);
  std::size_t completed = 0, unrecoverable = 0, failures_injected = 0;
  const std::size_t scenarios = scenarios_per_case();
  for (std::uint64_t seed = 1; seed <= scenarios; ++seed) {
    if (check_scenario(module, app, seed, makespan, failures_injected)) {
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

const protocols::ProtocolModule& module(const char* id) {
  const protocols::ProtocolModule* found = protocols::find_protocol(id);
  REQUIRE(found);
  return *found;
}

}  // namespace

// Every protocol module's campaign: ctest runs one section per protocol folder (tests/CMakeLists.txt:
// "campaign: <id>"), so a new protocol is in the campaign as soon as its folder exists.
TEST_CASE("campaign: every protocol", "[.][campaign-protocols]") {
  for (const protocols::ProtocolModule* m : protocols::protocol_modules()) {
    DYNAMIC_SECTION(m->id) {
      for (const char* app : {"cholesky", "stencil", "cg"}) campaign(*m, app);
    }
  }
}

// /checkpoint_data (protocols/checkpoint_content.hpp) on every protocol that saves data: the same
// seeded scenarios with zero-block exclusion, incremental checkpoints (a full one every 3, small
// blocks) and zstd, under a data profile that makes every technique act (a fifth of the blocks
// zero, 40% of them changed per write, ratio 1.5). A restart then reads a chain of images back and
// folds it; the digest oracle checks what it restored, and a chain that misses a link or comes out
// of order stops the run. A fifth of the scenarios per case of the campaign above (at least 20).
TEST_CASE("campaign: checkpoint data on every protocol that saves data", "[campaign][checkpoint-data]") {
  const config::Json data = {{"zero_blocks", true},
                             {"incremental", {{"block_size", "4KiB"}, {"full_every", 3}}},
                             {"compression", "zstd"},
                             {"profile", {{"zero_fraction", 0.2}, {"changed_fraction", 0.4}, {"compression_ratio", 1.5}}}};
  for (const protocols::ProtocolModule* m : protocols::protocol_modules()) {
    if (m->no_checkpoint_data) continue;
    std::size_t protocol_restores = 0;
    for (const char* app : {"cholesky", "stencil", "cg"}) {
      // Failures spread over the protocol's own failure-free run with checkpoint data (a drawn
      // schedule; checkpointing may double the makespan), so that many restart from a chain.
      double makespan = failure_free_makespan(app);
      {
        bool unused = false;
        config::Json free = scenario(*m, app, 0, makespan, unused);
        free.erase("failures");
        free["checkpoint_data"] = data;
        const node::RunMetrics r = run(free, std::string(m->id) + "/" + app + "/checkpoint data/failure-free");
        REQUIRE(r.complete);
        makespan = std::max(makespan, r.makespan);
      }
      std::size_t completed = 0, failures = 0, restores = 0, from_checkpoint = 0, images = 0;
      const std::size_t scenarios = std::max<std::size_t>(20, scenarios_per_case() / 5);
      for (std::uint64_t seed = 1; seed <= scenarios; ++seed) {
        bool may_be_unrecoverable = false;
        config::Json document = scenario(*m, app, seed, makespan, may_be_unrecoverable);
        document["checkpoint_data"] = data;
        const std::string origin = std::string(m->id) + "/" + app + "/checkpoint data/seed " + std::to_string(seed);
        INFO(origin << ": " << document.dump());
        const node::RunMetrics r = run(document, origin);
        INFO("failure reason: " << r.failure_reason);
        failures += r.failures.size();
        for (const auto& f : r.failures) from_checkpoint += f.restart_point.rfind("checkpoint", 0) == 0;
        for (const auto& n : r.nodes) {
          restores += n.counters.content.restores;
          images += n.counters.content.full_images + n.counters.content.incremental_images;
        }
        if (r.complete) {
          ++completed;
          CHECK(r.oracle_ok);
          CHECK(inputs_missing(r) == 0);
          if (m->invariants) CHECK(m->invariants(r).empty());
        } else {
          CHECK(may_be_unrecoverable);
          CHECK((m->unrecoverable_reason_ok ? m->unrecoverable_reason_ok(r.failure_reason)
                                            : r.failure_reason.find("unrecoverable") != std::string::npos));
        }
      }
      CHECK(completed > scenarios / 2);
      CHECK(failures > scenarios / 3);
      CHECK(images > 0);
      protocol_restores += restores;
      WARN(m->id << " on " << app << " with checkpoint data: " << completed << " of " << scenarios << " completed, "
                 << failures << " failures (" << from_checkpoint << " restarting from a checkpoint), " << restores
                 << " restores from images");
    }
    CHECK(protocol_restores > 0);  // replacements did read chains back
  }
}

// The seeds where a prototype value oracle found wrong results that the old existence check
// passed (issue: lineage fed tasks versions not in memory; global restored a checkpoint that a
// node and its buddy had both lost). Kept whatever the number of scenarios per case.
TEST_CASE("campaign: the seeds that once gave wrong results", "[campaign]") {
  std::size_t failures = 0;
  const double cholesky = failure_free_makespan("cholesky"), cg = failure_free_makespan("cg");
  for (std::uint64_t seed : {59, 681, 782, 816}) check_scenario(module("lineage"), "cholesky", seed, cholesky, failures);
  for (std::uint64_t seed : {309, 352, 464}) check_scenario(module("lineage"), "cg", seed, cg, failures);
  check_scenario(module("global"), "cholesky", 650, cholesky, failures);
  // uncoordinated: a replacement was told a checkpoint its predecessor had erased when applying a
  // line (the recovery process now counts the line's checkpoint as the node's latest).
  const double stencil = failure_free_makespan("stencil");
  for (std::uint64_t seed : {104, 344, 625}) check_scenario(module("uncoordinated"), "cholesky", seed, cholesky, failures);
  check_scenario(module("uncoordinated"), "cg", 329, cg, failures);
  check_scenario(module("uncoordinated"), "stencil", 571, stencil, failures);
  // uncoordinated: a process rolled back in a round that a newer one overtook, that had received
  // data since its restore, was taken as still at its checkpoint (its phase had moved): a deadlock.
  check_scenario(module("uncoordinated"), "cg", 647, cg, failures);
  check_scenario(module("uncoordinated"), "cholesky", 361, cholesky, failures);
  // uncoordinated: a suppressed re-send of an orphan was logged with its new execution's phase, so
  // its later replay waited for a phase that the receiver's orphans could only reach after it.
  check_scenario(module("uncoordinated"), "stencil", 907, stencil, failures);
  CHECK(failures > 0);
}

// Mutation check: with a planted fault (recovery uses a stale version of a datum still needed)
// the digest oracle must see wrong data in at least 95% of the scenarios where the fault acted,
// while the old check (every final version exists, every task done) sees nothing.
TEST_CASE("campaign: the digest oracle catches a recovery that uses a stale version", "[campaign][mutation]") {
  testing::planted_faults().stale_recovery = true;  // campaign_support::run hands it to each forked simulation
  std::size_t fired = 0, caught = 0, old_check_caught = 0;
  for (const char* protocol : {"global", "lineage"}) {
    for (const char* app : {"cholesky", "stencil", "cg"}) {
      const double makespan = failure_free_makespan(app);
      for (std::uint64_t seed = 1; seed <= std::max<std::size_t>(10, scenarios_per_case() / 3); ++seed) {
        bool may_be_unrecoverable = false;
        const node::RunMetrics m = run(scenario(module(protocol), app, seed, makespan, may_be_unrecoverable), "mutation");
        if (m.test_faults_fired == 0 || !m.complete) continue;
        ++fired;
        if (!m.oracle_wrong.empty()) ++caught;
        if (!m.oracle_missing.empty()) ++old_check_caught;
      }
    }
  }
  testing::planted_faults().stale_recovery = false;
  WARN("stale recovery acted in " << fired << " completed runs: digest oracle caught " << caught
                                  << ", existence check " << old_check_caught);
  REQUIRE(fired >= 20);
  CHECK(double(caught) >= 0.95 * double(fired));
  CHECK(old_check_caught == 0);
}
