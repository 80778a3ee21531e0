// The uncoordinated protocol's own campaign (besides "campaign: uncoordinated", which draws its
// options from the module's entry): each logging mode (send-deterministic, none, all) on each
// application (cholesky, stencil, cg), 34 seeds each (102 runs per mode), one to three failures of
// which a third simultaneous (every seed of a multiple of 3 has two nodes failing at one instant),
// every checkpoint schedule. Every run must complete under the digest oracle; and the first
// recovery line the protocol computed (its recovery process writes it to the event log) must be
// the line analysis::compute_recovery_line computes from the run's checkpoint trace (send rule for
// send-deterministic and all, piecewise for none): the agreement of issue 23. A run whose first
// line covers a failure that came after the trace's end (a second failure before the first line
// was computed) is not comparable; they must stay a minority.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "analysis/recovery_line.hpp"
#include "analysis/trace_json_reader.hpp"
#include "graphs/application.hpp"
#include "graphs/cost_model.hpp"
#include "protocols/registry.hpp"
#include "sim/simgrid/simulate.hpp"
#include "sim/world/event_log.hpp"
#include "tests/campaign/campaign_support.hpp"

using namespace ftsim;

namespace {

config::Json base(const std::string& app) {
  return {{"name", "unco-" + app}, {"application", campaign_support::application(app)}, {"platform", campaign_support::platform()}};
}

config::Json scenario(const std::string& app, const std::string& mode, std::uint64_t seed, double makespan) {
  std::mt19937_64 random(seed * 104729 + std::hash<std::string>{}(app + mode));
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  config::Json document = base(app);
  document["seed"] = seed;
  config::Json block = {{"type", "uncoordinated"}, {"logging", mode}, {"period", (0.05 + 0.25 * unit(random)) * makespan}};
  static constexpr const char* kSchedules[] = {"random", "periodic", "clusters"};
  block["schedule"] = kSchedules[seed % 3 == 1 ? 2 : random() % 3];
  if (block["schedule"] == "clusters") {
    block["clusters"] = random() % 2 ? config::Json(2) : config::Json::array({config::Json::array({0, 1}), config::Json::array({2, 3})});
  }
  document["protocol"] = block;
  config::Json events = config::Json::array();
  const double first = unit(random) * makespan;
  const std::uint64_t node = random() % 4;
  events.push_back({{"time", first}, {"node", node}});
  if (seed % 3 == 0) events.push_back({{"time", first}, {"node", (node + 1 + random() % 3) % 4}});  // simultaneous
  const int later = int(random() % 2);
  for (int i = 0; i < later; ++i) events.push_back({{"time", unit(random) * 1.2 * makespan}, {"node", random() % 4}});
  document["failures"] = {{"model", "list"},
                          {"events", events},
                          {"downtime", random() % 4 == 0 ? 0.0 : unit(random) * 0.2 * makespan},
                          {"detection", random() % 4 == 0 ? 0.0 : unit(random) * 0.05 * makespan}};
  return document;
}

struct LineNote {
  std::vector<analysis::ProcessId> failed;
  std::vector<std::optional<analysis::CheckpointIndex>> restarts;
};

// "recovery line round R failed F,G checkpoints C0 C1 ..." (unco_coordinator.cpp), the first one.
std::optional<LineNote> first_line(const std::string& log) {
  std::ifstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    const auto at = line.find("recovery line round");
    if (at == std::string::npos) continue;
    std::istringstream words(line.substr(at + 19));
    LineNote note;
    std::string word, failed;
    words >> word >> word;  // the round, "failed"
    words >> failed;
    std::stringstream list(failed);
    for (std::string n; std::getline(list, n, ',');) note.failed.push_back(static_cast<analysis::ProcessId>(std::stoul(n)));
    words >> word;  // "checkpoints"
    while (words >> word) {
      note.restarts.push_back(word == "-" ? std::nullopt : std::optional<analysis::CheckpointIndex>(std::stoul(word)));
    }
    return note;
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("campaign: uncoordinated - the three logging modes and the agreement with ftsim analyze", "[campaign][uncoordinated]") {
  const std::filesystem::path work = std::filesystem::temp_directory_path() / ("ftsim-unco-" + std::to_string(::getpid()));
  std::filesystem::create_directories(work);
  const std::size_t seeds = std::max<std::size_t>(1, (campaign_support::scenarios_per_case() + 2) / 3);
  for (const char* mode : {"send-deterministic", "none", "all"}) {
    std::size_t runs = 0, agree = 0, incomparable = 0, failures = 0;
    for (const char* app : {"cholesky", "stencil", "cg"}) {
      config::Json reference = base(app);
      reference["protocol"] = {{"type", "none"}};
      const node::RunMetrics free = campaign_support::run(reference, "reference");
      REQUIRE(free.complete);
      for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
        const config::Json document = scenario(app, mode, seed, free.makespan);
        const std::string origin = std::string(mode) + "/" + app + "/seed " + std::to_string(seed);
        config::Config cfg = protocols::load_config_json(document, origin);
        campaign_support::bound_wall_time(cfg, document);
        const graphs::TaskGraph graph = graphs::build_application(cfg);
        const graphs::CostModel cost(cfg, graph);
        world::SimulationOptions options;
        options.time_limit = simgrid_backend::default_time_limit(cfg, graph, cost);
        options.checkpoint_trace_file = (work / "trace.json").string();
        options.log_file = (work / "events.log").string();
        options.log_categories = static_cast<std::uint32_t>(world::LogCategory::protocol);
        options.protocol_metrics = protocols::protocol_metric_definitions(cfg);
        INFO(origin << ": " << document.dump());
        const node::RunMetrics m = simgrid_backend::simulate(cfg, graph, cost, options).metrics;
        INFO("failure reason: " << m.failure_reason);
        for (const auto& line : m.stall_report) INFO("stall: " << line);
        ++runs;
        failures += m.failures.size();
        REQUIRE(m.complete);
        REQUIRE(m.oracle_ok);
        CHECK(campaign_support::inputs_missing(m) == 0);
        const analysis::Trace trace = analysis::read_trace_json(options.checkpoint_trace_file);
        std::vector<analysis::ProcessId> failed = trace.metadata()["failed"].get<std::vector<analysis::ProcessId>>();
        std::sort(failed.begin(), failed.end());
        const std::optional<LineNote> note = first_line(options.log_file);
        if (failed.empty()) {
          CHECK(!note);  // no failure before the end of the run, no line
          continue;
        }
        REQUIRE(note);
        std::vector<analysis::ProcessId> protocol_failed = note->failed;
        std::sort(protocol_failed.begin(), protocol_failed.end());
        if (protocol_failed != failed) {
          // A later failure came before the first line was computed: that line covers both.
          CHECK(std::includes(protocol_failed.begin(), protocol_failed.end(), failed.begin(), failed.end()));
          ++incomparable;
          continue;
        }
        const auto rule = std::string(mode) == "none" ? analysis::Determinism::piecewise : analysis::Determinism::send;
        const analysis::RecoveryLine offline = analysis::compute_recovery_line(trace, failed, rule);
        CHECK(offline.checkpoints == note->restarts);
        if (offline.checkpoints == note->restarts) ++agree;
      }
    }
    WARN(mode << ": " << runs << " runs complete under the oracle (" << failures << " failures), " << agree
              << " first lines equal to the offline one, " << incomparable << " not comparable");
    CHECK(runs >= 3 * seeds);
    CHECK(agree > runs / 2);
    CHECK(incomparable < runs / 4);
  }
  std::filesystem::remove_all(work);
}
