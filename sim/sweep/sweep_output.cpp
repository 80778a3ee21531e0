#include "sim/sweep/sweep_output.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "sim/config/config_error.hpp"

namespace ftsim::sweep {

namespace {

using config::ConfigError;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path.string(), "", "cannot read the rows file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Writes a file whole, under a temporary name first: an interruption leaves the old file or the new.
void write_atomically(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write", temporary.string()));
  }
  std::filesystem::rename(temporary, path);
}

}  // namespace

RowsFiles::RowsFiles(std::filesystem::path csv, std::filesystem::path jsonl, std::vector<std::filesystem::path> imports,
                     const SweepPlan& plan)
    : csv_path_(std::move(csv)), jsonl_path_(std::move(jsonl)), columns_(row_columns(plan.row_varied_columns())) {
  for (const auto& point : plan.points()) index_of_point_[point.id] = point.index;
  for (const auto& file : {jsonl_path_, csv_path_}) {
    std::error_code error;
    if (!file.parent_path().empty()) std::filesystem::create_directories(file.parent_path(), error);
    if (error) throw ConfigError(file.parent_path().string(), "", "cannot create the output directory: " + error.message());
  }
  // Two sweeps appending to the same rows would interleave and rewrite each other's rows.
  const std::string lock_path = jsonl_path_.string() + ".lock";
  lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) throw ConfigError(lock_path, "", fmt::format("cannot create the lock file ({})", std::strerror(errno)));
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    throw ConfigError(jsonl_path_.string(), "", "another sweep is writing these rows (it holds " + lock_path + ")");
  }
  if (!std::filesystem::exists(jsonl_path_) && std::filesystem::exists(csv_path_) && std::filesystem::file_size(csv_path_) > 0) {
    throw ConfigError(jsonl_path_.string(), "",
                      fmt::format("missing, but {} exists: a sweep resumes from its JSON lines; restore the file, or remove the CSV file "
                                  "to start over",
                                  csv_path_.string()));
  }
  auto read_rows = [&](const std::filesystem::path& path, bool own) {
    if (!std::filesystem::exists(path)) return;
    const std::string text = read_text(path);
    std::size_t start = 0, line_number = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      const bool complete = end != std::string::npos;
      if (!complete) end = text.size();
      const std::string line = text.substr(start, end - start);
      start = end + 1;
      ++line_number;
      if (line.empty()) continue;
      Row row;
      try {
        row = Row::parse(line);
      } catch (const nlohmann::json::parse_error&) {
        if (!complete) {  // the last write was cut short (a kill): that point runs again
          std::cerr << fmt::format("ftsim sweep: {}: line {}: an incomplete row (an interrupted write), dropped\n", path.string(), line_number);
          continue;
        }
        throw ConfigError(path.string(), "", fmt::format("line {}: not a JSON row of a sweep", line_number));
      }
      if (!row.is_object() || !row.contains("id") || !row["id"].is_string() || !row.contains("status")) {
        throw ConfigError(path.string(), "", fmt::format("line {}: not a row of a sweep (a JSON object with \"id\" and \"status\")", line_number));
      }
      const std::string id = row["id"].get<std::string>();
      const auto point = index_of_point_.find(id);
      if (point == index_of_point_.end()) {
        throw ConfigError(path.string(), "",
                          fmt::format("line {}: point {} is not a point of {} (was the config changed since? give this sweep another output)",
                                      line_number, id, plan.file()));
      }
      if (index_of_row_.count(id)) {
        if (own) throw ConfigError(path.string(), "", fmt::format("line {}: point {} has a row already", line_number, id));
        continue;  // a shard's row that the sweep's own file has
      }
      row["point"] = point->second;             // its index in this sweep (the sweep may have grown)
      index_of_row_[id] = point->second;
      rows_[point->second] = row.dump();
      ok_[point->second] = row["status"] == "ok";
    }
  };
  read_rows(jsonl_path_, true);
  for (const auto& path : imports) read_rows(path, false);
  // The CSV is always rewritten from the JSON lines; the JSON lines in point order.
  rewrite();
  csv_.open(csv_path_, std::ios::binary | std::ios::app);
  jsonl_.open(jsonl_path_, std::ios::binary | std::ios::app);
  if (!csv_) throw ConfigError(csv_path_.string(), "", "cannot open the rows file to append");
  if (!jsonl_) throw ConfigError(jsonl_path_.string(), "", "cannot open the rows file to append");
}

RowsFiles::~RowsFiles() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the lock
}

void RowsFiles::append(const Row& row) {
  const std::string id = row["id"].get<std::string>();
  const std::size_t index = row["point"].get<std::size_t>();
  const std::string line = row.dump();
  index_of_row_[id] = index;
  rows_[index] = line;
  ok_[index] = row["status"] == "ok";
  jsonl_ << line << "\n";
  jsonl_.flush();
  csv_ << csv_line(row, columns_);
  csv_.flush();
  if (!jsonl_ || !csv_) throw std::runtime_error(fmt::format("{}, {}: cannot write a row", jsonl_path_.string(), csv_path_.string()));
}

RowsFiles::Count RowsFiles::count(const std::vector<std::size_t>& points) const {
  Count c;
  for (const std::size_t index : points) {
    const auto found = ok_.find(index);
    if (found == ok_.end()) continue;
    ++c.rows;
    if (!found->second) ++c.not_ok;
  }
  return c;
}

std::vector<Row> RowsFiles::rows(const std::vector<std::size_t>& points) const {
  std::vector<Row> result;
  for (const std::size_t index : points) {
    const auto found = rows_.find(index);
    if (found != rows_.end()) result.push_back(Row::parse(found->second));
  }
  return result;
}

void RowsFiles::sort() {
  csv_.close();
  jsonl_.close();
  rewrite();
  csv_.open(csv_path_, std::ios::binary | std::ios::app);
  jsonl_.open(jsonl_path_, std::ios::binary | std::ios::app);
}

void RowsFiles::rewrite() {
  std::string jsonl, csv = csv_header(columns_);
  for (const auto& [index, line] : rows_) {
    jsonl += line + "\n";
    csv += csv_line(Row::parse(line), columns_);
  }
  write_atomically(jsonl_path_, jsonl);
  write_atomically(csv_path_, csv);
}

}  // namespace ftsim::sweep
