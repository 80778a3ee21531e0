// SimGrid 3.32's CommImpl::detach is replaced (sim/simgrid/comm_detach_shim.cpp): SimGrid's own
// calls must reach the replacement (else the executable did not export it, and every completion
// scans maestro's list again), and a run with failures, whose cancelled communications SimGrid
// also tears down, must give the same results as before the replacement (the campaigns run
// under "lazy" check the oracle; this checks the binding itself).
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include "sim/simgrid/comm_detach_shim.hpp"
#include "tests/campaign/campaign_support.hpp"

using namespace ftsim;

TEST_CASE("simgrid: SimGrid's calls to CommImpl::detach reach ftsim's replacement", "[simgrid][shim]") {
  if (!simgrid_compat::comm_detach_shim_compiled()) {
    SUCCEED("SimGrid newer than 3.33: nothing replaced");
    return;
  }
  config::Json document = {{"application", campaign_support::application("stencil")},
                           {"platform", campaign_support::platform()},
                           {"protocol", {{"type", "global"}, {"at", "cuts"}}},
                           {"checkpoints", {{"count", 2}}},
                           {"failures", {{"model", "list"}, {"events", {{{"after_tasks", 40}, {"node", 1}}}}}}};
  document["platform"]["network"]["solver"] = "lazy";  // SimGrid's Comms (the default solver makes none)
  // One SimGrid engine per process: simulate in a child, which answers by its exit status.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    try {
      const config::Config cfg = protocols::load_config_json(document, "shim test");
      const graphs::TaskGraph graph = graphs::build_application(cfg);
      const graphs::CostModel cost(cfg, graph);
      world::SimulationOptions options;
      options.time_limit = simgrid_backend::default_time_limit(cfg, graph, cost);
      const std::uint64_t before = simgrid_compat::comm_detach_shim_calls();
      const auto result = simgrid_backend::simulate_in_process(cfg, graph, cost, options);
      const bool bound = simgrid_compat::comm_detach_shim_calls() > before;
      const bool right = result.metrics.complete && result.metrics.oracle_ok && !result.metrics.failures.empty();
      ::_exit(bound ? (right ? 0 : 2) : 1);
    } catch (...) {
      ::_exit(3);  // never back into the test runner from the child
    }
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  INFO("exit 1: SimGrid's calls did not reach the replacement; 2: the run with a failure was wrong; 3: it threw");
  CHECK(WEXITSTATUS(status) == 0);
}
