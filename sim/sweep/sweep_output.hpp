#pragma once
// The two rows files of a sweep: JSON lines (the record a resumed sweep reads) and CSV (rewritten
// from it). Each finished point is appended to both at once and flushed, so that an interrupted
// sweep loses only the points that were running. When every point has a row, both files are
// rewritten in point order: a complete sweep gives the same files however it was run.
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "sim/sweep/sweep_plan.hpp"
#include "sim/sweep/sweep_row.hpp"

namespace ftsim::sweep {

class RowsFiles {
public:
  // Reads the rows already in `jsonl` (and, read-only, in each of `imports`: the files of the
  // shards of this sweep), rewrites both files from them and opens both to append. Throws
  // config::ConfigError (exit 2) for a file that is not this sweep's: a line that is not a row, a
  // row whose id is not a point of `plan`; an incomplete last line (a write cut short) is dropped.
  RowsFiles(std::filesystem::path csv, std::filesystem::path jsonl, std::vector<std::filesystem::path> imports, const SweepPlan& plan);

  ~RowsFiles();
  RowsFiles(const RowsFiles&) = delete;
  RowsFiles& operator=(const RowsFiles&) = delete;

  bool has(const std::string& id) const { return index_of_row_.count(id) > 0; }
  // Of these points (indices), how many have a row, and how many of those rows are not "ok".
  struct Count {
    std::size_t rows = 0, not_ok = 0;
  };
  Count count(const std::vector<std::size_t>& points) const;
  // The rows held of these points (indices), in point order.
  std::vector<Row> rows(const std::vector<std::size_t>& points) const;
  // Appends to both files and flushes them.
  void append(const Row& row);
  // Rewrites both files with the rows in point order.
  void sort();

  const std::filesystem::path& csv_path() const { return csv_path_; }
  const std::filesystem::path& jsonl_path() const { return jsonl_path_; }

private:
  void rewrite();

  std::filesystem::path csv_path_, jsonl_path_;
  std::vector<std::string> columns_;
  std::map<std::string, std::size_t> index_of_point_;  // id -> point index in this sweep
  std::map<std::string, std::size_t> index_of_row_;    // id -> point index, for the rows held
  std::map<std::size_t, std::string> rows_;            // point index -> the row as one JSON line
  std::map<std::size_t, bool> ok_;                     // point index -> its row's status is "ok"
  std::ofstream csv_, jsonl_;
  int lock_fd_ = -1;  // an exclusive flock on "<jsonl>.lock" while this object lives
};

}  // namespace ftsim::sweep
