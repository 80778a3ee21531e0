#include "sim/sweep/sweep_row.hpp"

#include <algorithm>
#include <cstring>
#include <functional>

#include <fmt/format.h>

namespace ftsim::sweep {

namespace {

using Metric = std::function<Json(const Json& results)>;

// A field of results.json by JSON pointer; null when absent (e.g. log.copies_peak_bytes of an old run).
Metric field(const std::string& pointer) {
  return [p = Json::json_pointer(pointer)](const Json& results) { return results.contains(p) ? results[p] : Json(); };
}

// Sum or maximum of one field over the elements of an array of results.json (integers stay exact).
Metric over(const std::string& array, const std::string& pointer, bool maximum) {
  return [array, p = Json::json_pointer(pointer), maximum](const Json& results) -> Json {
    if (!results.contains(array) || !results[array].is_array()) return Json();
    bool integer = true;
    std::int64_t integer_sum = 0, integer_best = 0;
    double sum = 0, best = 0;
    for (const auto& element : results[array]) {
      if (!element.is_object() || !element.contains(p) || !element[p].is_number()) continue;
      if (element[p].is_number_integer()) {
        const auto value = element[p].get<std::int64_t>();
        integer_sum += value;
        integer_best = std::max(integer_best, value);
      } else {
        integer = false;
      }
      const double value = element[p].get<double>();
      sum += value;
      best = std::max(best, value);
    }
    if (integer) return maximum ? integer_best : integer_sum;
    return maximum ? best : sum;
  };
}

Metric count_of(const std::string& array, const std::function<bool(const Json&)>& keep) {
  return [array, keep](const Json& results) -> Json {
    if (!results.contains(array) || !results[array].is_array()) return Json();
    std::int64_t n = 0;
    for (const auto& element : results[array]) n += keep(element) ? 1 : 0;
    return n;
  };
}

struct MetricColumn {
  std::string column;
  Metric metric;
};

const std::vector<MetricColumn>& metrics() {
  static const std::vector<MetricColumn> table = [] {
    std::vector<MetricColumn> t;
    auto direct = [&t](const std::string& column) {
      std::string pointer = "/" + column;
      for (auto& c : pointer) c = c == '.' ? '/' : c;
      t.push_back({column, field(pointer)});
    };
    direct("complete");
    direct("oracle.ok");
    direct("makespan");
    // "reference" is also a config key: these two are renamed.
    t.push_back({"reference_makespan", field("/reference/makespan")});
    t.push_back({"overhead", field("/reference/overhead")});
    // The overhead split (docs/results.md: reference), and what Daly's model needs as C.
    t.push_back({"protocol_makespan", field("/reference/protocol_makespan")});
    t.push_back({"overhead_checkpointing", field("/reference/checkpointing")});
    t.push_back({"overhead_failures", field("/reference/failures")});
    for (const char* c : {"executions", "reexecutions", "events", "graph.tasks", "graph.edges", "graph.handles", "graph.transfers",
                          "graph.data_bytes"}) {
      direct(c);
    }
    for (const char* kind : {"application", "recovery", "checkpoint", "restore", "control"}) direct(fmt::format("bytes_sent.{}", kind));
    for (const char* kind : {"application", "recovery", "checkpoint", "restore", "control"}) direct(fmt::format("messages_sent.{}", kind));
    for (const char* counter : {"CP_DATA_NORMAL_COUNT", "CP_DATA_NORMAL_TOTAL_SIZE", "CP_DATA_CACHED_COUNT", "CP_DATA_CACHED_SIZE",
                                "FT_SERVICE_MSGS_COUNT", "FT_SERVICE_MSGS_TOTAL_SIZE", "IN_MEM_CP_DATA_TOTAL", "IN_MEM_CP_DATA_MAX_AT_T"}) {
      direct(fmt::format("starpu.{}", counter));
    }
    direct("log.bytes");
    direct("log.peak_bytes");
    direct("log.copies_peak_bytes");
    // /checkpoint_data (empty without it): what the checkpoints hold, what was stored, 1 - stored / held.
    t.push_back({"checkpoint_data_logical_bytes", field("/checkpoint_data/logical_bytes")});
    t.push_back({"checkpoint_data_stored_bytes", field("/checkpoint_data/stored_bytes")});
    t.push_back({"checkpoint_data_reduction", field("/checkpoint_data/reduction")});
    // checkpoints[] and failures[] ("checkpoints" and "failures" are config keys too).
    t.push_back({"checkpoint_count", count_of("checkpoints", [](const Json& c) { return c.value("committed", Json()).is_number(); })});
    t.push_back({"checkpoint_aborted_count", count_of("checkpoints", [](const Json& c) { return c.value("aborted", false); })});
    t.push_back({"checkpoint_bytes", over("checkpoints", "/bytes", false)});
    t.push_back({"checkpoint_duration", [](const Json& results) -> Json {
                   // The mean time from start to commit of the committed checkpoints; null if none.
                   if (!results.contains("checkpoints") || !results["checkpoints"].is_array()) return Json();
                   double sum = 0;
                   std::size_t count = 0;
                   for (const auto& c : results["checkpoints"]) {
                     if (!c.value("committed", Json()).is_number() || !c.value("started", Json()).is_number()) continue;
                     sum += c["committed"].get<double>() - c["started"].get<double>();
                     ++count;
                   }
                   return count ? Json(sum / double(count)) : Json();
                 }});
    t.push_back({"failure_count", count_of("failures", [](const Json&) { return true; })});
    t.push_back({"recovered_count", count_of("failures", [](const Json& f) { return f.value("recovered_at", Json()).is_number(); })});
    t.push_back({"recovery_time", [](const Json& results) -> Json {
                   // The sum over the failures; null when one of them was not recovered.
                   if (!results.contains("failures") || !results["failures"].is_array()) return Json();
                   double sum = 0;
                   for (const auto& f : results["failures"]) {
                     if (!f.value("recovery_time", Json()).is_number()) return Json();
                     sum += f["recovery_time"].get<double>();
                   }
                   return sum;
                 }});
    t.push_back({"restart_points", [](const Json& results) -> Json {
                   if (!results.contains("failures") || !results["failures"].is_array()) return Json();
                   std::string text;
                   for (const auto& f : results["failures"]) {
                     const std::string point = f.value("restart_point", std::string());
                     if (!point.empty()) text += (text.empty() ? "" : "; ") + point;
                   }
                   return text;
                 }});
    for (const char* c : {"tasks_reexecuted", "work_lost_seconds", "processes_rolled_back", "messages_replayed", "bytes_replayed"}) {
      t.push_back({c, over("failures", std::string("/") + c, false)});
    }
    // nodes[]: sums, and maxima of peaks.
    for (const char* c : {"busy_seconds", "lost_seconds", "restarts", "duplicates_received", "orphans_dropped"}) {
      t.push_back({c, over("nodes", std::string("/") + c, false)});
    }
    t.push_back({"peak_memory_bytes", over("nodes", "/peak_memory_bytes", true)});
    t.push_back({"checkpoint_store_peak_bytes", over("nodes", "/checkpoint_store/peak_bytes", true)});
    t.push_back({"log_store_peak_bytes", over("nodes", "/log_store/peak_bytes", true)});
    // Proactive migration (docs/migration.md); empty without /failures/prediction.
    for (const char* c : {"alarms", "true_alarms", "false_alarms", "migrations_done", "migrations_skipped",
                          "migrations_interrupted", "failures_avoided", "bytes", "seconds"}) {
      direct(fmt::format("migration.{}", c));
    }
    direct("wall.simulation_seconds");
    direct("wall.reference_seconds");
    return t;
  }();
  return table;
}

std::string one_line(std::string text, std::size_t limit) {
  for (auto& c : text) c = (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  if (text.size() > limit) text = text.substr(0, limit - 3) + "...";
  return text;
}

// Why a run that wrote no usable results.json ended: its last "error:" line, else its last line.
std::string error_reason(const PointOutcome& outcome) {
  if (outcome.signal != 0) {
    const char* name = strsignal(outcome.signal);
    return fmt::format("killed by signal {} ({})", outcome.signal, name ? name : "unknown");
  }
  std::string last, error;
  std::size_t start = 0;
  const std::string& text = outcome.stderr_tail;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    if (!line.empty()) last = line;
    if (line.rfind("error: ", 0) == 0) error = line.substr(7);
    start = end + 1;
  }
  if (!error.empty()) return error;
  if (!last.empty()) return last;
  return fmt::format("exit code {} and no results.json", outcome.exit_code);
}

// The reason of a run that failed (exit code 1 with results): its failure_reason, or the oracle's.
std::string failure_reason(const Json& results) {
  if (results.value("failure_reason", Json()).is_string()) return results["failure_reason"].get<std::string>();
  if (results.contains("oracle") && !results["oracle"].value("ok", true)) {
    std::string text = "oracle: the final data differ from the failure-free run";
    for (const char* list : {"missing", "wrong"}) {
      const auto& items = results["oracle"].value(list, Json::array());
      if (items.is_array() && !items.empty() && items[0].is_string()) return text + " (" + items[0].get<std::string>() + ")";
    }
    return text;
  }
  return "the run failed";
}

std::string csv_cell(const Row& value) {
  std::string text;
  if (value.is_null()) return text;
  text = value.is_string() ? value.get<std::string>() : value.dump();
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

const std::vector<std::string>& metric_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> c;
    for (const auto& m : metrics()) c.push_back(m.column);
    return c;
  }();
  return columns;
}

std::vector<std::string> row_columns(const std::vector<std::string>& varied_columns) {
  std::vector<std::string> columns = {"point", "id"};
  columns.insert(columns.end(), varied_columns.begin(), varied_columns.end());
  for (const char* c : {"status", "exit_code", "reason", "wall_seconds"}) columns.push_back(c);
  columns.insert(columns.end(), metric_columns().begin(), metric_columns().end());
  return columns;
}

Row make_row(const Point& point, const std::vector<std::string>& varied_columns,
             const std::vector<std::pair<std::string, Json>>& varied_values, const PointOutcome& outcome) {
  Row row;
  row["point"] = point.index;
  row["id"] = point.id;
  for (const auto& column : varied_columns) row[column] = nullptr;
  for (const auto& [column, value] : varied_values) row[column] = Row(value);
  // ok: exit 0. failed: exit 1 with results.json (the run itself failed: a time limit, an
  // unrecoverable failure, a wrong result). error: anything else (no results, a crash, bad input).
  const bool has_results = outcome.results.has_value() && outcome.results->is_object();
  std::string status = "error";
  std::string reason;
  if (has_results && outcome.signal == 0 && outcome.exit_code == 0) {
    status = "ok";
  } else if (has_results && outcome.signal == 0 && outcome.exit_code == 1) {
    status = "failed";
    reason = failure_reason(*outcome.results);
  } else {
    reason = error_reason(outcome);
  }
  row["status"] = status;
  row["exit_code"] = outcome.exit_code;
  row["reason"] = reason.empty() ? Row() : Row(one_line(reason, 500));
  row["wall_seconds"] = outcome.wall_seconds;
  for (const auto& m : metrics()) {
    row[m.column] = nullptr;
    if (!has_results) continue;
    try {
      row[m.column] = Row(m.metric(*outcome.results));
    } catch (const nlohmann::json::exception&) {
      // A field of another type than results.md says (a results.json from elsewhere): no value.
    }
  }
  return row;
}

std::string csv_header(const std::vector<std::string>& columns) {
  std::string line;
  for (std::size_t i = 0; i < columns.size(); ++i) line += (i ? "," : "") + csv_cell(Row(columns[i]));
  return line + "\n";
}

std::string csv_line(const Row& row, const std::vector<std::string>& columns) {
  std::string line;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i) line += ",";
    if (row.contains(columns[i])) line += csv_cell(row[columns[i]]);
  }
  return line + "\n";
}

}  // namespace ftsim::sweep
