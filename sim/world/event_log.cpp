#include "sim/world/event_log.hpp"

#include <cstdio>
#include <stdexcept>

namespace ftsim::world {

const char* to_string(LogCategory category) {
  switch (category) {
    case LogCategory::task: return "task";
    case LogCategory::message: return "message";
    case LogCategory::failure: return "failure";
    case LogCategory::protocol: return "protocol";
    case LogCategory::run: return "run";
    case LogCategory::migration: return "migration";
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

void EventLog::record(const node::Record& r) {
  const auto number = [](std::uint64_t n) { return std::to_string(n); };
  switch (r.kind) {
    case node::RecordKind::task_start:
      if (enabled(LogCategory::task)) write(r.time, LogCategory::task, r.process, "start " + graph_.task_name(r.task) + " on core " + number(r.core));
      break;
    case node::RecordKind::task_end:
      if (enabled(LogCategory::task)) write(r.time, LogCategory::task, r.process, "end " + graph_.task_name(r.task) + (r.again ? " (again)" : ""));
      break;
    case node::RecordKind::message: {
      if (!enabled(LogCategory::message)) break;
      const node::Message& m = *r.message;
      write(r.time, LogCategory::message, r.process,
            (m.is_data ? "data " + graph_.handle_name(m.handle) + " v" + number(m.version) : "control type " + number(m.control_type)) +
                " from " + (m.source == graph_.node_count() ? std::string("coordinator") : number(m.source)) + " (" + to_string(m.traffic) + ", " + number(m.bytes) + " B, epoch " + number(m.epoch) + ")");
      break;
    }
    case node::RecordKind::failure:
      if (enabled(LogCategory::failure)) write(r.time, LogCategory::failure, -1, "node " + number(r.peer) + " fails (incarnation " + number(r.incarnation) + ")");
      break;
    case node::RecordKind::notice:
      if (enabled(LogCategory::failure)) {
        write(r.time, LogCategory::failure, -1, "notice " + number(r.sequence) + ": node " + number(r.peer) + " incarnation " + number(r.incarnation) + " failed");
      }
      break;
    case node::RecordKind::replacement:
      if (enabled(LogCategory::failure)) {
        write(r.time, LogCategory::failure, -1,
              "a spare takes node " + number(r.peer) + " (incarnation " + number(r.incarnation) + ")" +
                  (r.machines_up > 0 ? " on spare machine " + number(r.machine) : ""));
      }
      break;
    case node::RecordKind::rehost:
      if (enabled(LogCategory::failure)) {
        write(r.time, LogCategory::failure, -1,
              "shrink: no spare left, node " + number(r.peer) + " (incarnation " + number(r.incarnation) +
                  ") restarts on surviving machine " + number(r.machine) + ", which now runs " + number(r.machine_ranks) +
                  (r.machine_ranks == 1 ? " rank" : " ranks") + " (nodes " + std::string(r.text) + "); " +
                  number(r.machines_up) + (r.machines_up == 1 ? " machine" : " machines") + " up");
      }
      break;
    case node::RecordKind::alarm:
    case node::RecordKind::migration_start:
    case node::RecordKind::migration_frozen:
    case node::RecordKind::migration_transfer:
    case node::RecordKind::migration_end:
    case node::RecordKind::failure_avoided:
      if (enabled(LogCategory::migration)) migration(r);
      break;
    case node::RecordKind::span:
      if (enabled(LogCategory::protocol)) write(r.time, LogCategory::protocol, r.process, std::string(r.text) + " ends (began at " + std::to_string(r.start) + " s)");
      break;
    case node::RecordKind::note:
      if (enabled(LogCategory::protocol)) write(r.time, LogCategory::protocol, r.process, r.text);
      break;
    case node::RecordKind::run_end:
      if (enabled(LogCategory::run)) write(r.time, LogCategory::run, -1, r.text);
      break;
    case node::RecordKind::local_checkpoint:
      if (enabled(LogCategory::protocol)) write(r.time, LogCategory::protocol, r.process, "local checkpoint " + number(r.checkpoint));
      break;
    case node::RecordKind::data_logged:    // only checkpoint traces use it
    case node::RecordKind::data_sent:      // the "message" record says it, at delivery
    case node::RecordKind::data_received: break;
  }
}

void EventLog::migration(const node::Record& r) {
  const node::MigrationRecord& m = *r.migration;
  const auto number = [](std::uint64_t n) { return std::to_string(n); };
  const auto seconds = [](double t) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.9f", t);
    return std::string(buffer);
  };
  std::string text;
  switch (r.kind) {
    case node::RecordKind::alarm:
      text = std::string(m.true_alarm ? "true" : "false") + " alarm: failure predicted at " + seconds(m.predicted_failure) + " s";
      break;
    case node::RecordKind::migration_start: text = "migration to a spare starts: no new task, waits for the running ones"; break;
    case node::RecordKind::migration_frozen: text = "migration: safe point, frozen while the process spawns on the spare"; break;
    case node::RecordKind::migration_transfer: text = "migration: the spare is up, " + number(m.state_bytes) + " B of state start to move"; break;
    case node::RecordKind::migration_end:
      if (m.outcome == "done") {
        text = "migration: switch, runs on the spare (" + number(m.state_bytes) + " B of state + " + number(m.forwarded_bytes) +
               " B forwarded, " + number(m.chunks) + (m.chunks == 1 ? " chunk, " : " chunks, ") + seconds(m.end - m.alarm) + " s since the alarm)";
      } else if (m.outcome == "failed") {
        text = "migration interrupted: the node fails before the switch (" + number(m.chunks) + (m.chunks == 1 ? " chunk" : " chunks") + " sent)";
      } else if (m.outcome == "run ended") {
        text = "migration under way when the run ended";
      } else {
        text = "alarm skipped: " + (m.outcome == "no spare" ? std::string("no spare left") : m.outcome == "node down" ? std::string("the node is down") : "already migrating");
      }
      break;
    case node::RecordKind::failure_avoided:
      text = "failure avoided: it hits the host the rank left at " + seconds(m.end) + " s (alarm at " + seconds(m.alarm) + " s)";
      break;
    default: return;
  }
  write(r.time, LogCategory::migration, r.process, text);
}

void EventLog::write(double time, LogCategory category, long process, std::string_view text) {
  char prefix[64];
  // The coordinator is the process after the nodes (Simulation::coordinator()): named, not numbered.
  if (process < 0 || process == long(graph_.node_count())) {
    std::snprintf(prefix, sizeof prefix, "[%14.9f] %-8s %-12s ", time, to_string(category), process < 0 ? "driver" : "coordinator");
  } else {
    std::snprintf(prefix, sizeof prefix, "[%14.9f] %-8s process %-4ld ", time, to_string(category), process);
  }
  out_ << prefix << text << '\n';
}

}  // namespace ftsim::world
