#include "sim/run/run_report.hpp"

#include "sim/world/failure_schedule.hpp"

#include <algorithm>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "protocols/registry.hpp"
#include "sim/run/table.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/stop_request.hpp"
#include "sim/config/units.hpp"
#include "sim/world/failure_schedule.hpp"
#include "sim/world/run_metrics_json.hpp"

namespace ftsim::run {

nlohmann::json checkpoint_data_json(const config::Config& cfg, const node::RunMetrics& m) {
  if (!cfg.checkpoint_data.enabled) return nullptr;
  const config::CheckpointDataConfig& c = cfg.checkpoint_data;
  node::ContentCounters total;
  nlohmann::json images = nlohmann::json::array();
  // Per checkpoint id (and process, for uncoordinated checkpoints numbered per process): its
  // full and incremental shares.
  struct Share {
    std::uint64_t full_images = 0, incremental_images = 0;
    std::uint64_t logical = 0, full_stored = 0, incremental_stored = 0;
  };
  std::map<std::uint32_t, Share> shares;
  const bool per_process = std::any_of(m.checkpoints.begin(), m.checkpoints.end(), [](const auto& r) { return r.process >= 0; });
  std::map<std::pair<std::size_t, std::uint32_t>, Share> process_shares;
  for (std::size_t n = 0; n < m.nodes.size(); ++n) {
    const node::ContentCounters& x = m.nodes[n].counters.content;
    total.full_images += x.full_images;
    total.incremental_images += x.incremental_images;
    total.full_logical_bytes += x.full_logical_bytes;
    total.full_stored_bytes += x.full_stored_bytes;
    total.incremental_logical_bytes += x.incremental_logical_bytes;
    total.incremental_stored_bytes += x.incremental_stored_bytes;
    total.uncompressed_bytes += x.uncompressed_bytes;
    total.blocks += x.blocks;
    total.zero_blocks += x.zero_blocks;
    total.unchanged_blocks += x.unchanged_blocks;
    total.stored_blocks += x.stored_blocks;
    total.hash_seconds += x.hash_seconds;
    total.compress_seconds += x.compress_seconds;
    total.decompress_seconds += x.decompress_seconds;
    total.restores += x.restores;
    total.restore_images += x.restore_images;
    total.restore_bytes += x.restore_bytes;
    for (const node::ContentImageRecord& image : x.images) {
      images.push_back({{"process", n},
                        {"checkpoint", image.checkpoint},
                        {"kind", image.full ? "full" : "incremental"},
                        {"logical_bytes", image.logical_bytes},
                        {"stored_bytes", image.stored_bytes},
                        {"seconds", image.seconds}});
      Share& share = per_process ? process_shares[{n, image.checkpoint}] : shares[image.checkpoint];
      (image.full ? share.full_images : share.incremental_images) += 1;
      share.logical += image.logical_bytes;
      (image.full ? share.full_stored : share.incremental_stored) += image.stored_bytes;
    }
  }
  const auto share_json = [](const Share& s) {
    return nlohmann::json{{"full_images", s.full_images},
                          {"incremental_images", s.incremental_images},
                          {"logical_bytes", s.logical},
                          {"stored_bytes", s.full_stored + s.incremental_stored},
                          {"full_stored_bytes", s.full_stored},
                          {"incremental_stored_bytes", s.incremental_stored}};
  };
  nlohmann::json checkpoints = nlohmann::json::array();
  for (const auto& [id, share] : shares) {
    nlohmann::json row = share_json(share);
    row["id"] = id;
    checkpoints.push_back(row);
  }
  for (const auto& [key, share] : process_shares) {
    nlohmann::json row = share_json(share);
    row["id"] = key.second;
    row["process"] = key.first;
    checkpoints.push_back(row);
  }
  const std::uint64_t logical = total.full_logical_bytes + total.incremental_logical_bytes;
  const std::uint64_t stored = total.full_stored_bytes + total.incremental_stored_bytes;
  const nlohmann::json settings = {{"zero_blocks", c.zero_blocks},
                                   {"incremental", c.incremental},
                                   {"block_size", c.block_size},
                                   {"full_every", c.incremental ? c.full_every : 1},
                                   {"compression", c.zstd ? "zstd" : "none"},
                                   {"level", c.zstd ? nlohmann::json(c.level) : nlohmann::json(nullptr)}};
  return {{"status", protocols::checkpoint_data_status(cfg)},
          {"settings", settings},
          {"logical_bytes", logical},
          {"stored_bytes", stored},
          {"reduction", logical == 0 ? nlohmann::json(nullptr) : nlohmann::json(1.0 - double(stored) / double(logical))},
          {"full", {{"images", total.full_images}, {"logical_bytes", total.full_logical_bytes}, {"stored_bytes", total.full_stored_bytes}}},
          {"incremental",
           {{"images", total.incremental_images}, {"logical_bytes", total.incremental_logical_bytes}, {"stored_bytes", total.incremental_stored_bytes}}},
          {"uncompressed_bytes", total.uncompressed_bytes},
          {"blocks", total.blocks},
          {"zero_blocks", total.zero_blocks},
          {"unchanged_blocks", total.unchanged_blocks},
          {"stored_blocks", total.stored_blocks},
          {"hash_seconds", total.hash_seconds},
          {"compress_seconds", total.compress_seconds},
          {"decompress_seconds", total.decompress_seconds},
          {"restores", total.restores},
          {"restore_images", total.restore_images},
          {"restore_bytes", total.restore_bytes},
          {"checkpoints", checkpoints},
          {"images", images}};
}

OverheadSplit overhead_split(double makespan, double none_makespan, double protocol_makespan) {
  OverheadSplit split;
  split.total = makespan / none_makespan - 1.0;
  split.checkpointing = (protocol_makespan - none_makespan) / none_makespan;
  split.failures = (makespan - protocol_makespan) / none_makespan;
  return split;
}

nlohmann::json results_json(const config::Config& cfg, const graphs::TaskGraph& graph, const node::RunMetrics& metrics,
                            const std::optional<node::RunMetrics>& reference, const std::string& backend,
                            const std::optional<node::RunMetrics>& protocol_reference) {
  nlohmann::json results = world::to_json(metrics);
  results["ftsim_version"] = "0.1.0";
  results["backend"] = backend;
  results["name"] = cfg.name;
  results["config_file"] = cfg.file;
  results["config"] = cfg.document;
  results["seed"] = cfg.seed;
  results["protocol"] = cfg.protocol.type;
  results["checkpoint_data"] = checkpoint_data_json(cfg, metrics);
  // /failures/first_before: the failures were drawn given a first one before that date; the run
  // stands for that event, of this probability (the rare-event estimator's weight).
  results["failure_condition"] = nullptr;
  if (cfg.failures.first_before > 0) {
    results["failure_condition"] = {
        {"first_before", cfg.failures.first_before},
        {"probability", world::FailureSchedule::condition_probability(cfg.failures, cfg.platform.machines())}};
  }
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

void remove_stale_outputs(const std::filesystem::path& dir, bool writes_trace, bool writes_log, std::ostream& note) {
  const std::pair<const char*, bool> outputs[] = {{"trace.json", writes_trace}, {"events.log", writes_log}};
  for (const auto& [name, written] : outputs) {
    const std::filesystem::path path = dir / name;
    std::error_code error;
    if (written || !std::filesystem::is_regular_file(path, error)) continue;
    if (std::filesystem::remove(path, error)) {
      note << "ftsim: removed " << path.string() << ", an earlier run's: this run does not write it\n";
    } else {
      throw config::ConfigError(path.string(), "", "an earlier run's output, which this run does not write, cannot be removed: " +
                                                       error.message());
    }
  }
}

namespace {
// Core time: "87.4 core·us", "1.2 core·s".
std::string core_time(double seconds) {
  std::string text = config::format_seconds(seconds);
  const auto space = text.find(' ');
  return space == std::string::npos ? text + " core·s" : text.insert(space + 1, "core·");
}
}  // namespace

void print_summary(const config::Config& cfg, const graphs::TaskGraph& graph, const node::RunMetrics& m,
                   const std::optional<node::RunMetrics>& reference, double wall, const std::string& platform_line,
                   bool measured, std::ostream& out, const std::optional<node::RunMetrics>& protocol_reference) {
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
      // The same protocol and checkpoint schedule, without the failures: what checkpointing alone costs.
      summary.add_row({"makespan of " + cfg.protocol.type + " without its failures", config::format_seconds(protocol_reference->makespan)});
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
  std::array<std::uint64_t, node::kTrafficKinds> bytes{};
  for (const auto& n : m.nodes) {
    executions += n.executions;
    reexecutions += n.reexecutions;
    for (std::size_t k = 0; k < node::kTrafficKinds; ++k) bytes[k] += n.bytes_sent[k];
  }
  summary.add_row({"task executions (re-executions)", fmt::format("{} ({})", executions, reexecutions)});
  for (std::size_t k = 0; k < node::kTrafficKinds; ++k) {
    if (bytes[k] == 0 && k != 0) continue;
    summary.add_row({std::string("bytes sent: ") + world::traffic_key(k),
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
  if (cfg.checkpoint_data.enabled) {
    const std::string status = protocols::checkpoint_data_status(cfg);
    if (status != "applied") {
      summary.add_row({"checkpoint data", status});
    } else {
      std::uint64_t logical = 0, stored = 0, full = 0, incremental = 0;
      for (const auto& n : m.nodes) {
        const node::ContentCounters& x = n.counters.content;
        logical += x.full_logical_bytes + x.incremental_logical_bytes;
        stored += x.full_stored_bytes + x.incremental_stored_bytes;
        full += x.full_images;
        incremental += x.incremental_images;
      }
      summary.add_row({"checkpoint data: stored / without", config::format_bytes(double(stored)) + " / " + config::format_bytes(double(logical)) +
                                                            (logical > 0 ? " (" + percent(double(stored) / double(logical) - 1.0) + ")" : "")});
      summary.add_row({"checkpoint data: images", fmt::format("{} full, {} incremental", full, incremental)});
    }
  }
  summary.add_row({"failures", std::to_string(m.failures.size())});
  if (m.migration.enabled) {  // docs/migration.md
    const node::MigrationMetrics& g = m.migration;
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
  if (stop_requested() && !m.stall_report.empty()) {
    // Interrupted (Ctrl-C): where each process waited says nothing of a fault; one line, not a page.
    out << fmt::format("stall report: {} lines, where each process waited when interrupted: stall_report in results.json\n",
                       m.stall_report.size());
  } else {
    for (const auto& line : m.stall_report) out << "stall: " << line << "\n";
  }
  for (const auto& line : m.oracle_missing) out << "oracle: missing " << line << "\n";
}

}  // namespace ftsim::run
