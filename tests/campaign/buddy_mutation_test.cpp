// Mutation check of the buddy restart (issue 19): four planted faults, each of which the
// campaign's checks must catch. Three are compiled into a copy of the buddy protocol only for the
// mutation tests (FTSIM_MUTANTS, protocols/mutants.hpp: release builds have no hook); the fourth is
// the runtime's (sim/node/test_faults.hpp).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>

#include "tests/campaign/buddy_scenarios.hpp"
#include "tests/support/planted_faults.hpp"

using namespace ftsim;
using namespace ftsim::campaign_support;

// Mutation check of the buddy restart (issue 19): each planted fault must be seen by the checks
// of the campaigns above (the oracle, inputs present at each start, an unrecoverable ending only
// for a real cause, never a stall) in the runs where it acted.
TEST_CASE("campaign: the buddy checks catch four planted restart faults", "[campaign][buddy][mutation]") {
  // (the mutant's name, or "" for the runtime's fault; what it plants)
  const std::pair<const char*, const char*> faults[] = {
      {"restore_before_cut", "(a) restore the newest checkpoint strictly before N"},
      {"", "(b) replayed sends carry the previous version's digest"},
      {"cut_task_not_run", "(c) the task at the cut marked done without running"},
      {"early_replays_dropped", "(d) replays that arrived before the restore dropped"},
  };
  std::map<std::string, double> makespans;
  for (const char* app : {"cholesky", "stencil", "cg"}) {
    makespans[std::string(app) + "/4"] = buddy_makespan(app, 4, 1);
    makespans[std::string(app) + "/16"] = buddy_makespan(app, 16, 2);
  }
  for (const auto& [fault, name] : faults) {
    // Inherited by each forked simulation.
    if (*fault) {
      ::setenv("FTSIM_MUTANT", fault, 1);
    } else {
      testing::planted_faults().replay_previous_digest = true;
    }
    std::size_t fired = 0, caught = 0;
    for (const char* app : {"cholesky", "stencil", "cg"}) {
      for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        // One failure on 4 nodes, or three overlapping ones on 16 nodes with two buddies each.
        const bool small = seed % 2 == 0;
        const config::Json document = small ? overlap_scenario(app, seed, makespans[std::string(app) + "/4"], 4, 1, 1)
                                            : overlap_scenario(app, seed, makespans[std::string(app) + "/16"], 16, 2, 3);
        const node::RunMetrics m = run(document, "buddy mutation");
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
    ::unsetenv("FTSIM_MUTANT");
    testing::planted_faults().replay_previous_digest = false;
    WARN(name << ": acted in " << fired << " runs, caught in " << caught);
    // Where a fault goes unseen it had no effect: the stale or dropped version was not read again
    // (the run completes with every final digest right).
    CHECK(fired >= 15);
    CHECK(caught >= 10);
    CHECK(double(caught) >= 0.75 * double(fired));
  }
}
