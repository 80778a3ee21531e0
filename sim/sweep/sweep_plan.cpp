#include "sim/sweep/sweep_plan.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "graphs/size_check.hpp"
#include "protocols/registry.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/json_reader.hpp"
#include "sim/config/relative_paths.hpp"
#include "sim/config/units.hpp"

namespace ftsim::sweep {

namespace {

using config::ConfigError;
using config::JsonReader;

// "/protocol/type" or "protocol.type" (config_key.hpp).
SweepKey parse_key(const std::string& text, const JsonReader& list) {
  std::string problem;
  const auto parsed = config::parse_config_key(text, problem);
  if (!parsed) list.fail(problem);
  SweepKey key;
  static_cast<config::ConfigKey&>(key) = *parsed;
  key.source = list.pointer();
  if (key.tokens.front() == "sweep") list.fail("a sweep cannot vary its own \"sweep\" section");
  return key;
}

// The values of one key: a non-empty array.
std::vector<Json> read_values(const JsonReader& list) {
  if (!list.is_array() || list.size() == 0) list.fail_expected("a non-empty array of the values this key takes");
  return std::vector<Json>(list.json().begin(), list.json().end());
}

// Sets key to value in document: missing objects on the way are created, array elements must exist.
void set_key(Json& document, const SweepKey& key, const Json& value, const std::string& file) {
  if (auto problem = config::set_config_key(document, key, value, "the base config")) throw ConfigError(file, key.source, *problem);
}

// An object value becomes one column per leaf; anything else (arrays included) is one cell.
void flatten(const std::string& column, const Json& value, std::vector<std::pair<std::string, Json>>& out) {
  if (value.is_object() && !value.empty()) {
    for (const auto& [key, member] : value.items()) flatten(column + "." + key, member, out);
  } else {
    out.emplace_back(column, value);
  }
}

// A string quantity with its unit, in SI units: ("_s", seconds), ("_bytes", bytes) or ("_Bps",
// bytes per second); nothing for anything else (a plain number needs no second column).
std::optional<std::pair<std::string, double>> si_quantity(const Json& value) {
  if (!value.is_string()) return std::nullopt;
  const std::string text = value.get<std::string>();
  if (!config::names_a_unit(text)) return std::nullopt;
  if (auto seconds = config::parse_duration_seconds(text)) return std::make_pair(std::string("_s"), *seconds);
  if (auto bytes = config::parse_size_bytes(text)) return std::make_pair(std::string("_bytes"), *bytes);
  if (auto rate = config::parse_bandwidth_bytes_per_second(text)) return std::make_pair(std::string("_Bps"), *rate);
  return std::nullopt;
}

// FNV-1a, 64 bits: a stable hash of the point's config text (nlohmann writes object keys sorted).
std::string hash_id(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", hash);
}

// The keys that name or describe an experiment without changing what runs: not part of the id, so
// that editing a description keeps the rows of a resumed sweep.
Json without_labels(Json document) {
  document.erase("name");
  document.erase("description");
  document.erase("$schema");
  return document;
}

}  // namespace

bool has_sweep_section(const Json& document) { return document.is_object() && document.contains("sweep"); }

SweepPlan SweepPlan::load(const std::string& path, const std::vector<config::ConfigOverride>& overrides) {
  try {
    return load_with(path, overrides);
  } catch (const ConfigError& e) {
    throw config::name_override(e, overrides, path);
  }
}

SweepPlan SweepPlan::load_with(const std::string& path, const std::vector<config::ConfigOverride>& overrides) {
  SweepPlan plan;
  plan.file_ = path;
  Json document = config::read_json_file(path);
  config::apply_overrides(document, overrides);
  JsonReader root(document, path);
  root.expect_object();
  if (!document.contains("sweep")) root.fail("missing required key \"sweep\": `ftsim sweep` needs a config with a sweep section (docs/sweeps.md)");
  plan.base_ = document;
  plan.base_.erase("sweep");
  plan.name_ = std::filesystem::path(path).stem().string();
  if (document.contains("name") && document["name"].is_string() && !document["name"].get<std::string>().empty()) {
    plan.name_ = document["name"].get<std::string>();
  }

  JsonReader section = root.at("sweep");
  section.expect_object();
  // Axes, slowest first: the zip groups, the grid keys (in the order nlohmann keeps object keys:
  // sorted), the seeds.
  if (auto zip = section.find("zip")) {
    std::vector<JsonReader> groups;
    if (zip->is_array()) {
      if (zip->size() == 0) zip->fail_expected("a non-empty array of zip groups (objects of lists of one length)");
      for (std::size_t g = 0; g < zip->size(); ++g) groups.push_back((*zip)[g]);
    } else {
      groups.push_back(*zip);
    }
    for (auto& group : groups) {
      if (!group.is_object() || group.json().empty()) {
        group.fail_expected("a zip group: a non-empty object of lists of one length, e.g. {\"application.type\": [...], \"platform.nodes\": [...]}");
      }
      Axis axis;
      std::string first;
      for (const auto& [text, unused] : group.json().items()) {
        JsonReader list = group.at(text);
        axis.keys.push_back(parse_key(text, list));
        axis.values.push_back(read_values(list));
        if (axis.values.size() == 1) {
          first = list.pointer();
        } else if (axis.values.back().size() != axis.values.front().size()) {
          const std::size_t expected = axis.values.front().size();
          list.fail(fmt::format("expected {} value{}, as many as {} (a zip group varies its lists together), got {}", expected,
                                expected == 1 ? "" : "s", first, axis.values.back().size()));
        }
      }
      group.finish();
      plan.axes_.push_back(std::move(axis));
    }
  }
  if (auto grid = section.find("grid")) {
    if (!grid->is_object() || grid->json().empty()) {
      grid->fail_expected("a non-empty object of lists of values, e.g. {\"/protocol/type\": [\"none\", \"lineage\"]}");
    }
    for (const auto& [text, unused] : grid->json().items()) {
      JsonReader list = grid->at(text);
      Axis axis;
      axis.keys.push_back(parse_key(text, list));
      axis.values.push_back(read_values(list));
      plan.axes_.push_back(std::move(axis));
    }
    grid->finish();
  }
  bool section_has_seeds = false;
  if (auto seeds = section.find("seeds")) {
    section_has_seeds = true;
    Axis axis;
    SweepKey key;
    key.tokens = {"seed"};
    key.pointer = "/seed";
    key.column = "seed";
    key.source = seeds->pointer();
    std::vector<Json> values;
    if (seeds->is_array()) {
      if (seeds->size() == 0) seeds->fail_expected("a count of seeds, or a non-empty array of seeds");
      for (std::size_t i = 0; i < seeds->size(); ++i) values.push_back((*seeds)[i].as_int(0));
    } else {
      const auto count = seeds->as_int(1, std::int64_t(kMaxPoints));
      for (std::int64_t s = 1; s <= count; ++s) values.push_back(s);  // seeds 1 .. N (1 is the default seed)
    }
    axis.keys.push_back(key);
    axis.values.push_back(std::move(values));
    plan.axes_.push_back(std::move(axis));
  }
  section.finish();
  if (plan.axes_.empty()) section.fail("expected at least one of \"grid\", \"zip\" and \"seeds\"");

  // Each key once, and no key inside another (which would set it twice, in an order).
  std::vector<const SweepKey*> keys;
  for (const auto& axis : plan.axes_) {
    for (const auto& key : axis.keys) keys.push_back(&key);
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (config::contains_key(*keys[j], *keys[i]) || config::contains_key(*keys[i], *keys[j])) {
        const bool same = keys[i]->tokens.size() == keys[j]->tokens.size();
        throw ConfigError(path, keys[i]->source,
                          same ? fmt::format("{} is varied twice: here and at {}", keys[i]->pointer, keys[j]->source)
                               : fmt::format("{} overlaps {}, varied at {}: a key may not be varied inside another varied key",
                                             keys[i]->pointer, keys[j]->pointer, keys[j]->source));
      }
    }
  }

  // An override inside a varied key would be replaced by every point's value.
  for (const auto& o : overrides) {
    for (const SweepKey* key : keys) {
      if (config::contains_key(*key, o.key)) {
        throw ConfigError(o.text, "", fmt::format("{} is varied by the sweep ({}): every point sets it", o.key.pointer, key->source));
      }
    }
  }

  double product = 1;
  for (const auto& axis : plan.axes_) product *= double(axis.size());
  if (product > double(kMaxPoints)) {
    section.fail(fmt::format("expected at most {} points (the product of the axes' lengths), got {:.3g}", kMaxPoints, product));
  }
  const auto total = static_cast<std::uint64_t>(product);

  // Enumerate: the first axis varies slowest, as in nested loops.
  std::map<std::string, std::size_t> index_of_id;
  std::vector<std::uint32_t> positions(plan.axes_.size(), 0);
  for (std::uint64_t index = 0; index < total; ++index) {
    std::uint64_t rest = index;
    for (std::size_t a = plan.axes_.size(); a-- > 0;) {
      positions[a] = static_cast<std::uint32_t>(rest % plan.axes_[a].size());
      rest /= plan.axes_[a].size();
    }
    Point point;
    point.index = index;
    point.positions = positions;
    Json document = plan.with_values(point);
    point.id = hash_id(without_labels(document).dump());
    const auto [found, fresh] = index_of_id.emplace(point.id, index);
    if (!fresh) {
      throw ConfigError(path, "/sweep",
                        fmt::format("points {} and {} are the same config ({}; {}): remove the repeated value", found->second, index,
                                    plan.describe(plan.points_[found->second]), plan.describe(point)));
    }
    plan.points_.push_back(std::move(point));
  }

  // Columns: every flattened leaf of every key's values, in axis order, each leaf where it first appears.
  for (const auto& axis : plan.axes_) {
    for (std::size_t k = 0; k < axis.keys.size(); ++k) {
      for (const auto& value : axis.values[k]) {
        std::vector<std::pair<std::string, Json>> cells;
        flatten(axis.keys[k].column, value, cells);
        for (const auto& cell : cells) {
          if (std::find(plan.varied_columns_.begin(), plan.varied_columns_.end(), cell.first) == plan.varied_columns_.end()) {
            plan.varied_columns_.push_back(cell.first);
          }
        }
      }
    }
  }

  // Row columns: a column whose every value is a string quantity of one kind gets its SI column.
  for (const auto& column : plan.varied_columns_) {
    std::optional<std::string> suffix;
    bool uniform = true;
    for (const auto& point : plan.points_) {
      for (const auto& [cell_column, value] : plan.varied_values(point)) {
        if (cell_column != column) continue;
        const auto quantity = si_quantity(value);
        if (!quantity || (suffix && *suffix != quantity->first)) uniform = false;
        if (quantity && !suffix) suffix = quantity->first;
      }
    }
    plan.row_varied_columns_.push_back(column);
    if (uniform && suffix) {
      plan.si_suffix_[column] = *suffix;
      plan.row_varied_columns_.push_back(column + *suffix);
    }
  }

  // Every point must load as `ftsim run` would load it: a bad point stops the sweep before it starts.
  bool random = false;  // some point draws something from its seed
  for (const auto& point : plan.points_) {
    try {
      const config::Config config = protocols::load_config_json(plan.point_config(point), path);
      const auto model = config.failures.model;
      const protocols::ProtocolModule& module = protocols::protocol_module(config);
      random = random || model == config::FailureModel::exponential || model == config::FailureModel::weibull ||
               model == config::FailureModel::log || (module.draws_at_random && module.draws_at_random(config));
      graphs::check_application_size(config);
      if (config.platform.core_gflops.empty() && !config.platform.default_core_gflops && config.platform.kernel_models.empty()) {
        throw ConfigError(path, "/platform", "a timed run needs kernel speeds: add \"core_gflops\"");
      }
    } catch (const ConfigError& e) {
      throw ConfigError(e.file(), e.pointer(),
                        fmt::format("{} (in sweep point {} of {}: {})", e.message(), point.index, total, plan.describe(point)));
    }
  }
  if (section_has_seeds && !random) {
    plan.warnings_.push_back(path + ": /sweep/seeds: the points of each seed are identical: this config draws nothing "
                             "at random (its failures are listed, not drawn from /failures/model exponential, weibull "
                             "or log, and its protocol draws nothing)");
  }
  return plan;
}

Json SweepPlan::with_values(const Point& point) const {
  Json document = base_;
  for (std::size_t a = 0; a < axes_.size(); ++a) {
    for (std::size_t k = 0; k < axes_[a].keys.size(); ++k) set_key(document, axes_[a].keys[k], axes_[a].values[k][point.positions[a]], file_);
  }
  return document;
}

Json SweepPlan::point_config(const Point& point) const {
  Json document = with_values(point);
  document["name"] = name_ + "-" + point.id;
  document.erase("$schema");  // a path relative to the sweep file
  return config::with_absolute_file_paths(std::move(document), file_);
}

std::vector<std::pair<std::string, Json>> SweepPlan::varied_values(const Point& point) const {
  std::vector<std::pair<std::string, Json>> cells;
  for (std::size_t a = 0; a < axes_.size(); ++a) {
    for (std::size_t k = 0; k < axes_[a].keys.size(); ++k) flatten(axes_[a].keys[k].column, axes_[a].values[k][point.positions[a]], cells);
  }
  return cells;
}

std::vector<std::pair<std::string, Json>> SweepPlan::row_varied_values(const Point& point) const {
  std::vector<std::pair<std::string, Json>> cells;
  for (auto& [column, value] : varied_values(point)) {
    auto suffix = si_suffix_.find(column);
    const auto quantity = suffix == si_suffix_.end() ? std::nullopt : si_quantity(value);
    cells.emplace_back(column, std::move(value));
    if (quantity) cells.emplace_back(column + suffix->second, quantity->second);
  }
  return cells;
}

std::string SweepPlan::describe(const Point& point) const {
  std::string text;
  for (const auto& [column, value] : varied_values(point)) {
    std::string shown = value.is_string() ? value.get<std::string>() : value.dump();
    if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
    text += (text.empty() ? "" : ", ") + column + "=" + shown;
  }
  return text;
}

}  // namespace ftsim::sweep
