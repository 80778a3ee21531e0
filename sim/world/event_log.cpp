#include "sim/world/event_log.hpp"

#include <stdexcept>

namespace ftsim::core {

const char* to_string(LogCategory category) {
  switch (category) {
    case LogCategory::task: return "task";
    case LogCategory::message: return "message";
    case LogCategory::failure: return "failure";
    case LogCategory::protocol: return "protocol";
    case LogCategory::run: return "run";
  }
  return "?";
}

bool parse_log_categories(std::string_view text, std::uint32_t& mask, std::string& unknown) {
  mask = 0;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view name = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (name == "all") {
      mask = kAllLogCategories;
      continue;
    }
    bool found = false;
    for (std::uint32_t bit = 1; bit <= kAllLogCategories; bit <<= 1) {
      if (name == to_string(static_cast<LogCategory>(bit))) {
        mask |= bit;
        found = true;
      }
    }
    if (!found) {
      unknown = std::string(name);
      return false;
    }
  }
  return true;
}

EventLog::EventLog(const std::string& path, std::uint32_t categories, const graphs::TaskGraph& graph)
    : mask_(categories), graph_(graph), out_(path) {
  if (!out_) throw std::runtime_error("cannot write the event log " + path);
}

void EventLog::record(const Record& r) {
  const auto number = [](std::uint64_t n) { return std::to_string(n); };
  switch (r.kind) {
    case RecordKind::task_start:
      if (enabled(LogCategory::task)) write(r.time, LogCategory::task, r.process, "start " + graph_.task_name(r.task) + " on core " + number(r.core));
      break;
    case RecordKind::task_end:
      if (enabled(LogCategory::task)) write(r.time, LogCategory::task, r.process, "end " + graph_.task_name(r.task) + (r.again ? " (again)" : ""));
      break;
    case RecordKind::message: {
      if (!enabled(LogCategory::message)) break;
      const Message& m = *r.message;
      write(r.time, LogCategory::message, r.process,
            (m.is_data ? "data " + graph_.handle_name(m.handle) + " v" + number(m.version) : "control type " + number(m.control_type)) +
                " from " + number(m.source) + " (" + to_string(m.traffic) + ", " + number(m.bytes) + " B, epoch " + number(m.epoch) + ")");
      break;
    }
    case RecordKind::failure:
      if (enabled(LogCategory::failure)) write(r.time, LogCategory::failure, -1, "node " + number(r.peer) + " fails (incarnation " + number(r.incarnation) + ")");
      break;
    case RecordKind::notice:
      if (enabled(LogCategory::failure)) {
        write(r.time, LogCategory::failure, -1, "notice " + number(r.sequence) + ": node " + number(r.peer) + " incarnation " + number(r.incarnation) + " failed");
      }
      break;
    case RecordKind::replacement:
      if (enabled(LogCategory::failure)) write(r.time, LogCategory::failure, -1, "a spare takes node " + number(r.peer) + " (incarnation " + number(r.incarnation) + ")");
      break;
    case RecordKind::span:
      if (enabled(LogCategory::protocol)) write(r.time, LogCategory::protocol, r.process, std::string(r.text) + " ends (began at " + std::to_string(r.start) + " s)");
      break;
    case RecordKind::note:
      if (enabled(LogCategory::protocol)) write(r.time, LogCategory::protocol, r.process, r.text);
      break;
    case RecordKind::run_end:
      if (enabled(LogCategory::run)) write(r.time, LogCategory::run, -1, r.text);
      break;
    case RecordKind::local_checkpoint:
      if (enabled(LogCategory::protocol)) write(r.time, LogCategory::protocol, r.process, "local checkpoint " + number(r.checkpoint));
      break;
    case RecordKind::data_logged:    // only checkpoint traces use it
    case RecordKind::data_sent:      // the "message" record says it, at delivery
    case RecordKind::data_received: break;
  }
}

void EventLog::write(double time, LogCategory category, long process, std::string_view text) {
  char prefix[64];
  if (process < 0) {
    std::snprintf(prefix, sizeof prefix, "[%14.9f] %-8s %-12s ", time, to_string(category), "driver");
  } else {
    std::snprintf(prefix, sizeof prefix, "[%14.9f] %-8s process %-4ld ", time, to_string(category), process);
  }
  out_ << prefix << text << '\n';
}

}  // namespace ftsim::core
