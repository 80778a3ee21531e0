#include "analysis/trace_json_reader.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>

#include "analysis/trace_builder.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/input_file.hpp"
#include "sim/config/json_reader.hpp"

namespace ftsim::analysis {

namespace {

// A syntax error at a byte offset of the text.
struct SyntaxError {
  std::size_t offset;
  std::string message;
};

struct Number {
  bool is_integer = false;
  std::int64_t integer = 0;  // if is_integer and it fits
  bool integer_overflow = false;
  double value = 0;
  std::string_view text;
};

// A pull parser over JSON text: the reader asks for what it expects next. Strings without
// escapes are views into the text; others are decoded into a scratch buffer.
class Cursor {
public:
  explicit Cursor(std::string_view text) : begin_(text.data()), at_(text.data()), end_(text.data() + text.size()) {
    if (text.size() >= 3 && std::memcmp(at_, "\xEF\xBB\xBF", 3) == 0) at_ += 3;  // UTF-8 byte order mark
  }

  std::size_t offset() const { return std::size_t(at_ - begin_); }
  [[noreturn]] void fail(const std::string& message) const { throw SyntaxError{offset(), message}; }

  void skip_space() {
    while (at_ < end_ && (*at_ == ' ' || *at_ == '\n' || *at_ == '\r' || *at_ == '\t')) ++at_;
  }
  bool at_end() {
    skip_space();
    return at_ == end_;
  }
  char peek() {
    skip_space();
    return at_ < end_ ? *at_ : '\0';
  }
  bool consume(char c) {
    if (peek() != c) return false;
    ++at_;
    return true;
  }
  void expect(char c, const char* what) {
    if (!consume(c)) fail(std::string("expected ") + what + ", found " + found());
  }
  // What is at the cursor, for messages.
  std::string found() {
    skip_space();
    if (at_ == end_) return "the end of the text";
    const char c = *at_;
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) return "an unexpected byte";
    return std::string("'") + c + "'";
  }

  // After '{' or ',' inside an object: true and the key if there is one, false at '}'.
  // `first` says whether a member was already read.
  bool next_key(bool first, std::string_view& key, std::string& scratch) {
    if (consume('}')) return false;
    if (!first) expect(',', "',' or '}'");
    if (peek() != '"') fail("expected a key (a string), found " + found());
    key = string(scratch);
    expect(':', "':'");
    return true;
  }
  // After '[' or ',' inside an array: true if an element follows, false at ']'.
  bool next_element(bool first) {
    if (consume(']')) return false;
    if (!first) expect(',', "',' or ']'");
    return true;
  }

  bool is_string() { return peek() == '"'; }

  std::string_view string(std::string& scratch) {
    if (peek() != '"') fail("expected a string, found " + found());
    ++at_;
    const char* start = at_;
    bool plain = true;
    while (at_ < end_ && *at_ != '"') {
      const auto c = static_cast<unsigned char>(*at_);
      if (c == '\\') {
        plain = false;
        at_ += 2;
        continue;
      }
      if (c < 0x20) fail("a control character inside a string (escape it)");
      if (c >= 0x80) plain = false;
      ++at_;
    }
    if (at_ >= end_) fail("a string is not closed");
    const std::string_view raw(start, std::size_t(at_ - start));
    ++at_;
    if (plain) return raw;
    decode(raw, scratch);
    return scratch;
  }

  Number number() {
    skip_space();
    const char* start = at_;
    Number number;
    if (at_ < end_ && *at_ == '-') ++at_;
    if (at_ >= end_ || !is_digit(*at_)) fail("expected a number, found " + found());
    if (*at_ == '0') {
      ++at_;
    } else {
      while (at_ < end_ && is_digit(*at_)) ++at_;
    }
    number.is_integer = true;
    if (at_ < end_ && *at_ == '.') {
      number.is_integer = false;
      ++at_;
      if (at_ >= end_ || !is_digit(*at_)) fail("a digit must follow the decimal point");
      while (at_ < end_ && is_digit(*at_)) ++at_;
    }
    if (at_ < end_ && (*at_ == 'e' || *at_ == 'E')) {
      number.is_integer = false;
      ++at_;
      if (at_ < end_ && (*at_ == '+' || *at_ == '-')) ++at_;
      if (at_ >= end_ || !is_digit(*at_)) fail("a digit must follow the exponent");
      while (at_ < end_ && is_digit(*at_)) ++at_;
    }
    number.text = std::string_view(start, std::size_t(at_ - start));
    if (number.is_integer) {
      const auto result = std::from_chars(start, at_, number.integer);
      number.integer_overflow = result.ec != std::errc();
    }
    const auto result = std::from_chars(start, at_, number.value);
    if (result.ec != std::errc()) number.value = number.text[0] == '-' ? -HUGE_VAL : HUGE_VAL;
    return number;
  }

  // true, false or null: returns 1, 0, or -1 for null.
  int literal() {
    skip_space();
    for (auto [word, value] : {std::pair<std::string_view, int>{"true", 1}, {"false", 0}, {"null", -1}}) {
      if (std::size_t(end_ - at_) >= word.size() && std::string_view(at_, word.size()) == word) {
        at_ += word.size();
        return value;
      }
    }
    fail("expected a value, found " + found());
  }

  // Any value, checked and skipped; returns its text.
  std::string_view skip_value(std::size_t depth = 0) {
    if (depth > config::kMaxJsonDepth) fail("nested deeper than " + std::to_string(config::kMaxJsonDepth) + " levels");
    std::string scratch;
    const char c = peek();
    const char* start = at_;
    if (c == '{') {
      ++at_;
      std::string_view key;
      for (bool first = true; next_key(first, key, scratch); first = false) skip_value(depth + 1);
    } else if (c == '[') {
      ++at_;
      for (bool first = true; next_element(first); first = false) skip_value(depth + 1);
    } else if (c == '"') {
      string(scratch);
    } else if (c == '-' || is_digit(c)) {
      number();
    } else {
      literal();
    }
    return std::string_view(start, std::size_t(at_ - start));
  }

private:
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  [[noreturn]] void fail_at(const char* where, const std::string& message) const {
    throw SyntaxError{std::size_t(where - begin_), message};
  }

  unsigned read_hex4(const char*& p, const char* end) const {
    if (end - p < 4) fail_at(p, "\\u needs four hexadecimal digits");
    unsigned value = 0;
    for (int i = 0; i < 4; ++i) {
      const int digit = hex_value(p[i]);
      if (digit < 0) fail_at(p, "\\u needs four hexadecimal digits");
      value = value * 16 + unsigned(digit);
    }
    p += 4;
    return value;
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += char(code);
    } else if (code < 0x800) {
      out += char(0xC0 | (code >> 6));
      out += char(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += char(0xE0 | (code >> 12));
      out += char(0x80 | ((code >> 6) & 0x3F));
      out += char(0x80 | (code & 0x3F));
    } else {
      out += char(0xF0 | (code >> 18));
      out += char(0x80 | ((code >> 12) & 0x3F));
      out += char(0x80 | ((code >> 6) & 0x3F));
      out += char(0x80 | (code & 0x3F));
    }
  }

  // Decodes escapes and checks UTF-8.
  void decode(std::string_view raw, std::string& out) const {
    out.clear();
    const char* p = raw.data();
    const char* end = raw.data() + raw.size();
    while (p < end) {
      const auto c = static_cast<unsigned char>(*p);
      if (c == '\\') {
        const char* escape = p;
        ++p;
        switch (p < end ? *p : '\0') {
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          case 'u': {
            ++p;
            unsigned code = read_hex4(p, end);
            if (code >= 0xD800 && code < 0xDC00) {
              if (end - p < 6 || p[0] != '\\' || p[1] != 'u') fail_at(escape, "a lone UTF-16 surrogate in \\u escapes");
              p += 2;
              const unsigned low = read_hex4(p, end);
              if (low < 0xDC00 || low >= 0xE000) fail_at(escape, "a lone UTF-16 surrogate in \\u escapes");
              code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            } else if (code >= 0xDC00 && code < 0xE000) {
              fail_at(escape, "a lone UTF-16 surrogate in \\u escapes");
            }
            append_utf8(out, code);
            continue;
          }
          default: fail_at(escape, "an invalid escape in a string");
        }
        ++p;
        continue;
      }
      if (c < 0x80) {
        out += char(c);
        ++p;
        continue;
      }
      // A UTF-8 sequence: its length from the lead byte, then continuation bytes.
      int length = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
      if (c > 0xF4) length = 0;
      if (length == 0 || end - p < length) fail_at(p, "invalid UTF-8 in a string");
      unsigned code = c & (0x7F >> length);
      for (int i = 1; i < length; ++i) {
        const auto next = static_cast<unsigned char>(p[i]);
        if ((next & 0xC0) != 0x80) fail_at(p, "invalid UTF-8 in a string");
        code = (code << 6) | (next & 0x3F);
      }
      const unsigned minimum = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000;
      if (code < minimum || code > 0x10FFFF || (code >= 0xD800 && code < 0xE000)) fail_at(p, "invalid UTF-8 in a string");
      out.append(p, std::size_t(length));
      p += length;
    }
  }

  const char* begin_;
  const char* at_;
  const char* end_;
};

// Where the reader is, for messages that name a process and an event.
struct Place {
  std::optional<ProcessId> process;
  std::optional<std::size_t> event;
  std::string pointer;
};

// A semantic error (the text is valid JSON but not a valid trace) at a place.
struct ContentError {
  Place place;
  std::string message;
};

[[noreturn]] void fail(const Place& place, std::string message) { throw ContentError{place, std::move(message)}; }

std::string quote(std::string_view key) {
  std::string text = "\"";
  for (char c : key.substr(0, 40)) text += static_cast<unsigned char>(c) < 0x20 ? '?' : c;
  return text + (key.size() > 40 ? "...\"" : "\"");
}

[[noreturn]] void fail_unknown_key(const Place& place, std::string_view key, const char* where,
                                   const std::vector<std::string>& known) {
  std::string message = "unknown key " + quote(key) + " in " + where;
  if (auto hint = config::closest_match(key, known)) message += " (did you mean \"" + *hint + "\"?)";
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  fail(place, message + "; the keys are " + list);
}

class TraceJsonReader {
public:
  explicit TraceJsonReader(std::string_view text) : cursor_(text) {
    // About 50 bytes of JSON per message (a send and a receive): sized once, never rehashed.
    builder_.reserve_messages(text.size() / 50, text.size() / 8);
  }

  Trace read() {
    Place root{std::nullopt, std::nullopt, "/"};
    cursor_.expect('{', "a JSON object (an ftsim trace starts with {\"format\": \"ftsim-trace\", ...})");
    std::string_view key;
    bool has_format = false, has_version = false, has_processes = false, has_metadata = false;
    for (bool first = true; cursor_.next_key(first, key, key_scratch_); first = false) {
      if (key == "format") {
        duplicate(has_format, root, key);
        const Place at{std::nullopt, std::nullopt, "/format"};
        if (!cursor_.is_string()) fail(at, "expected the string \"ftsim-trace\"");
        const std::string_view format = cursor_.string(scratch_);
        if (format != "ftsim-trace") fail(at, "expected \"ftsim-trace\", got " + quote(format) + ": not an ftsim trace");
      } else if (key == "version") {
        duplicate(has_version, root, key);
        const Place at{std::nullopt, std::nullopt, "/version"};
        if (cursor_.peek() != '-' && (cursor_.peek() < '0' || cursor_.peek() > '9')) fail(at, "expected the number 1");
        const Number version = cursor_.number();
        if (!version.is_integer || version.integer != 1) {
          fail(at, "unsupported version " + std::string(version.text) + " (this ftsim reads version 1)");
        }
      } else if (key == "processes") {
        duplicate(has_processes, root, key);
        read_processes();
      } else if (key == "metadata") {
        duplicate(has_metadata, root, key);
        if (cursor_.peek() != '{') fail({std::nullopt, std::nullopt, "/metadata"}, "expected an object");
        const std::string_view text = cursor_.skip_value();
        builder_.set_metadata(nlohmann::json::parse(text.begin(), text.end()));
      } else {
        fail_unknown_key(root, key, "the trace", {"format", "version", "processes", "metadata"});
      }
    }
    if (!cursor_.at_end()) cursor_.fail("unexpected text after the trace's closing '}'");
    if (!has_format) fail(root, "missing key \"format\" (\"ftsim-trace\")");
    if (!has_version) fail(root, "missing key \"version\" (1)");
    if (!has_processes) fail(root, "missing key \"processes\"");
    flush();
    return std::move(builder_).build();
  }

  // Hands the batched events to the builder (which may throw their TraceError).
  void flush() { flush_batch(); }

  // The place of a syntax error: the event being read, if any.
  Place current_place() const {
    Place place;
    if (in_process_) place.process = ProcessId(builder_.process_count() - 1);
    if (in_event_) place.event = events_read_;
    return place;
  }

private:
  static void duplicate(bool& seen, const Place& place, std::string_view key) {
    // Caught by the cursor for nothing else: JSON would silently keep the last value.
    if (seen) fail(place, "duplicate key " + quote(key));
    seen = true;
  }

  void read_processes() {
    if (cursor_.peek() != '[') fail({std::nullopt, std::nullopt, "/processes"}, "expected an array of processes");
    cursor_.expect('[', "'['");
    for (bool first = true; cursor_.next_element(first); first = false) read_process();
  }

  void read_process() {
    flush();
    const ProcessId p = builder_.add_process();
    events_read_ = 0;
    checkpoints_read_ = 0;
    const Place place{p, std::nullopt, {}};
    if (cursor_.peek() != '{') fail(place, "expected an object {\"events\": [...]}");
    cursor_.expect('{', "'{'");
    in_process_ = true;
    std::string_view key;
    bool has_events = false, has_name = false;
    for (bool first = true; cursor_.next_key(first, key, key_scratch_); first = false) {
      if (key == "events") {
        duplicate(has_events, place, key);
        if (cursor_.peek() != '[') fail(place, "\"events\": expected an array of events");
        cursor_.expect('[', "'['");
        for (bool first_event = true; cursor_.next_element(first_event); first_event = false) read_event(p);
      } else if (key == "name") {
        duplicate(has_name, place, key);
        if (!cursor_.is_string()) fail(place, "\"name\": expected a string");
        builder_.set_process_name(p, std::string(cursor_.string(scratch_)));
      } else {
        fail_unknown_key(place, key, "a process", {"events", "name"});
      }
    }
    if (!has_events) fail(place, "missing key \"events\"");
    flush();
    in_process_ = false;
  }

  // A non-negative integer member of an event.
  std::uint64_t count(const Place& place, std::string_view key) {
    const char c = cursor_.peek();
    if (c != '-' && (c < '0' || c > '9')) fail(place, "\"" + std::string(key) + "\": expected an integer, found " + cursor_.found());
    const Number number = cursor_.number();
    if (!number.is_integer || number.integer_overflow || number.integer < 0) {
      fail(place, "\"" + std::string(key) + "\": expected a non-negative integer, got " + std::string(number.text));
    }
    return std::uint64_t(number.integer);
  }

  void read_event(ProcessId p) {
    const std::size_t index = events_read_;
    const Place place{p, index, {}};
    if (cursor_.peek() != '{') {
      fail(place, "expected an event object ({\"checkpoint\": k}, {\"send\": id, \"to\": p} or {\"receive\": id})");
    }
    cursor_.expect('{', "'{'");
    in_event_ = true;
    enum Field : unsigned { kCheckpoint = 1, kSend = 2, kReceive = 4, kTo = 8, kLogged = 16, kBytes = 32, kTime = 64 };
    unsigned seen = 0;
    std::uint64_t checkpoint = 0, to = 0, bytes = kNoBytes;
    bool logged = false;
    double time = kNoTime;
    std::string_view id;
    std::string_view key;
    auto mark = [&](unsigned field) {
      if (seen & field) fail(place, "duplicate key " + quote(key));
      seen |= field;
    };
    for (bool first = true; cursor_.next_key(first, key, key_scratch_); first = false) {
      if (key == "send" || key == "receive") {
        mark(key == "send" ? kSend : kReceive);
        if (!cursor_.is_string()) fail(place, "\"" + std::string(key) + "\": expected a message id (a string), found " + cursor_.found());
        id = cursor_.string(id_scratch_);
      } else if (key == "to") {
        mark(kTo);
        const char c = cursor_.peek();
        if (c != '-' && (c < '0' || c > '9')) fail(place, "\"to\": expected a process number, found " + cursor_.found());
        const Number number = cursor_.number();
        if (!number.is_integer || number.integer_overflow || number.integer < 0) {
          fail(place, "\"to\": " + std::string(number.text) + " is not a process number (0, 1, ...)");
        }
        to = std::uint64_t(number.integer);
      } else if (key == "checkpoint") {
        mark(kCheckpoint);
        checkpoint = count(place, key);
      } else if (key == "logged") {
        mark(kLogged);
        const char c = cursor_.peek();
        if (c != 't' && c != 'f') fail(place, "\"logged\": expected true or false");
        logged = cursor_.literal() == 1;
      } else if (key == "bytes") {
        mark(kBytes);
        bytes = count(place, key);
        if (bytes == kNoBytes) fail(place, "\"bytes\": too large");
      } else if (key == "time") {
        mark(kTime);
        const char c = cursor_.peek();
        if (c != '-' && (c < '0' || c > '9')) fail(place, "\"time\": expected a number of seconds, found " + cursor_.found());
        time = cursor_.number().value;
        if (!std::isfinite(time)) fail(place, "\"time\": out of range");
      } else {
        fail_unknown_key(place, key, "an event", {"checkpoint", "send", "to", "logged", "bytes", "receive", "time"});
      }
    }
    in_event_ = false;
    const unsigned kinds = seen & (kCheckpoint | kSend | kReceive);
    if (kinds == 0) fail(place, "an event needs one of \"checkpoint\", \"send\", \"receive\"");
    if (kinds != kCheckpoint && kinds != kSend && kinds != kReceive) {
      fail(place, "an event is one of a checkpoint, a send or a receive, not several");
    }
    if (kinds == kCheckpoint) {
      if (seen & (kTo | kLogged | kBytes)) fail(place, "a checkpoint has no \"to\", \"logged\" or \"bytes\"");
      const std::uint64_t expected = ++checkpoints_read_;
      if (checkpoint != expected) {
        fail(place, "checkpoint numbered " + std::to_string(checkpoint) + ", expected " + std::to_string(expected) +
                        " (a process's checkpoints are numbered 1, 2, ... in order; 0 is its initial state)");
      }
    } else if (kinds == kSend) {
      if (!(seen & kTo)) fail(place, "a send needs \"to\", the receiving process");
    } else if (seen & (kTo | kLogged | kBytes)) {
      fail(place, "a receive has no \"to\", \"logged\" or \"bytes\" (they belong to the send)");
    }
    ++events_read_;
    batch_.push_back({kinds == kCheckpoint ? Kind::checkpoint : kinds == kSend ? Kind::send : Kind::receive, p, id, to,
                      bytes, time, logged});
    if (kinds != kCheckpoint) builder_.prefetch_message(id);
    // An id decoded from escapes lives in a scratch buffer that the next event reuses.
    if (batch_.size() == kBatch || (!id.empty() && id.data() == id_scratch_.data())) flush();
  }

  // Events are handed to the builder in batches, their ids' hash slots prefetched first: the
  // lookups of a batch then overlap their cache misses instead of waiting for each in turn.
  enum class Kind : std::uint8_t { checkpoint, send, receive };
  struct Pending {
    Kind kind;
    ProcessId process;
    std::string_view id;
    std::uint64_t to, bytes;
    double time;
    bool logged;
  };
  static constexpr std::size_t kBatch = 16;

  void flush_batch() {
    for (const Pending& e : batch_) {
      switch (e.kind) {
        case Kind::checkpoint: builder_.add_checkpoint(e.process, e.time); break;
        case Kind::send: builder_.add_send(e.process, e.id, e.to, e.logged, e.bytes, e.time); break;
        case Kind::receive: builder_.add_receive(e.process, e.id, e.time); break;
      }
    }
    batch_.clear();
  }

  Cursor cursor_;
  TraceBuilder builder_;
  std::string scratch_, key_scratch_, id_scratch_;
  bool in_process_ = false, in_event_ = false;
  std::size_t events_read_ = 0;       // of the process being read
  std::uint64_t checkpoints_read_ = 0;
  std::vector<Pending> batch_;
};

// Line and column (1-based) of a byte offset.
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t offset) {
  std::size_t line = 1, line_start = 0;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, offset - line_start + 1};
}

}  // namespace

Trace parse_trace_json(std::string_view text, const std::string& origin) {
  TraceJsonReader reader(text);
  // Events still in the batch come before the one that failed: an error among them is the first.
  auto report_earlier_errors = [&] {
    try {
      reader.flush();
    } catch (const TraceError& e) {
      throw e.in_file(origin);
    }
  };
  try {
    return reader.read();
  } catch (const SyntaxError& e) {
    report_earlier_errors();
    const Place place = reader.current_place();
    const auto [line, column] = line_column(text, e.offset);
    TraceLocation where{place.process, place.event, line, column, {}};
    throw TraceError(origin, where, "invalid JSON: " + e.message);
  } catch (const ContentError& e) {
    report_earlier_errors();
    TraceLocation where{e.place.process, e.place.event, std::nullopt, std::nullopt, e.place.pointer};
    throw TraceError(origin, where, e.message);
  } catch (const TraceError& e) {
    throw e.in_file(origin);
  } catch (const nlohmann::json::exception& e) {
    throw TraceError(origin, TraceLocation::at_pointer("/metadata"), e.what());
  }
}

Trace read_trace_json(const std::string& path) {
  std::string text;
  try {
    text = config::read_input_file(path, kMaxTraceJsonBytes);
  } catch (const config::ConfigError& e) {
    throw TraceError(path, {}, e.message());
  }
  return parse_trace_json(text, path);
}

}  // namespace ftsim::analysis
