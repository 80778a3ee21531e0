#include "analysis/analysis_json.hpp"

#include <charconv>

#include "analysis/trace_json_writer.hpp"

namespace ftsim::analysis {

namespace {

void number(std::string& out, std::uint64_t value) {
  char buffer[24];
  out.append(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

void number(std::string& out, double value) {
  char buffer[32];
  out.append(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

void key(std::string& out, const char* name) {
  out += ",\n \"";
  out += name;
  out += "\": ";
}

template <class Range, class F>
void array(std::string& out, const Range& range, F&& element) {
  out += '[';
  bool first = true;
  for (const auto& value : range) {
    if (!first) out += ", ";
    first = false;
    element(value);
  }
  out += ']';
}

void message_names(std::string& out, const Trace& trace, const std::vector<MessageId>& messages) {
  array(out, messages, [&](MessageId m) { append_json_string(out, trace.message_name(m)); });
}

void header(std::string& out, const Trace& trace, Determinism rule) {
  std::uint64_t checkpoints = 0;
  for (ProcessId p = 0; p < trace.process_count(); ++p) checkpoints += trace.checkpoint_count(p);
  out += "{\"format\": \"ftsim-analysis\", \"version\": 1";
  key(out, "trace");
  out += "{\"processes\": ";
  number(out, std::uint64_t(trace.process_count()));
  out += ", \"events\": ";
  number(out, std::uint64_t(trace.total_event_count()));
  out += ", \"messages\": ";
  number(out, std::uint64_t(trace.message_count()));
  out += ", \"checkpoints\": ";
  number(out, checkpoints);
  out += "}";
  key(out, "determinism");
  out += '"';
  out += determinism_name(rule);
  out += '"';
}

void useless_part(std::string& out, const Trace& trace, const UselessCheckpoints& useless) {
  key(out, "useless_checkpoints");
  array(out, useless.checkpoints, [&](const auto& checkpoint) {
    out += '[';
    number(out, std::uint64_t(checkpoint.first));
    out += ", ";
    number(out, std::uint64_t(checkpoint.second));
    out += ']';
  });
  key(out, "z_cycles");
  out += '[';
  bool first = true;
  for (const ZCycle& cycle : useless.z_cycles) {
    out += first ? "\n  " : ",\n  ";
    first = false;
    out += "{\"checkpoint\": [";
    number(out, std::uint64_t(cycle.process));
    out += ", ";
    number(out, std::uint64_t(cycle.checkpoint));
    out += "], \"messages\": ";
    message_names(out, trace, cycle.messages);
    out += '}';
  }
  out += first ? "]" : "\n ]";
}

}  // namespace

std::string failure_analysis_json(const Trace& trace, const FailureAnalysis& analysis) {
  const RecoveryLine& line = analysis.line;
  std::string out;
  header(out, trace, line.rule);
  key(out, "failed");
  array(out, line.failed, [&](ProcessId p) { number(out, std::uint64_t(p)); });
  key(out, "recovery_line");
  array(out, line.checkpoints, [&](const std::optional<CheckpointIndex>& k) {
    if (k) {
      number(out, std::uint64_t(*k));
    } else {
      out += "null";
    }
  });
  key(out, "positions");
  array(out, line.positions, [&](Position x) { number(out, std::uint64_t(x)); });
  key(out, "rolled_back");
  number(out, std::uint64_t(line.rolled_back));
  key(out, "domino");
  out += line.domino ? "true" : "false";
  key(out, "rollback_distance");
  std::uint64_t undone = 0;
  array(out, line.rollback_distance, [&](Position d) {
    number(out, std::uint64_t(d));
    undone += d;
  });
  key(out, "events_undone");
  number(out, undone);
  key(out, "messages_to_replay");
  message_names(out, trace, analysis.messages.to_replay);
  key(out, "lost_messages");
  message_names(out, trace, analysis.messages.lost);
  key(out, "orphan_messages");
  message_names(out, trace, analysis.messages.orphans);
  useless_part(out, trace, analysis.useless);
  out += "}\n";
  return out;
}

std::string each_failure_json(const Trace& trace, const EachFailureSummary& summary, const UselessCheckpoints& useless) {
  std::string out;
  header(out, trace, summary.rule);
  key(out, "each");
  out += "true";
  key(out, "mean_rolled_back_percent");
  number(out, summary.mean_rolled_back_percent);
  key(out, "per_failure");
  out += '[';
  const std::size_t processes = trace.process_count();
  for (ProcessId p = 0; p < processes; ++p) {
    out += p == 0 ? "\n  " : ",\n  ";
    out += "{\"failed\": ";
    number(out, std::uint64_t(p));
    out += ", \"rolled_back\": ";
    number(out, std::uint64_t(summary.rolled_back[p]));
    out += ", \"rolled_back_percent\": ";
    number(out, 100.0 * double(summary.rolled_back[p]) / double(processes));
    out += ", \"domino\": ";
    out += summary.domino[p] ? "true" : "false";
    out += ", \"events_undone\": ";
    number(out, summary.events_undone[p]);
    out += ", \"messages_to_replay\": ";
    number(out, summary.messages_to_replay[p]);
    out += '}';
  }
  out += processes == 0 ? "]" : "\n ]";
  key(out, "times_rolled_back");
  array(out, summary.times_rolled_back, [&](std::uint32_t n) { number(out, std::uint64_t(n)); });
  useless_part(out, trace, useless);
  out += "}\n";
  return out;
}

}  // namespace ftsim::analysis
