#include "sim/run/run_report.hpp"

#include <fstream>

#include <fmt/format.h>

#include "sim/run/table.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/units.hpp"
#include "sim/world/run_metrics_json.hpp"

namespace ftsim::cli {

OverheadSplit overhead_split(double makespan, double none_makespan, double protocol_makespan) {
  OverheadSplit split;
  split.total = makespan / none_makespan - 1.0;
  split.checkpointing = (protocol_makespan - none_makespan) / none_makespan;
  split.failures = (makespan - protocol_makespan) / none_makespan;
  return split;
}

nlohmann::json results_json(const config::Config& cfg, const graphs::TaskGraph& graph, const core::RunMetrics& metrics,
                            const std::optional<core::RunMetrics>& reference, const std::string& backend,
                            const std::optional<core::RunMetrics>& protocol_reference) {
  nlohmann::json results = core::to_json(metrics);
  results["ftsim_version"] = "0.1.0";
  results["backend"] = backend;
  results["name"] = cfg.name;
  results["config_file"] = cfg.file;
  results["config"] = cfg.document;
  results["seed"] = cfg.seed;
  results["protocol"] = cfg.protocol.type;
  results["graph"] = {{"tasks", graph.task_count()},
                      {"edges", graph.edge_count()},
                      {"handles", graph.handle_count()},
                      {"data_bytes", graph.total_data_bytes()},
                      {"transfers", graph.transfers().size()}};
  if (reference) {
    results["reference"] = {{"makespan", reference->makespan},
                            {"overhead", metrics.makespan / reference->makespan - 1.0},
                            {"complete", reference->complete},
                            {"protocol_makespan", nullptr},
                            {"protocol_complete", nullptr},
                            {"checkpointing", nullptr},
                            {"failures", nullptr}};
    if (protocol_reference) {
      const OverheadSplit split = overhead_split(metrics.makespan, reference->makespan, protocol_reference->makespan);
      results["reference"]["protocol_makespan"] = protocol_reference->makespan;
      results["reference"]["protocol_complete"] = protocol_reference->complete;
      results["reference"]["checkpointing"] = split.checkpointing;
      results["reference"]["failures"] = split.failures;
    }
  } else {
    results["reference"] = nullptr;
  }
  return results;
}

void write_results(const std::filesystem::path& dir, const nlohmann::json& results) {
  std::ofstream out(dir / "results.json");
  if (!out) throw config::ConfigError((dir / "results.json").string(), "", "cannot write this file");
  out << results.dump(2) << "\n";
}

namespace {
// Core time: "87.4 core·us", "1.2 core·s".
std::string core_time(double seconds) {
  std::string text = config::format_seconds(seconds);
  const auto space = text.find(' ');
  return space == std::string::npos ? text + " core·s" : text.insert(space + 1, "core·");
}
}  // namespace

void print_summary(const config::Config& cfg, const graphs::TaskGraph& graph, const core::RunMetrics& m,
                   const std::optional<core::RunMetrics>& reference, double wall, const std::string& platform_line,
                   bool measured, std::ostream& out, const std::optional<core::RunMetrics>& protocol_reference) {
  out << fmt::format("{}: {} on {} nodes x {} cores, protocol {}, {} tasks\n", cfg.name, to_string(cfg.application.type),
                     graph.node_count(), cfg.platform.cores_per_node, cfg.protocol.type, graph.task_count());
  out << platform_line << "\n";
  Table summary({"metric", "value"});
  // A failure's reason can be long: printed under the table, not as a cell that widens it.
  summary.add_row({"result", m.complete ? (m.oracle_ok ? "complete, oracle ok" : "complete, ORACLE FAILED") : "FAILED (reason below)"});
  summary.add_row({"makespan", config::format_seconds(m.makespan)});
  if (reference) {
    summary.add_row({std::string("failure-free makespan (none") + (measured ? ", measured)" : ")"), config::format_seconds(reference->makespan)});
    summary.add_row({"overhead", percent(m.makespan / reference->makespan - 1.0)});
    if (protocol_reference) {
      const OverheadSplit split = overhead_split(m.makespan, reference->makespan, protocol_reference->makespan);
      summary.add_row({"failure-free makespan (" + cfg.protocol.type + ")", config::format_seconds(protocol_reference->makespan)});
      summary.add_row({"overhead: checkpointing", percent(split.checkpointing)});
      summary.add_row({"overhead: failures", percent(split.failures)});
    }
  }
  if (cfg.reference && cfg.reference->makespan) {
    summary.add_row({"published makespan (" + cfg.reference->source + ")",
                     config::format_seconds(*cfg.reference->makespan) + " (ftsim " +
                         relative_gap(m.makespan, *cfg.reference->makespan) + ")"});
  }
  std::uint64_t executions = 0, reexecutions = 0;
  std::array<std::uint64_t, core::kTrafficKinds> bytes{};
  for (const auto& n : m.nodes) {
    executions += n.executions;
    reexecutions += n.reexecutions;
    for (std::size_t k = 0; k < core::kTrafficKinds; ++k) bytes[k] += n.bytes_sent[k];
  }
  summary.add_row({"task executions (re-executions)", fmt::format("{} ({})", executions, reexecutions)});
  for (std::size_t k = 0; k < core::kTrafficKinds; ++k) {
    if (bytes[k] == 0 && k != 0) continue;
    summary.add_row({std::string("bytes sent: ") + core::traffic_key(k),
                     config::format_bytes(double(bytes[k])) + fmt::format(" ({} per node)", config::format_bytes(double(bytes[k]) / graph.node_count()))});
  }
  std::size_t committed = 0;
  for (const auto& c : m.checkpoints) committed += c.committed >= 0;
  if (!m.checkpoints.empty()) summary.add_row({"checkpoints committed", fmt::format("{} of {}", committed, m.checkpoints.size())});
  for (const auto& named : m.protocol_metrics) {  // the protocol's own metrics (its module's table)
    const std::string value = named.unit == "bytes" ? config::format_bytes(double(named.value))
                              : named.unit == "us"  ? config::format_seconds(double(named.value) * 1e-6)
                                                    : fmt::format("{} {}", named.value, named.unit);
    summary.add_row({cfg.protocol.type + ": " + named.name, value});
  }
  summary.add_row({"failures", std::to_string(m.failures.size())});
  if (m.migration.enabled) {  // docs/migration.md
    const core::MigrationMetrics& g = m.migration;
    summary.add_row({"alarms (true, false)", fmt::format("{} ({}, {})", g.alarms, g.true_alarms, g.false_alarms)});
    summary.add_row({"migrations done (skipped, cut short)",
                     fmt::format("{} ({}, {}), {} in {}", g.migrations_done, g.skipped_no_spare, g.interrupted,
                                 config::format_bytes(double(g.bytes)), config::format_seconds(g.seconds))});
    summary.add_row({"failures avoided", std::to_string(g.failures_avoided)});
  }
  summary.add_row({"wall time", config::format_seconds(wall)});
  summary.print(out);
  if (!m.complete) out << "reason: " << m.failure_reason << "\n";
  if (!m.failures.empty()) {
    out << "\n";
    // "recovery" is the failed node's span from the failure to its recovery (not what the failure
    // costs the makespan: overhead: failures, with /run/reference, says that); "work lost" is core
    // time (core-seconds of finished work redone).
    Table failures({"failure", "time", "node", "restart point", "node's recovery", "tasks redone", "work lost",
                    "rolled back"});
    for (std::size_t i = 0; i < m.failures.size(); ++i) {
      const auto& f = m.failures[i];
      failures.add_row({std::to_string(i + 1), config::format_seconds(f.time), std::to_string(f.node), f.restart_point,
                        f.recovered_at < 0 ? "-" : config::format_seconds(f.recovered_at - f.time),
                        std::to_string(f.tasks_reexecuted), core_time(f.work_lost_seconds),
                        std::to_string(f.processes_rolled_back)});
    }
    failures.print(out);
    out << "(node's recovery: from the failure to the failed node's recovery; work lost: core time of finished "
           "work redone";
    out << (protocol_reference ? ")\n" : "; /run/reference splits the overhead into checkpointing and failures)\n");
  }
  if (!m.checkpoints.empty() && m.checkpoints.size() <= 40) {
    // When each checkpoint started (its first save), saved its last datum and became valid.
    out << "\n";
    Table checkpoints({"checkpoint", "started", "last save", "committed", "bytes sent"});
    for (const auto& c : m.checkpoints) {
      auto when = [](double t) { return t < 0 ? std::string("-") : config::format_seconds(t); };
      checkpoints.add_row({std::to_string(c.id) + (c.aborted ? " (aborted)" : ""), when(c.started), when(c.saved),
                           when(c.committed), config::format_bytes(double(c.bytes))});
    }
    checkpoints.print(out);
  }
  for (const auto& line : m.stall_report) out << "stall: " << line << "\n";
  for (const auto& line : m.oracle_missing) out << "oracle: missing " << line << "\n";
}

}  // namespace ftsim::cli
