#pragma once
// The points of a sweep (docs/sweeps.md): a config with a "sweep" section is a base config (the
// rest of the file) and axes that set keys of it. An axis is a grid key (a list of values), a zip
// group (lists of one length, varied together) or the seeds; the points are the cartesian product
// of the axes, the first axis varying slowest. Each point has an index (its place in that order)
// and an id: a hash of its config, which stays the same when the sweep grows, so that a resumed
// sweep recognises the points it has already run.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/config_key.hpp"
#include "sim/config/config_overrides.hpp"

namespace ftsim::sweep {

using Json = nlohmann::json;

// Beyond this many points a sweep is refused (each point is a process and a row).
inline constexpr std::uint64_t kMaxPoints = 1'000'000;

// A key that the sweep sets in the base config (its column name is the dotted path).
struct SweepKey : config::ConfigKey {
  std::string source;  // pointer of its list in the sweep file: "/sweep/grid/protocol.type"
};

struct Axis {
  std::vector<SweepKey> keys;
  std::vector<std::vector<Json>> values;  // values[k][i]: the value of keys[k] at position i
  std::size_t size() const { return values.empty() ? 0 : values.front().size(); }
};

struct Point {
  std::size_t index = 0;
  std::string id;                        // 16 hex digits
  std::vector<std::uint32_t> positions;  // one per axis
};

class SweepPlan {
public:
  // Reads the config file and its sweep section, enumerates the points and checks that every
  // point's config loads. Throws config::ConfigError naming the file and the JSON pointer (for a
  // point, with its index and varied values). `overrides` (--set, --cfg) are set in the file's
  // document first, the sweep section included; a key the sweep varies cannot be overridden.
  static SweepPlan load(const std::string& path, const std::vector<config::ConfigOverride>& overrides = {});

  const std::string& file() const { return file_; }
  const std::string& name() const { return name_; }
  const std::vector<Point>& points() const { return points_; }
  // The columns of the varied keys, in axis order; an object value is flattened into one column
  // per leaf ("protocol.type", "protocol.at", ...).
  const std::vector<std::string>& varied_columns() const { return varied_columns_; }

  // The point's config document, ready to be written anywhere (file paths made absolute).
  Json point_config(const Point& point) const;
  // The point's varied values by column, flattened as varied_columns() (absent leaves omitted).
  std::vector<std::pair<std::string, Json>> varied_values(const Point& point) const;
  // "protocol.type=buddy, application.type=cg": the point in messages.
  std::string describe(const Point& point) const;

  // The varied columns of the rows: varied_columns(), each column whose values are strings with a
  // unit followed by its number in SI units ("protocol.period" "0.1s" -> "protocol.period_s" 0.1;
  // "_bytes" for sizes, "_Bps" for bandwidths in bytes per second), so that plots need no parsing.
  const std::vector<std::string>& row_varied_columns() const { return row_varied_columns_; }
  // What is legal but likely not meant (e.g. a seeds axis over a config that draws nothing at random).
  const std::vector<std::string>& warnings() const { return warnings_; }
  std::vector<std::pair<std::string, Json>> row_varied_values(const Point& point) const;

private:
  static SweepPlan load_with(const std::string& path, const std::vector<config::ConfigOverride>& overrides);
  Json with_values(const Point& point) const;  // the base config with the point's values set

  std::string file_;
  std::string name_;
  Json base_;  // the document without "sweep"
  std::vector<Axis> axes_;
  std::vector<Point> points_;
  std::vector<std::string> varied_columns_;
  std::vector<std::string> row_varied_columns_;
  std::map<std::string, std::string> si_suffix_;  // varied column -> the suffix of its SI column
  std::vector<std::string> warnings_;
};

// Whether a parsed config document has a sweep section.
bool has_sweep_section(const Json& document);

}  // namespace ftsim::sweep
