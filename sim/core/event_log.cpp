#include "sim/core/event_log.hpp"

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

EventLog::EventLog(const std::string& path, std::uint32_t categories) : mask_(categories), out_(path) {
  if (!out_) throw std::runtime_error("cannot write the event log " + path);
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
