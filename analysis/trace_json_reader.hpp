#pragma once
// Reads the ftsim-trace JSON format (docs/trace-format.md, configs/schema/ftsim-trace.schema.json):
//
//   {"format": "ftsim-trace", "version": 1,
//    "processes": [{"events": [{"checkpoint": 1}, {"send": "m1", "to": 1, "logged": false},
//                              {"receive": "m2"}]}, ...]}
//
// Strictly: unknown keys, a key given twice, a checkpoint numbered out of order, a receive without
// its send, a message sent or received twice, a destination that is not a process and a causal
// cycle are errors. Each is a TraceError naming the file and the process and event index (or
// the line and column of a syntax error). A streaming parser of its own: a trace of 10 million
// events is read without building a JSON document (which would take gigabytes).
#include <cstdint>
#include <string>
#include <string_view>

#include "analysis/trace.hpp"
#include "analysis/trace_error.hpp"

namespace ftsim::analysis {

// Far above any real trace: 100 million events take about 3 GB of JSON.
inline constexpr std::uint64_t kMaxTraceJsonBytes = std::uint64_t(16) << 30;

Trace read_trace_json(const std::string& path);
// `origin` names the text in messages (a file name, "<string>").
Trace parse_trace_json(std::string_view text, const std::string& origin);

}  // namespace ftsim::analysis
