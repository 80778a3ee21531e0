// The digest oracle checks values; the world driver also checks executions (issue 20).
#include <catch2/catch.hpp>

#include "tests/support/run_on_queue.hpp"

using namespace ftsim;

namespace {

config::Json small_cholesky() {
  return {{"application", {{"type", "cholesky"}, {"tiles", 4}, {"tile_size", 64}}},
          {"platform", {{"nodes", 2}, {"cores_per_node", 2}, {"core_gflops", 2}}},
          {"protocol", {{"type", "none"}}}};
}

}  // namespace

// The oracle checks executions as well as values (issue 20): a task reported done without ever
// running, with the right outputs, passes the digest check but not the executions check.
TEST_CASE("oracle: a task done without an execution is caught, its values being right", "[core][oracle]") {
  const config::Json document = small_cholesky();
  const node::RunMetrics clean = testing::run_on_queue(document, "executions check");
  REQUIRE(clean.complete);
  CHECK(clean.oracle_ok);
  testing::planted_faults().done_without_running = true;
  testing::planted_faults().fired = 0;
  const node::RunMetrics m = testing::run_on_queue(document, "executions check, planted");
  testing::planted_faults().done_without_running = false;
  REQUIRE(m.test_faults_fired == 1);
  REQUIRE(m.complete);
  CHECK_FALSE(m.oracle_ok);
  CHECK(m.oracle_wrong.empty());  // every value is right
  REQUIRE(m.oracle_missing.size() == 1);
  CHECK(m.oracle_missing[0].find("done but never ran") != std::string::npos);
  testing::planted_faults().fired = 0;
}
