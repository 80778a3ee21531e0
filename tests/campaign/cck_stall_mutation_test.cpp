// A deadlocked cck restart under a periodic schedule (issue 39): with the planted fault
// `last_resend_dropped` (protocols/mutants.hpp: each survivor's last planned re-send never
// leaves), the restarted node waits for ever for that datum while the periodic checkpoints go on.
// The world's no-progress backstop does not count checkpoints: the run must end as stalled within
// seconds of wall time, naming the waiting node and the datum, not run to the time limit (it took
// 30 s of wall time and 221,253 checkpoint records when checkpoints counted as progress).
#include <catch2/catch.hpp>

#include <chrono>
#include <regex>

#include "tests/campaign/campaign_support.hpp"

using namespace ftsim;

TEST_CASE("campaign: cck - a restart that never gets a lost message ends as stalled in seconds",
          "[campaign][cck][mutation]") {
  const campaign_support::PlantedFault planted("last_resend_dropped");
  std::size_t acted = 0, stalled = 0;
  double slowest = 0;
  for (const char* app : {"cholesky", "stencil", "cg"}) {
    config::Json document = {{"name", "cck-stall-" + std::string(app)},
                             {"application", campaign_support::application(app)},
                             {"platform", campaign_support::platform()}};
    const node::RunMetrics free = campaign_support::run(document, "failure-free");
    REQUIRE(free.complete);
    // Checkpoints every 5% of the run, one failure in its middle part.
    document["protocol"] = {{"type", "cck"}, {"period", 0.05 * free.makespan}};
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      const double time = (0.2 + 0.15 * double(seed)) * free.makespan;
      document["seed"] = seed;
      document["failures"] = {{"model", "list"},
                              {"events", {{{"time", time}, {"node", seed % 4}}}},
                              {"downtime", 0.01 * free.makespan},
                              {"detection", 0.001 * free.makespan}};
      const std::string origin = std::string(app) + "/seed " + std::to_string(seed);
      INFO(origin << ": " << document.dump());
      const auto start = std::chrono::steady_clock::now();
      const node::RunMetrics m = campaign_support::run(document, origin);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      INFO("failure reason: " << m.failure_reason);
      std::string report;
      for (const auto& line : m.stall_report) report += "\n  " + line;
      INFO("stall report:" << report);
      if (m.test_faults_fired == 0) {
        CHECK(m.complete);
        continue;
      }
      ++acted;
      if (m.complete) continue;  // the datum was not needed again: no harm done
      ++stalled;
      slowest = std::max(slowest, wall);
      CHECK(m.failure_reason.rfind("no progress: ", 0) == 0);
      CHECK(m.failure_reason.find("protocol cck stuck in") != std::string::npos);
      CHECK(m.checkpoints.size() > 0);
      // The stall report names a node waiting for a datum, and who sends it.
      CHECK(std::regex_search(report, std::regex(R"(node \d+: \d+ tasks left.*: data \S+ v\d+ from node \d+)")));
      CHECK(wall < 5.0);
    }
  }
  WARN("last_resend_dropped: acted in " << acted << " runs, " << stalled << " ended as stalled, the slowest in " << slowest
                                        << " s of wall time");
  CHECK(stalled >= 3);
}
