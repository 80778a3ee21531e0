#include "sim/world/trace_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace ftsim::world {

namespace {
std::string quote(const std::string& text) { return nlohmann::json(text).dump(); }
// Times are rounded once, to the nanosecond, and a duration is the difference of two rounded end
// points: back-to-back slices then touch exactly instead of overlapping by a rounding step.
std::int64_t nanos(double seconds) { return std::llround(seconds * 1e9); }
std::string micros(std::int64_t ns) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
  return buffer;
}
std::string times_ns(std::int64_t from, std::int64_t to) {
  return "\"ts\":" + micros(from) + ",\"dur\":" + micros(to - from);
}
std::string times(double start, double end) {
  const std::int64_t from = nanos(start);
  return times_ns(from, std::max(from, nanos(end)));
}
// How long a receive slice lasts (ns): what a flow arrow's end binds to (viewers bind "f" events
// to the slice enclosing them on their lane).
constexpr std::int64_t kReceiveSlice = 1;
}  // namespace

TraceWriter::TraceWriter(const std::string& path, const graphs::TaskGraph& graph, std::uint32_t cores,
                         const std::string& coordinator_name, bool migration_lane)
    : graph_(graph), out_(path) {
  if (!out_) throw std::runtime_error("cannot write the trace file " + path);
  const std::uint32_t nodes = graph.node_count();
  out_ << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  const auto lane = [this](std::uint32_t pid, std::uint32_t tid, const std::string& name) { name_lane(pid, tid, name); };
  for (std::uint32_t n = 0; n <= nodes; ++n) {
    const std::string name = n == nodes ? coordinator_name : "node " + std::to_string(n);
    event("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(n) + ",\"args\":{\"name\":" + quote(name) + "}}");
    event("{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" + std::to_string(n) + ",\"args\":{\"sort_index\":" + std::to_string(n) + "}}");
    if (n < nodes) {
      for (std::uint32_t c = 0; c < cores; ++c) lane(n, c, "core " + std::to_string(c));
    }
    lane(n, kSendLane, "sends");
    lane(n, kReceiveLane, "receives");
    lane(n, kProtocolLane, "protocol");
    if (migration_lane && n < nodes) lane(n, kMigrationLane, "migration");
  }
}

TraceWriter::~TraceWriter() { close(); }

void TraceWriter::name_lane(std::uint32_t pid, std::uint32_t tid, const std::string& name) {
  event("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + std::to_string(pid) + ",\"tid\":" +
        std::to_string(tid) + ",\"args\":{\"name\":" + quote(name) + "}}");
}

std::uint32_t TraceWriter::lane_of(TraceLanes& lanes, std::uint32_t pid, std::int64_t start, std::int64_t end,
                                   std::uint32_t first_lane, std::uint32_t more_lanes, const char* name) {
  const TraceLanes::Placement placement = lanes.place(pid, start, end);
  if (placement.lane == 0) return first_lane;
  const std::uint32_t tid = more_lanes + placement.lane;
  // "sends 2" is the second sends lane; a thread_name event may come anywhere in the file.
  if (placement.added) name_lane(pid, tid, std::string(name) + " " + std::to_string(placement.lane + 1));
  return tid;
}

void TraceWriter::event(const std::string& json) {
  if (!out_.is_open()) return;
  out_ << (first_ ? "" : ",\n") << json;
  first_ = false;
}

void TraceWriter::task(std::uint32_t node, std::uint32_t core, const std::string& name, const std::string& kernel,
                       double start, double end, bool reexecution) {
  event("{\"ph\":\"X\",\"name\":" + quote(name) + ",\"cat\":" + quote(reexecution ? kernel + ",reexecution" : kernel) +
        ",\"pid\":" + std::to_string(node) + ",\"tid\":" + std::to_string(core) + "," + times(start, end) + "}");
}

void TraceWriter::message(std::uint32_t from, std::uint32_t to, const std::string& name, const char* traffic,
                          double start, double end, std::uint64_t bytes) {
  const std::string id = std::to_string(++flow_id_);
  const std::string cat = std::string(",\"cat\":\"") + traffic + "\"";
  const std::int64_t sent = nanos(start), delivered = std::max(sent, nanos(end));
  const std::string send_lane =
      std::to_string(lane_of(send_lanes_, from, sent, delivered, kSendLane, kMoreSendLanes, "sends"));
  const std::string receive_lane = std::to_string(
      lane_of(receive_lanes_, to, delivered, delivered + kReceiveSlice, kReceiveLane, kMoreReceiveLanes, "receives"));
  event("{\"ph\":\"X\",\"name\":" + quote(name) + cat + ",\"pid\":" + std::to_string(from) + ",\"tid\":" +
        send_lane + "," + times_ns(sent, delivered) + ",\"args\":{\"to\":" + std::to_string(to) +
        ",\"bytes\":" + std::to_string(bytes) + "}}");
  // The receiver's side: a short slice on a receives lane, which the arrow's end binds to.
  event("{\"ph\":\"X\",\"name\":" + quote(name) + cat + ",\"pid\":" + std::to_string(to) + ",\"tid\":" +
        receive_lane + "," + times_ns(delivered, delivered + kReceiveSlice) + ",\"args\":{\"from\":" +
        std::to_string(from) + ",\"bytes\":" + std::to_string(bytes) + "}}");
  event("{\"ph\":\"s\",\"name\":\"transfer\"" + cat + ",\"id\":" + id + ",\"pid\":" + std::to_string(from) +
        ",\"tid\":" + send_lane + ",\"ts\":" + micros(sent) + "}");
  event("{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"transfer\"" + cat + ",\"id\":" + id + ",\"pid\":" +
        std::to_string(to) + ",\"tid\":" + receive_lane + ",\"ts\":" + micros(delivered) + "}");
}

void TraceWriter::span(std::uint32_t node, const std::string& name, const char* category, double start, double end) {
  const std::int64_t from = nanos(start), to = std::max(from, nanos(end));
  const std::uint32_t lane = lane_of(protocol_lanes_, node, from, to, kProtocolLane, kMoreProtocolLanes, "protocol");
  event("{\"ph\":\"X\",\"name\":" + quote(name) + ",\"cat\":\"" + category + "\",\"pid\":" + std::to_string(node) +
        ",\"tid\":" + std::to_string(lane) + "," + times_ns(from, to) + "}");
}

void TraceWriter::marker(std::uint32_t node, const std::string& name, double time, const std::string& args,
                         std::uint32_t lane, const char* scope) {
  event("{\"ph\":\"i\",\"s\":\"" + std::string(scope) + "\",\"name\":" + quote(name) + ",\"pid\":" + std::to_string(node) +
        ",\"tid\":" + std::to_string(lane) + ",\"ts\":" + micros(nanos(time)) + ",\"args\":" + args + "}");
}

namespace {
std::string seconds_or_null(double t) {
  if (t < 0) return "null";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9f", t);
  return buffer;
}
}  // namespace

void TraceWriter::migration(const node::Record& r) {
  const node::MigrationRecord& m = *r.migration;
  const auto node = static_cast<std::uint32_t>(r.process);
  const std::string n = std::to_string(node);
  switch (r.kind) {
    case node::RecordKind::alarm:
      marker(node, m.true_alarm ? "alarm (true)" : "alarm (false)", r.time,
             "{\"node\":" + n + ",\"true_alarm\":" + (m.true_alarm ? "true" : "false") +
                 ",\"predicted_failure\":" + seconds_or_null(m.predicted_failure) + "}",
             kMigrationLane, "t");
      break;
    case node::RecordKind::failure_avoided:
      marker(node, "failure avoided", r.time,
             "{\"node\":" + n + ",\"alarm\":" + seconds_or_null(m.alarm) + ",\"switch\":" + seconds_or_null(m.end) + "}",
             kMigrationLane, "t");
      break;
    case node::RecordKind::migration_end: {
      // A span from the safe point (the node freezes) to the switch, or to what ended it; an alarm
      // that started nothing (no spare, node down, already migrating) is a span of no duration.
      const bool done = m.outcome == "done", interrupted = m.outcome == "failed", ended = m.outcome == "run ended";
      const bool skipped = !done && !interrupted && !ended;
      const std::string outcome = done ? "done" : interrupted ? "interrupted" : ended ? "run ended" : "skipped";
      const double start = skipped ? r.time : m.safe_point >= 0 ? m.safe_point : m.alarm;
      event("{\"ph\":\"X\",\"name\":\"migration\",\"cat\":\"migration\",\"pid\":" + n + ",\"tid\":" +
            std::to_string(kMigrationLane) + "," + times(start, r.time) + ",\"args\":{\"outcome\":" + quote(outcome) +
            (skipped ? ",\"reason\":" + quote(m.outcome) : std::string()) + ",\"true_alarm\":" + (m.true_alarm ? "true" : "false") +
            ",\"bytes\":" + std::to_string(m.state_bytes + m.forwarded_bytes) + ",\"state_bytes\":" +
            std::to_string(m.state_bytes) + ",\"forwarded_bytes\":" + std::to_string(m.forwarded_bytes) + ",\"chunks\":" +
            std::to_string(m.chunks) + ",\"alarm\":" + seconds_or_null(m.alarm) + ",\"safe_point\":" +
            seconds_or_null(m.safe_point) + ",\"transfer_start\":" + seconds_or_null(m.transfer_start) + "}}");
      break;
    }
    default: break;  // start, safe point, transfer: the span and its args say them
  }
}

void TraceWriter::record(const node::Record& r) {
  const auto process = static_cast<std::uint32_t>(r.process < 0 ? r.peer : r.process);
  switch (r.kind) {
    case node::RecordKind::task_end:
      task(process, r.core, graph_.task_name(r.task), graph_.kernel_name(graph_.kernel(r.task)), r.start, r.time, r.again);
      break;
    case node::RecordKind::message: {
      const node::Message& m = *r.message;
      if (m.source == m.destination) break;
      message(m.source, m.destination,
              m.is_data ? graph_.handle_name(m.handle) + " v" + std::to_string(m.version)
                        : "control " + std::to_string(m.control_type),
              to_string(m.traffic), m.sent_at, r.time, m.bytes);
      break;
    }
    case node::RecordKind::failure:
      marker(r.peer, "failure", r.time,
             "{\"node\":" + std::to_string(r.peer) + ",\"incarnation\":" + std::to_string(r.incarnation) + "}");
      break;
    case node::RecordKind::replacement:
      marker(r.peer, "replacement", r.time,
             "{\"node\":" + std::to_string(r.peer) + ",\"incarnation\":" + std::to_string(r.incarnation) + "}");
      break;
    case node::RecordKind::rehost:  // shrink: no spare, the rank restarts on a surviving machine
      marker(r.peer, "shrink", r.time,
             "{\"node\":" + std::to_string(r.peer) + ",\"incarnation\":" + std::to_string(r.incarnation) +
                 ",\"machine\":" + std::to_string(r.machine) + ",\"machine_ranks\":[" + std::string(r.text) +
                 "],\"machines_up\":" + std::to_string(r.machines_up) + "}");
      break;
    case node::RecordKind::alarm:
    case node::RecordKind::migration_start:
    case node::RecordKind::migration_frozen:
    case node::RecordKind::migration_transfer:
    case node::RecordKind::migration_end:
    case node::RecordKind::failure_avoided: migration(r); break;
    case node::RecordKind::span: span(process, std::string(r.text), r.category, r.start, r.time); break;
    case node::RecordKind::note:  // a decision meant for the trace: named by its category, told in args
      if (r.category[0] != '\0') marker(process, r.category, r.time, "{\"text\":" + quote(std::string(r.text)) + "}");
      break;
    case node::RecordKind::task_start:
    case node::RecordKind::notice:
    case node::RecordKind::run_end:
    case node::RecordKind::data_sent:
    case node::RecordKind::data_received:
    case node::RecordKind::local_checkpoint:
    case node::RecordKind::data_logged: break;
  }
}

void TraceWriter::close() {
  if (!out_.is_open()) return;
  out_ << "\n]}\n";
  out_.close();
}

}  // namespace ftsim::world
