#include "json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "input_file.hpp"
#include "units.hpp"

namespace ftsim::config {

namespace {

std::string short_json(const Json& value) {
  std::string text = value.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                  std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Line and column (1-based) of a byte offset, for syntax errors.
std::pair<std::size_t, std::size_t> line_column(const std::string& text, std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

}  // namespace

std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = SIZE_MAX;
  for (const auto& candidate : candidates) {
    std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  // A plausible typo: at most a third of the word differs (and at least one edit allowed).
  std::size_t allowed = std::max<std::size_t>(1, (word.size() + 2) / 3);
  if (best && best_distance <= allowed) return best;
  return std::nullopt;
}

namespace {

// Thrown while building the document; becomes a ConfigError naming the document.
struct StructureError {
  std::string pointer;
  std::string message;
};

// A SAX handler that builds the document as nlohmann's parser does and knows the JSON pointer of
// each value: it rejects a key given twice in an object (nlohmann keeps the last one silently)
// and nesting deeper than kMaxJsonDepth (copies and dumps of a document recurse: 10^6 levels
// overflow the stack). nlohmann's parser callback could do the same but is quadratic in the
// length of an array of objects (it rescans the array after each object).
class DocumentBuilder {
public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  explicit DocumentBuilder(Json& root) : root_(root) {}

  bool null() { return add(nullptr); }
  bool boolean(bool value) { return add(value); }
  bool number_integer(number_integer_t value) { return add(value); }
  bool number_unsigned(number_unsigned_t value) { return add(value); }
  bool number_float(number_float_t value, const string_t& /*text*/) { return add(value); }
  bool string(string_t& value) { return add(std::move(value)); }
  bool binary(binary_t& value) { return add(Json::binary(std::move(value))); }

  bool start_object(std::size_t /*size*/) { return open(Json::object(), false); }
  bool start_array(std::size_t /*size*/) { return open(Json::array(), true); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(string_t& name) {
    Frame& object = frames_.back();
    object.key = name;
    if (!object.add_key(name)) {
      throw StructureError{pointer(), "duplicate key \"" + name + "\" (JSON would silently keep the last value)"};
    }
    object_member_ = &(*object.value)[name];
    return true;
  }

  // Syntax errors: rethrown with their own type (parse_error, out_of_range) and position.
  template <class Exception>
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/, const Exception& error) {
    throw error;
  }

private:
  struct Frame {
    Json* value;
    bool array;
    std::size_t index = 0;  // arrays: the element being parsed
    std::string key;        // objects: the member being parsed
    // Objects: the keys so far; most objects have a few, a set takes over beyond that.
    std::vector<std::string> few_keys;
    std::set<std::string> many_keys;

    bool add_key(const std::string& name) {
      if (!many_keys.empty()) return many_keys.insert(name).second;
      if (std::find(few_keys.begin(), few_keys.end(), name) != few_keys.end()) return false;
      few_keys.push_back(name);
      if (few_keys.size() > 16) {
        many_keys.insert(few_keys.begin(), few_keys.end());
        few_keys.clear();
      }
      return true;
    }
  };

  // Places a value where the parser is: the root, the next element of an array or the member
  // of an object whose key was just read.
  template <class Value>
  Json* place(Value&& value) {
    if (frames_.empty()) {
      root_ = Json(std::forward<Value>(value));
      return &root_;
    }
    Frame& parent = frames_.back();
    if (parent.array) {
      parent.value->emplace_back(std::forward<Value>(value));
      return &parent.value->back();
    }
    *object_member_ = Json(std::forward<Value>(value));
    return object_member_;
  }

  template <class Value>
  bool add(Value&& value) {
    place(std::forward<Value>(value));
    element_done();
    return true;
  }

  bool open(Json&& empty, bool array) {
    if (frames_.size() >= kMaxJsonDepth) {
      throw StructureError{pointer(), "expected at most " + std::to_string(kMaxJsonDepth) +
                                          " levels of nested objects and arrays, got more"};
    }
    Json* value = place(std::move(empty));
    frames_.push_back(Frame{value, array, 0, {}, {}, {}});
    return true;
  }

  bool close() {
    frames_.pop_back();
    element_done();
    return true;
  }

  void element_done() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }

  std::string pointer() const {
    std::string text;
    for (const Frame& frame : frames_) {
      text += "/" + (frame.array ? std::to_string(frame.index) : escape_pointer_token(frame.key));
    }
    return text.empty() ? "/" : text;
  }

  Json& root_;
  std::vector<Frame> frames_;
  Json* object_member_ = nullptr;
};

}  // namespace

Json parse_json_text(const std::string& text, const std::string& origin) {
  try {
    Json document;
    DocumentBuilder builder(document);
    Json::sax_parse(text, &builder);
    return document;
  } catch (const StructureError& error) {
    throw ConfigError(origin, error.pointer, error.message);
  } catch (const Json::parse_error& error) {
    auto [line, column] = line_column(text, error.byte == 0 ? 0 : error.byte - 1);
    std::string what = error.what();
    // nlohmann's message starts with "[json.exception.parse_error.101] parse error at line..."
    auto colon = what.find("syntax error");
    std::string reason = colon == std::string::npos ? what : what.substr(colon);
    throw ConfigError(origin, "",
                      "invalid JSON at line " + std::to_string(line) + ", column " +
                          std::to_string(column) + ": " + reason);
  } catch (const Json::exception& error) {
    // Not a syntax error but a value nlohmann cannot hold, e.g. "number overflow parsing
    // '1e400'" (out_of_range.406), which carries no position: locate the quoted token instead.
    std::string what = error.what();
    auto bracket = what.find("] ");
    std::string reason = bracket == std::string::npos ? what : what.substr(bracket + 2);
    std::string where;
    auto open = reason.find('\''), close = reason.rfind('\'');
    if (open != std::string::npos && close > open + 1) {
      auto offset = text.find(reason.substr(open + 1, close - open - 1));
      if (offset != std::string::npos) {
        auto [line, column] = line_column(text, offset);
        where = " at line " + std::to_string(line) + ", column " + std::to_string(column);
      }
    }
    throw ConfigError(origin, "", "invalid JSON" + where + ": " + reason);
  }
}

Json read_json_file(const std::string& path, std::uint64_t max_bytes) {
  return parse_json_text(read_input_file(path, max_bytes), path);
}

std::string escape_pointer_token(std::string_view token) {
  std::string escaped;
  for (char c : token) {
    if (c == '~') {
      escaped += "~0";
    } else if (c == '/') {
      escaped += "~1";
    } else {
      escaped += c;
    }
  }
  return escaped;
}

JsonReader::JsonReader(const Json& value, std::string file, std::string pointer)
    : value_(&value), file_(std::move(file)), pointer_(std::move(pointer)) {}

std::string JsonReader::where() const { return pointer_.empty() ? "/" : pointer_; }

void JsonReader::fail(const std::string& message) const {
  throw ConfigError(file_, where(), message);
}

void JsonReader::fail_expected(const std::string& what) const {
  fail("expected " + what + ", got " + short_json(*value_));
}

JsonReader JsonReader::child(const Json& value, const std::string& token) const {
  return JsonReader(value, file_, pointer_ + "/" + escape_pointer_token(token));
}

bool JsonReader::as_bool() const {
  if (!value_->is_boolean()) fail_expected("true or false");
  return value_->get<bool>();
}

std::string JsonReader::as_string() const {
  if (!value_->is_string()) fail_expected("a string");
  return value_->get<std::string>();
}

std::int64_t JsonReader::as_int(std::int64_t min, std::int64_t max) const {
  std::string range;
  if (min == INT64_MIN && max == INT64_MAX) {
    range = "an integer";
  } else if (min == 0 && max == INT64_MAX) {
    range = "a non-negative integer";
  } else if (min == 1 && max == INT64_MAX) {
    range = "a positive integer";
  } else if (max == INT64_MAX) {
    range = "an integer >= " + std::to_string(min);
  } else if (min == INT64_MIN) {
    range = "an integer <= " + std::to_string(max);
  } else {
    range = "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  }
  std::int64_t value = 0;
  if (value_->is_number_integer()) {
    if (value_->is_number_unsigned() && value_->get<std::uint64_t>() > INT64_MAX) fail_expected(range);
    value = value_->get<std::int64_t>();
  } else if (value_->is_number_float()) {
    double number = value_->get<double>();
    if (std::floor(number) != number || std::fabs(number) > 9e18) fail_expected(range);
    value = static_cast<std::int64_t>(number);
  } else {
    fail_expected(range);
  }
  if (value < min || value > max) fail_expected(range);
  return value;
}

double JsonReader::as_number(double min, double max) const {
  if (!value_->is_number()) fail_expected("a number");
  double value = value_->get<double>();
  if (value < min || value > max) fail_expected("a number in [" + format_number(min) + ", " + format_number(max) + "]");
  return value;
}

double JsonReader::as_positive_number() const {
  if (!value_->is_number() || !(value_->get<double>() > 0)) fail_expected("a positive number");
  return value_->get<double>();
}

std::uint64_t JsonReader::as_bytes() const {
  std::optional<double> bytes;
  if (value_->is_number()) bytes = value_->get<double>();
  if (value_->is_string()) bytes = parse_size_bytes(value_->get<std::string>());
  if (!bytes) fail_expected(kSizeUnitsHelp);
  if (value_->is_string() && !names_a_unit(value_->get<std::string>())) {
    fail_expected("a size string with its unit, e.g. \"" + value_->get<std::string>() + "B\" (or the number " +
                  value_->get<std::string>() + ", without quotes, in bytes)");
  }
  if (*bytes < 0) fail_expected("a non-negative size");
  if (*bytes > 1.8e19) fail_expected("a size below 16 EiB");
  // std::round, not std::llround: sizes from 2^63 to 1.8e19 do not fit a long long.
  return static_cast<std::uint64_t>(std::round(*bytes));
}

double JsonReader::read_seconds(bool positive) const {
  std::optional<double> seconds;
  if (value_->is_number()) seconds = value_->get<double>();
  if (value_->is_string()) seconds = parse_duration_seconds(value_->get<std::string>());
  if (!seconds) fail_expected(kDurationUnitsHelp);
  if (value_->is_string() && !names_a_unit(value_->get<std::string>())) {
    fail_expected("a duration string with its unit, e.g. \"" + value_->get<std::string>() + "s\" (or the number " +
                  value_->get<std::string>() + ", without quotes, in seconds)");
  }
  // The rule the key has, whatever the value's sign: > 0 or >= 0.
  if (positive ? !(*seconds > 0) : *seconds < 0) fail_expected(positive ? "a positive duration (> 0)" : "a non-negative duration (>= 0)");
  if (!(*seconds <= kMaxSeconds)) fail_expected("a duration of at most " + format_number(kMaxSeconds) + " s (about 32 million years)");
  return *seconds;
}

double JsonReader::as_seconds() const { return read_seconds(false); }

double JsonReader::as_positive_seconds() const { return read_seconds(true); }

double JsonReader::as_bandwidth() const {
  std::optional<double> bandwidth;
  if (value_->is_number()) bandwidth = value_->get<double>();
  if (value_->is_string()) bandwidth = parse_bandwidth_bytes_per_second(value_->get<std::string>());
  if (!bandwidth) fail_expected(kBandwidthUnitsHelp);
  if (value_->is_string() && !names_a_unit(value_->get<std::string>())) {
    fail_expected("a bandwidth string with its unit, e.g. \"" + value_->get<std::string>() + "B/s\" (or the number " +
                  value_->get<std::string>() + ", without quotes, in bytes per second)");
  }
  if (!(*bandwidth >= kMinBandwidth && *bandwidth <= kMaxBandwidth)) {
    fail_expected("a bandwidth from 1 KB/s to 1 EB/s (" + format_number(kMinBandwidth) + " to " + format_number(kMaxBandwidth) +
                  " bytes per second)");
  }
  return *bandwidth;
}

std::string JsonReader::as_choice(std::initializer_list<std::string_view> choices) const {
  return as_choice(std::vector<std::string>(choices.begin(), choices.end()));
}

std::string JsonReader::as_choice(const std::vector<std::string>& names) const {
  std::string list;
  for (const auto& name : names) list += (list.empty() ? "\"" : ", \"") + name + "\"";
  if (!value_->is_string()) fail_expected("one of " + list);
  std::string value = value_->get<std::string>();
  if (std::find(names.begin(), names.end(), value) != names.end()) return value;
  std::string message = "unknown value \"" + value + "\"";
  if (auto hint = closest_match(value, names)) message += " (did you mean \"" + *hint + "\"?)";
  fail(message + "; expected one of " + list);
}

void JsonReader::expect_object() const {
  if (!value_->is_object()) fail_expected("an object");
}

bool JsonReader::has(const std::string& key) {
  expect_object();
  known_keys_->insert(key);
  return value_->contains(key);
}

JsonReader JsonReader::at(const std::string& key) {
  if (!has(key)) {
    // A misspelt required key would otherwise only be reported as missing: point at the typo.
    std::vector<std::string> unread;
    for (const auto& item : value_->items()) {
      if (!known_keys_->count(item.key())) unread.push_back(item.key());
    }
    std::string message = "missing required key \"" + key + "\"";
    if (auto typo = closest_match(key, unread)) message += " (is \"" + *typo + "\" a misspelling of it?)";
    fail(message);
  }
  return child((*value_)[key], key);
}

std::optional<JsonReader> JsonReader::find(const std::string& key) {
  if (!has(key)) return std::nullopt;
  return child((*value_)[key], key);
}

std::string JsonReader::one_of(std::initializer_list<std::string> keys) {
  std::vector<std::string> present;
  std::string list;
  for (const auto& key : keys) {
    if (has(key)) present.push_back(key);
    list += (list.empty() ? "\"" : ", \"") + key + "\"";
  }
  if (present.size() != 1) {
    fail(present.empty() ? "expected one of the keys " + list
                         : "expected only one of the keys " + list + ", got both \"" +
                               present[0] + "\" and \"" + present[1] + "\"");
  }
  return present[0];
}

void JsonReader::finish() const {
  expect_object();
  std::vector<std::string> known(known_keys_->begin(), known_keys_->end());
  for (const auto& item : value_->items()) {
    if (known_keys_->count(item.key())) continue;
    std::string message = "unknown key \"" + item.key() + "\"";
    if (auto hint = closest_match(item.key(), known)) message += " (did you mean \"" + *hint + "\"?)";
    std::string list;
    for (const auto& name : known) list += (list.empty() ? "" : ", ") + name;
    message += "; known keys here: " + list;
    throw ConfigError(file_, pointer_ + "/" + escape_pointer_token(item.key()), message);
  }
}

std::size_t JsonReader::size() const {
  if (!value_->is_array()) fail_expected("an array");
  return value_->size();
}

JsonReader JsonReader::operator[](std::size_t index) const {
  if (!value_->is_array()) fail_expected("an array");
  return child((*value_)[index], std::to_string(index));
}

}  // namespace ftsim::config
