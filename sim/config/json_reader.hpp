#pragma once
// JsonReader: typed, path-tracking access to a JSON document. Every accessor that finds bad
// input throws ConfigError naming the file and the JSON pointer of the offending value.
// An object reader remembers which keys were asked for; finish() rejects the others with a
// "did you mean" hint, so a typo is never silently ignored.
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "config_error.hpp"
#include "input_file.hpp"

namespace ftsim::config {

using Json = nlohmann::json;

// Objects and arrays nest at most this deep (a config or a graph file needs 6 levels).
inline constexpr std::size_t kMaxJsonDepth = 64;

// Parses a JSON file (a regular file of at most max_bytes, see input_file.hpp); syntax errors
// become ConfigError with line and column, a key given twice or nesting deeper than
// kMaxJsonDepth a ConfigError with the JSON pointer. A UTF-8 byte order mark is skipped.
Json read_json_file(const std::string& path, std::uint64_t max_bytes = kMaxConfigFileBytes);
Json parse_json_text(const std::string& text, const std::string& origin);

// The closest candidate by edit distance, if it is close enough to be a plausible typo.
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates);

class JsonReader {
public:
  JsonReader(const Json& value, std::string file, std::string pointer = "");

  const Json& json() const { return *value_; }
  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  // The pointer, or "/" for the document root, as printed in messages.
  std::string where() const;

  [[noreturn]] void fail(const std::string& message) const;
  // "expected <what>, got <json text of the value>"
  [[noreturn]] void fail_expected(const std::string& what) const;

  // --- Scalars (the value this reader points at) ---
  bool as_bool() const;
  std::string as_string() const;
  std::int64_t as_int(std::int64_t min = INT64_MIN, std::int64_t max = INT64_MAX) const;
  double as_number(double min = -1e308, double max = 1e308) const;
  double as_positive_number() const;
  std::uint64_t as_bytes() const;      // non-negative size with optional unit
  double as_seconds() const;           // duration with optional unit, from 0 to kMaxSeconds
  double as_positive_seconds() const;
  double as_bandwidth() const;         // bytes per second, from kMinBandwidth to kMaxBandwidth
  // One of the given words; a near miss gets a hint.
  std::string as_choice(std::initializer_list<std::string_view> choices) const;
  std::string as_choice(const std::vector<std::string>& choices) const;

  // --- Objects ---
  void expect_object() const;
  bool is_object() const { return value_->is_object(); }
  bool is_array() const { return value_->is_array(); }
  bool is_string() const { return value_->is_string(); }
  bool is_number() const { return value_->is_number(); }
  // Declares a key as known (for "did you mean" hints) and says whether it is present.
  bool has(const std::string& key);
  // A member that must be present.
  JsonReader at(const std::string& key);
  // A member that may be absent.
  std::optional<JsonReader> find(const std::string& key);
  // Rejects keys that no accessor asked for.
  void finish() const;
  // Fails unless exactly one of the keys is present; returns it.
  std::string one_of(std::initializer_list<std::string> keys);

  // --- Arrays ---
  std::size_t size() const;  // requires an array
  JsonReader operator[](std::size_t index) const;

private:
  double read_seconds(bool positive) const;
  JsonReader child(const Json& value, const std::string& token) const;

  const Json* value_;
  std::string file_;
  std::string pointer_;
  std::shared_ptr<std::set<std::string>> known_keys_ = std::make_shared<std::set<std::string>>();
};

// Escapes a key for use in a JSON pointer (RFC 6901: "~" -> "~0", "/" -> "~1").
std::string escape_pointer_token(std::string_view token);

}  // namespace ftsim::config
