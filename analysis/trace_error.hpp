#pragma once
// TraceError: the one error type for a bad trace (docs/trace-format.md). It names the file and
// where in it the problem is: a process and the index of its event (the position in its "events"
// array), a line of a text file (SMPI traces, cluster files), or a JSON pointer, e.g.
//   "run.trace.json: process 1, event 3: receive of \"m9\" without its send".
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace ftsim::analysis {

struct TraceLocation {
  std::optional<std::uint32_t> process;
  std::optional<std::size_t> event;   // index in the process's events
  std::optional<std::size_t> line;    // 1-based, text inputs and JSON syntax errors
  std::optional<std::size_t> column;  // 1-based, with `line`
  std::string pointer;                // a JSON pointer, when no process/event applies

  static TraceLocation at_event(std::uint32_t process, std::size_t event) {
    return {process, event, std::nullopt, std::nullopt, {}};
  }
  static TraceLocation at_line(std::size_t line) { return {std::nullopt, std::nullopt, line, std::nullopt, {}}; }
  static TraceLocation at_pointer(std::string pointer) {
    return {std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::move(pointer)};
  }
  // "process 1, event 3", "line 7", "line 7, column 2 (process 1, event 3)", "/processes/2", ""
  std::string describe() const;
};

class TraceError : public std::runtime_error {
public:
  TraceError(std::string file, TraceLocation where, std::string message);

  const std::string& file() const { return file_; }
  const TraceLocation& where() const { return where_; }
  const std::string& message() const { return message_; }
  // The same error, naming `file` (the builder does not know which file it is reading).
  TraceError in_file(std::string file) const { return TraceError(std::move(file), where_, message_); }

private:
  std::string file_;
  TraceLocation where_;
  std::string message_;
};

}  // namespace ftsim::analysis
