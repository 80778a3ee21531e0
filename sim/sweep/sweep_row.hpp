#pragma once
// One row of a sweep's output per point (docs/sweeps.md, "Columns"): the point's index and id, its
// varied values, how its run ended, and a fixed set of scalar metrics of its results.json. The
// same columns go to the CSV file and, typed, to the JSON-lines file.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/sweep/sweep_plan.hpp"

namespace ftsim::sweep {

// Columns in order: an ordered object.
using Row = nlohmann::ordered_json;

// How the run of a point ended, as its parent saw it.
struct PointOutcome {
  int exit_code = 0;             // the exit status; 128 + N when killed by signal N
  int signal = 0;                // the signal that ended the process, 0 if it exited
  double wall_seconds = 0;       // wall-clock time of the process
  std::optional<Json> results;   // its results.json, if it wrote a readable one
  std::string stderr_tail;       // the end of its stderr, for the reason of an error
};

// The metric columns, in order (none of them is, or starts with, a top-level config key and a
// dot, so that they never collide with a varied key's column).
const std::vector<std::string>& metric_columns();
// Every column of a sweep's rows, in order: point, id, the varied columns, status, exit_code,
// reason, wall_seconds, the metrics.
std::vector<std::string> row_columns(const std::vector<std::string>& varied_columns);

// The row of a point: every column of row_columns(varied_columns), null where a point has no value.
Row make_row(const Point& point, const std::vector<std::string>& varied_columns,
             const std::vector<std::pair<std::string, Json>>& varied_values, const PointOutcome& outcome);

std::string csv_header(const std::vector<std::string>& columns);
std::string csv_line(const Row& row, const std::vector<std::string>& columns);

}  // namespace ftsim::sweep
