// ftsim analyze TRACE (--failed P[,Q...] | --each) --determinism piecewise|send [--json FILE]:
// the recovery line of a failure at the end of a trace, the messages crossing it, the useless
// checkpoints and their Z-cycles; or, with --each, how many processes each single failure rolls
// back (docs/analysis.md). TRACE is an ftsim-trace JSON file or an SMPI time-independent trace,
// with checkpoints placed by --checkpoints (docs/trace-format.md). Exit 2 on bad input, with a
// message naming the file and the process and event (or line).
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "analysis/analysis_json.hpp"
#include "analysis/failure_analysis.hpp"
#include "analysis/trace_error.hpp"
#include "analysis/trace_input.hpp"
#include "analysis/trace_json_writer.hpp"
#include "sim/cli/commands.hpp"
#include "sim/run/table.hpp"
#include "sim/config/config_error.hpp"

namespace ftsim::cli {

namespace {

struct AnalyzeOptions {
  std::string trace;
  std::string failed;
  bool each = false;
  std::string determinism;
  std::string json_file;
  std::string write_trace;
  bool no_z_cycles = false;
  bool timings = false;
  analysis::TraceInputOptions input;
};

// "0,3,7" -> {0, 3, 7}.
std::vector<analysis::ProcessId> parse_failed(const std::string& text) {
  std::vector<analysis::ProcessId> failed;
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    std::size_t used = 0;
    unsigned long value = 0;
    try {
      value = std::stoul(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || item[0] == '-' || value >= analysis::kNoProcess) {
      throw std::invalid_argument("--failed: \"" + item + "\" is not a process number (expected P[,Q...])");
    }
    failed.push_back(analysis::ProcessId(value));
  }
  if (failed.empty()) throw std::invalid_argument("--failed: expected P[,Q...]");
  return failed;
}

std::string list_of(const analysis::Trace& trace, const std::vector<analysis::MessageId>& messages, std::size_t limit = 8) {
  std::string text;
  for (std::size_t i = 0; i < messages.size() && i < limit; ++i) {
    text += (i ? " " : "") + std::string(trace.message_name(messages[i]));
  }
  if (messages.size() > limit) text += fmt::format(" ... ({} more)", messages.size() - limit);
  return text;
}

void print_trace_summary(const analysis::Trace& trace, const std::string& path) {
  std::uint64_t checkpoints = 0;
  for (analysis::ProcessId p = 0; p < trace.process_count(); ++p) checkpoints += trace.checkpoint_count(p);
  std::cout << fmt::format("{}: {} processes, {} events ({} checkpoints), {} messages\n", path, trace.process_count(),
                           trace.total_event_count(), checkpoints, trace.message_count());
}

void print_useless(const analysis::Trace& trace, const analysis::UselessCheckpoints& useless) {
  std::cout << fmt::format("useless checkpoints (on a Z-cycle, Netzer & Xu): {}", useless.checkpoints.size());
  for (std::size_t i = 0; i < useless.checkpoints.size() && i < 8; ++i) {
    std::cout << fmt::format(" [{},{}]", useless.checkpoints[i].first, useless.checkpoints[i].second);
  }
  if (useless.checkpoints.size() > 8) std::cout << " ...";
  std::cout << "\n";
  if (!useless.z_cycles.empty()) {
    const auto& cycle = useless.z_cycles.front();
    std::cout << fmt::format("  Z-cycle of [{},{}]: {}\n", cycle.process, cycle.checkpoint, list_of(trace, cycle.messages));
  }
}

void print_failure(const analysis::Trace& trace, const analysis::FailureAnalysis& result) {
  const analysis::RecoveryLine& line = result.line;
  std::string failed;
  for (analysis::ProcessId p : line.failed) failed += (failed.empty() ? "" : ",") + std::to_string(p);
  std::cout << fmt::format("failure of {} at the end of the trace, {} determinism\n\n", failed,
                           analysis::determinism_name(line.rule));
  run::Table table({"process", "restarts from", "position", "events undone"});
  for (analysis::ProcessId p = 0; p < trace.process_count(); ++p) {
    table.add_row({std::to_string(p) + (trace.process_name(p).empty() ? "" : " (" + trace.process_name(p) + ")"),
                   line.checkpoints[p] ? "checkpoint " + std::to_string(*line.checkpoints[p]) : "keeps its state",
                   fmt::format("{}/{}", line.positions[p], trace.communication_count(p)),
                   std::to_string(line.rollback_distance[p])});
  }
  table.print(std::cout);
  std::cout << fmt::format("\nrolled back: {} of {} ({}); domino effect: {}\n", line.rolled_back, trace.process_count(),
                           run::percent(double(line.rolled_back) / double(std::max<std::size_t>(1, trace.process_count()))),
                           line.domino ? "yes" : "no");
  std::cout << fmt::format("messages to replay from the logs: {}{}\n", result.messages.to_replay.size(),
                           result.messages.to_replay.empty() ? "" : " (" + list_of(trace, result.messages.to_replay) + ")");
  if (line.rule == analysis::Determinism::piecewise) {
    std::cout << fmt::format("unlogged messages in transit across the line: {}\n", result.messages.lost.size());
  } else {
    std::cout << fmt::format("orphan messages (sent again by the re-execution): {}\n", result.messages.orphans.size());
  }
  print_useless(trace, result.useless);
}

void print_each(const analysis::Trace& trace, const analysis::EachFailureSummary& summary,
                const analysis::UselessCheckpoints& useless) {
  const std::size_t processes = trace.process_count();
  std::cout << fmt::format("every single failure at the end of the trace, {} determinism\n\n",
                           analysis::determinism_name(summary.rule));
  run::Table table({"failed", "rolled back", "% rolled back", "domino", "events undone", "to replay"});
  for (analysis::ProcessId p = 0; p < processes; ++p) {
    table.add_row({std::to_string(p), std::to_string(summary.rolled_back[p]),
                   run::percent(double(summary.rolled_back[p]) / double(processes)), summary.domino[p] ? "yes" : "no",
                   std::to_string(summary.events_undone[p]), std::to_string(summary.messages_to_replay[p])});
  }
  table.print(std::cout);
  std::cout << fmt::format("\nmean rolled back: {:.1f}% of the processes (Guermouche et al. 2011, Table I's %rl)\n",
                           summary.mean_rolled_back_percent);
  print_useless(trace, useless);
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw config::ConfigError(path, "", "cannot write this file");
  out << text;
  out.flush();
  if (!out) throw config::ConfigError(path, "", "write failed");
}

}  // namespace

Command add_analyze_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "analyze",
      "Recovery line of a failure on a trace (ftsim-trace JSON or SimGrid SMPI): processes rolled back, domino "
      "effect, messages to replay, useless checkpoints and Z-cycles");
  auto options = std::make_shared<AnalyzeOptions>();
  command->add_option("TRACE", options->trace, "ftsim-trace JSON file, or SMPI trace (an index of per-rank files, or one actions file)")
      ->required();
  auto* failed = command->add_option("--failed", options->failed, "The processes that fail at the end of the trace: P[,Q...]");
  auto* each = command->add_flag("--each", options->each, "Every single failure in turn: the % of processes rolled back");
  failed->excludes(each);
  command->add_option("--determinism", options->determinism,
                      "piecewise: no orphan message; send: send-deterministic processes (Guermouche 2011): orphans "
                      "allowed, an unlogged message whose receive is undone rolls its sender back before the send")
      ->required()
      ->check(CLI::IsMember({"piecewise", "send"}));
  command->add_option("--json", options->json_file, "Also write the results as JSON (docs/analysis.md)");
  command->add_option("--checkpoints", options->input.checkpoints,
                      "Place checkpoints (replacing the trace's): periodic:EVENTS, random:SEED:RATE or clusters:FILE");
  command->add_option("--logging", options->input.logging,
                      "Which messages are logged: none, all, epochs (from an earlier epoch to a later one; the "
                      "default for SMPI traces); default: the trace's own flags")
      ->check(CLI::IsMember({"none", "all", "epochs"}));
  command->add_option("--format", options->input.format, "Trace format: auto (default), json or smpi")
      ->check(CLI::IsMember({"auto", "json", "smpi"}));
  command->add_option("--write-trace", options->write_trace,
                      "Write the trace analysed (checkpoints placed, SMPI converted) as ftsim-trace JSON");
  command->add_flag("--no-z-cycles", options->no_z_cycles, "Do not search a Z-cycle for each useless checkpoint");
  command->add_flag("--timings", options->timings, "Print the wall time of each phase on stderr (bench/analyze_scale.py)");
  return [options] {
    if (options->failed.empty() && !options->each) {
      std::cerr << "error: give --failed P[,Q...] or --each\n";
      return kExitBadInput;
    }
    // Phase wall times for --timings, on stderr so that the table stays clean.
    auto phase_start = std::chrono::steady_clock::now();
    auto phase_done = [&](const char* phase) {
      const auto now = std::chrono::steady_clock::now();
      if (options->timings) {
        std::cerr << fmt::format("timing: {} {:.3f} s\n", phase, std::chrono::duration<double>(now - phase_start).count());
      }
      phase_start = now;
    };
    try {
      const analysis::Trace trace = analysis::load_trace(options->trace, options->input);
      phase_done("read");
      const analysis::Determinism rule = analysis::parse_determinism(options->determinism);
      if (!options->write_trace.empty()) {
        std::ostringstream text;
        analysis::write_trace_json(trace, text);
        write_file(options->write_trace, text.str());
        std::cout << "wrote " << options->write_trace << ": the trace analysed, as ftsim-trace JSON\n";
      }
      print_trace_summary(trace, options->trace);
      std::string document;
      if (options->each) {
        const analysis::EachFailureSummary summary = analysis::analyze_each_failure(trace, rule);
        phase_done("recovery lines");
        const analysis::UselessCheckpoints useless = analysis::find_useless_checkpoints(trace, !options->no_z_cycles);
        phase_done("useless checkpoints");
        print_each(trace, summary, useless);
        if (!options->json_file.empty()) document = analysis::each_failure_json(trace, summary, useless);
      } else {
        const std::vector<analysis::ProcessId> failed = parse_failed(options->failed);
        analysis::FailureAnalysis result;
        result.line = analysis::compute_recovery_line(trace, failed, rule);
        result.messages = analysis::classify_messages(trace, result.line);
        phase_done("recovery line");
        result.useless = analysis::find_useless_checkpoints(trace, !options->no_z_cycles);
        phase_done("useless checkpoints");
        print_failure(trace, result);
        if (!options->json_file.empty()) document = analysis::failure_analysis_json(trace, result);
      }
      if (!options->json_file.empty()) {
        write_file(options->json_file, document);
        std::cout << "wrote " << options->json_file << ": these results as JSON (docs/analysis.md)\n";
      }
      phase_done("output");
    } catch (const analysis::TraceError& e) {
      std::cerr << "error: " << e.what() << "\n";
      return kExitBadInput;
    } catch (const std::invalid_argument& e) {
      std::cerr << "error: " << options->trace << ": " << e.what() << "\n";
      return kExitBadInput;
    }
    return kExitOk;
  };
}

}  // namespace ftsim::cli
