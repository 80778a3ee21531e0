#pragma once
// What a sweep answers, printed after it (and by `ftsim sweep --summary DIR` for one already run):
// the ok rows grouped by the varied keys other than the seed, each group's mean and 95% interval
// (confidence_interval.hpp) of the makespan, the overhead and its split into checkpointing and
// failures (where the rows have them), and n. docs/sweeps.md, "Summary".
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "sim/sweep/sweep_row.hpp"

namespace ftsim::sweep {

// The varied columns of rows (those between "id" and "status", in order).
std::vector<std::string> varied_columns_of(const Row& row);

// Prints the summary table of `rows` (all of one sweep), grouping by `varied` minus the seed and
// the SI duplicates of unit columns ("protocol.period_s" beside "protocol.period").
void print_sweep_summary(const std::vector<Row>& rows, const std::vector<std::string>& varied, std::ostream& out);

// `ftsim sweep --summary DIR`: the rows of DIR/rows.jsonl and of its shards' files; throws
// config::ConfigError naming the file when there are none or a line is not a row.
std::vector<Row> read_sweep_rows(const std::filesystem::path& dir);

}  // namespace ftsim::sweep
