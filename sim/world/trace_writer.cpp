#include "sim/world/trace_writer.hpp"

#include <cstdio>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace ftsim::core {

namespace {
std::string quote(const std::string& text) { return nlohmann::json(text).dump(); }
std::string micros(double seconds) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.3f", seconds * 1e6);
  return buffer;
}
}  // namespace

TraceWriter::TraceWriter(const std::string& path, const graphs::TaskGraph& graph, std::uint32_t cores,
                         const std::string& coordinator_name)
    : graph_(graph), out_(path) {
  if (!out_) throw std::runtime_error("cannot write the trace file " + path);
  const std::uint32_t nodes = graph.node_count();
  out_ << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  for (std::uint32_t n = 0; n <= nodes; ++n) {
    const std::string name = n == nodes ? coordinator_name : "node " + std::to_string(n);
    event("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(n) + ",\"args\":{\"name\":" + quote(name) + "}}");
    event("{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" + std::to_string(n) + ",\"args\":{\"sort_index\":" + std::to_string(n) + "}}");
    if (n == nodes) continue;
    for (std::uint32_t c = 0; c < cores; ++c) {
      event("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + std::to_string(n) + ",\"tid\":" + std::to_string(c) +
            ",\"args\":{\"name\":\"core " + std::to_string(c) + "\"}}");
    }
    event("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + std::to_string(n) + ",\"tid\":" + std::to_string(kSendLane) +
          ",\"args\":{\"name\":\"sends\"}}");
    event("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + std::to_string(n) + ",\"tid\":" +
          std::to_string(kProtocolLane) + ",\"args\":{\"name\":\"protocol\"}}");
  }
}

TraceWriter::~TraceWriter() { close(); }

void TraceWriter::event(const std::string& json) {
  if (!out_.is_open()) return;
  out_ << (first_ ? "" : ",\n") << json;
  first_ = false;
}

void TraceWriter::task(std::uint32_t node, std::uint32_t core, const std::string& name, const std::string& kernel,
                       double start, double end, bool reexecution) {
  event("{\"ph\":\"X\",\"name\":" + quote(name) + ",\"cat\":" + quote(reexecution ? kernel + ",reexecution" : kernel) +
        ",\"pid\":" + std::to_string(node) + ",\"tid\":" + std::to_string(core) + ",\"ts\":" + micros(start) +
        ",\"dur\":" + micros(end - start) + "}");
}

void TraceWriter::message(std::uint32_t from, std::uint32_t to, const std::string& name, const char* traffic,
                          double start, double end, std::uint64_t bytes) {
  const std::string id = std::to_string(++flow_id_);
  event("{\"ph\":\"X\",\"name\":" + quote(name) + ",\"cat\":\"" + traffic + "\",\"pid\":" + std::to_string(from) +
        ",\"tid\":" + std::to_string(kSendLane) + ",\"ts\":" + micros(start) + ",\"dur\":" + micros(end - start) +
        ",\"args\":{\"to\":" + std::to_string(to) + ",\"bytes\":" + std::to_string(bytes) + "}}");
  event("{\"ph\":\"s\",\"name\":\"transfer\",\"cat\":\"" + std::string(traffic) + "\",\"id\":" + id + ",\"pid\":" +
        std::to_string(from) + ",\"tid\":" + std::to_string(kSendLane) + ",\"ts\":" + micros(start) + "}");
  event("{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"transfer\",\"cat\":\"" + std::string(traffic) + "\",\"id\":" + id +
        ",\"pid\":" + std::to_string(to) + ",\"tid\":" + std::to_string(kSendLane) + ",\"ts\":" + micros(end) + "}");
}

void TraceWriter::span(std::uint32_t node, const std::string& name, const char* category, double start, double end) {
  event("{\"ph\":\"X\",\"name\":" + quote(name) + ",\"cat\":\"" + category + "\",\"pid\":" + std::to_string(node) +
        ",\"tid\":" + std::to_string(kProtocolLane) + ",\"ts\":" + micros(start) + ",\"dur\":" + micros(end - start) + "}");
}

void TraceWriter::marker(std::uint32_t node, const std::string& name, double time) {
  event("{\"ph\":\"i\",\"s\":\"g\",\"name\":" + quote(name) + ",\"pid\":" + std::to_string(node) + ",\"tid\":" +
        std::to_string(kProtocolLane) + ",\"ts\":" + micros(time) + "}");
}

void TraceWriter::record(const Record& r) {
  const auto process = static_cast<std::uint32_t>(r.process < 0 ? r.peer : r.process);
  switch (r.kind) {
    case RecordKind::task_end:
      task(process, r.core, graph_.task_name(r.task), graph_.kernel_name(graph_.kernel(r.task)), r.start, r.time, r.again);
      break;
    case RecordKind::message: {
      const Message& m = *r.message;
      if (m.source == m.destination) break;
      message(m.source, m.destination,
              m.is_data ? graph_.handle_name(m.handle) + " v" + std::to_string(m.version)
                        : "control " + std::to_string(m.control_type),
              to_string(m.traffic), m.sent_at, r.time, m.bytes);
      break;
    }
    case RecordKind::failure: marker(r.peer, "failure of node " + std::to_string(r.peer), r.time); break;
    case RecordKind::replacement: marker(r.peer, "replacement of node " + std::to_string(r.peer), r.time); break;
    case RecordKind::span: span(process, std::string(r.text), r.category, r.start, r.time); break;
    case RecordKind::note:
      if (r.category[0] != '\0') marker(process, std::string(r.text), r.time);  // notes meant for the trace
      break;
    case RecordKind::task_start:
    case RecordKind::notice:
    case RecordKind::run_end:
    case RecordKind::data_sent:
    case RecordKind::data_received:
    case RecordKind::local_checkpoint:
    case RecordKind::data_logged: break;
  }
}

void TraceWriter::close() {
  if (!out_.is_open()) return;
  out_ << "\n]}\n";
  out_.close();
}

}  // namespace ftsim::core
