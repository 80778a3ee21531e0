#include "analysis/trace_json_writer.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <stdexcept>

namespace ftsim::analysis {

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20) {
      out += "\\u00";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  out += '"';
}

namespace {

void append_number(std::string& out, std::uint64_t value) {
  char buffer[24];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  out.append(buffer, end);
}

// The shortest text that reads back to the same double.
void append_number(std::string& out, double value) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  out.append(buffer, end);
}

void append_time(std::string& out, double time) {
  if (std::isnan(time)) return;
  out += ", \"time\": ";
  append_number(out, time);
}

}  // namespace

void write_trace_json(const Trace& trace, std::ostream& out) {
  std::string buffer;
  buffer.reserve(1 << 20);
  auto flush_if_full = [&] {
    if (buffer.size() >= (1u << 20) - 512) {
      out.write(buffer.data(), std::streamsize(buffer.size()));
      buffer.clear();
    }
  };
  buffer += "{\"format\": \"ftsim-trace\", \"version\": 1,\n";
  if (!trace.metadata().is_null()) buffer += " \"metadata\": " + trace.metadata().dump() + ",\n";
  buffer += " \"processes\": [";
  for (ProcessId p = 0; p < trace.process_count(); ++p) {
    buffer += p == 0 ? "\n  {" : ",\n  {";
    if (!trace.process_name(p).empty()) {
      buffer += "\"name\": ";
      append_json_string(buffer, trace.process_name(p));
      buffer += ", ";
    }
    buffer += "\"events\": [";
    const Position communications = trace.communication_count(p);
    const CheckpointIndex checkpoints = trace.checkpoint_count(p);
    CheckpointIndex next_checkpoint = 1;
    bool first = true;
    // Merge checkpoints (at their positions) with sends and receives, in local order.
    for (Position i = 0; i <= communications; ++i) {
      while (next_checkpoint <= checkpoints && trace.checkpoint_position(p, next_checkpoint) == i) {
        buffer += first ? "\n    {\"checkpoint\": " : ",\n    {\"checkpoint\": ";
        first = false;
        append_number(buffer, std::uint64_t(next_checkpoint));
        append_time(buffer, trace.checkpoint_time(p, next_checkpoint));
        buffer += '}';
        ++next_checkpoint;
        flush_if_full();
      }
      if (i == communications) break;
      const MessageId m = trace.message_at(p, i);
      buffer += first ? "\n    {" : ",\n    {";
      first = false;
      if (trace.is_receive_at(p, i)) {
        buffer += "\"receive\": ";
        append_json_string(buffer, trace.message_name(m));
        append_time(buffer, trace.receive_time(m));
      } else {
        buffer += "\"send\": ";
        append_json_string(buffer, trace.message_name(m));
        buffer += ", \"to\": ";
        append_number(buffer, std::uint64_t(trace.receiver(m)));
        if (trace.logged(m)) buffer += ", \"logged\": true";
        if (trace.bytes(m) != kNoBytes) {
          buffer += ", \"bytes\": ";
          append_number(buffer, trace.bytes(m));
        }
        append_time(buffer, trace.send_time(m));
      }
      buffer += '}';
      flush_if_full();
    }
    buffer += first ? "]}" : "\n  ]}";
  }
  buffer += trace.process_count() == 0 ? "]}\n" : "\n ]}\n";
  out.write(buffer.data(), std::streamsize(buffer.size()));
}

void write_trace_json_file(const Trace& trace, const std::string& path) {
  std::ofstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error(path + ": cannot be written");
  write_trace_json(trace, file);
  file.flush();
  if (!file) throw std::runtime_error(path + ": write failed");
}

}  // namespace ftsim::analysis
