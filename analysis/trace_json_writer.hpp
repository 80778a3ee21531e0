#pragma once
// Writes a Trace in the ftsim-trace JSON format (docs/trace-format.md), one event per line, that
// read_trace_json reads back to an equal trace. Keys with their default value ("logged": false)
// and absent optional fields (times, bytes, process names) are left out.
#include <ostream>
#include <string>

#include "analysis/trace.hpp"

namespace ftsim::analysis {

void write_trace_json(const Trace& trace, std::ostream& out);
// Writes to a file; throws std::runtime_error naming it if it cannot be written.
void write_trace_json_file(const Trace& trace, const std::string& path);

// `text` as a JSON string literal, quotes included (control characters escaped, UTF-8 kept).
void append_json_string(std::string& out, std::string_view text);

}  // namespace ftsim::analysis
