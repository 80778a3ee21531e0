#include "analysis/trace_error.hpp"

namespace ftsim::analysis {

std::string TraceLocation::describe() const {
  std::string event_part;
  if (process) {
    event_part = "process " + std::to_string(*process);
    if (event) event_part += ", event " + std::to_string(*event);
  }
  if (line) {
    std::string text = "line " + std::to_string(*line);
    if (column) text += ", column " + std::to_string(*column);
    if (!event_part.empty()) text += " (" + event_part + ")";
    return text;
  }
  if (!event_part.empty()) return event_part;
  return pointer;
}

namespace {
std::string full_message(const std::string& file, const TraceLocation& where, const std::string& message) {
  std::string text = file.empty() ? std::string() : file + ": ";
  const std::string place = where.describe();
  if (!place.empty()) text += place + ": ";
  return text + message;
}
}  // namespace

TraceError::TraceError(std::string file, TraceLocation where, std::string message)
    : std::runtime_error(full_message(file, where, message)),
      file_(std::move(file)),
      where_(std::move(where)),
      message_(std::move(message)) {}

}  // namespace ftsim::analysis
