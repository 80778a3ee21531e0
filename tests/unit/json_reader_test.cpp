// JsonReader: typed access to a JSON document whose every error names the file, the JSON pointer of
// the offending value and what was expected (sim/config/json_reader.hpp).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "sim/config/json_reader.hpp"
#include "sim/config/units.hpp"

using namespace ftsim::config;

namespace {

// The ConfigError that `action` throws; fails the test if it throws nothing.
template <typename Action>
ConfigError error_of(Action&& action) {
  try {
    action();
  } catch (const ConfigError& error) {
    return error;
  }
  FAIL("expected a ConfigError");
  return ConfigError("", "", "");
}

Json parse(const std::string& text) { return parse_json_text(text, "test.json"); }

}  // namespace

TEST_CASE("errors name the file and the pointer of nested values", "[config][json_reader]") {
  const Json doc = parse(R"({"a": {"b": [1, {"c": "x"}]}, "n": null})");
  JsonReader root(doc, "test.json");
  CHECK(root.where() == "/");
  CHECK(root.pointer().empty());

  auto a = root.at("a");
  CHECK(a.pointer() == "/a");
  auto b = a.at("b");
  CHECK(b.size() == 2);
  CHECK(b[0].pointer() == "/a/b/0");
  CHECK(b[0].as_int() == 1);
  auto c = b[1].at("c");
  CHECK(c.pointer() == "/a/b/1/c");

  ConfigError error = error_of([&] { c.as_int(); });
  CHECK(error.file() == "test.json");
  CHECK(error.pointer() == "/a/b/1/c");
  CHECK(error.message() == "expected an integer, got \"x\"");
  CHECK(std::string(error.what()) == "test.json: /a/b/1/c: expected an integer, got \"x\"");

  // A type error on the root is reported at "/".
  const Json array = parse("[1, 2]");
  error = error_of([&] { JsonReader(array, "list.json").expect_object(); });
  CHECK(error.pointer() == "/");
  CHECK(std::string(error.what()) == "list.json: /: expected an object, got [1,2]");

  // Accessors of the wrong shape: an object where an array is expected and vice versa.
  error = error_of([&] { a.size(); });
  CHECK(error.pointer() == "/a");
  CHECK(error.message() == "expected an array, got {\"b\":[1,{\"c\":\"x\"}]}");
  error = error_of([&] { b.at("c"); });
  CHECK(error.pointer() == "/a/b");
  CHECK(error.message().rfind("expected an object, got [1,", 0) == 0);
  error = error_of([&] { root.at("n").as_string(); });
  CHECK(error.pointer() == "/n");
  CHECK(error.message() == "expected a string, got null");

  // Long values are shortened in messages.
  const Json long_text = std::string(200, 'x');
  error = error_of([&] { JsonReader(long_text, "f").as_int(); });
  CHECK(error.message().size() < 100);
  CHECK(error.message().find("...") != std::string::npos);
}

TEST_CASE("pointer tokens escape ~ and / (RFC 6901)", "[config][json_reader]") {
  CHECK(escape_pointer_token("plain") == "plain");
  CHECK(escape_pointer_token("a/b") == "a~1b");
  CHECK(escape_pointer_token("a~b") == "a~0b");
  CHECK(escape_pointer_token("~/") == "~0~1");
  CHECK(escape_pointer_token("~1") == "~01");  // "~" first, so "~1" is not mistaken for "/"
  CHECK(escape_pointer_token("") == "");

  const Json doc = parse(R"({"GB/s": {"x~y": true}, "a/b": 1})");
  JsonReader root(doc, "f.json");
  auto nested = root.at("GB/s").at("x~y");
  CHECK(nested.pointer() == "/GB~1s/x~0y");
  ConfigError error = error_of([&] { nested.as_int(); });
  CHECK(error.pointer() == "/GB~1s/x~0y");

  // The pointer resolves back to the value in nlohmann's own JSON pointer implementation.
  CHECK(doc.at(Json::json_pointer(nested.pointer())) == true);

  // Unknown keys are escaped too.
  JsonReader again(doc, "f.json");
  again.find("GB/s");
  error = error_of([&] { again.finish(); });
  CHECK(error.pointer() == "/a~1b");
  CHECK(doc.at(Json::json_pointer(error.pointer())) == 1);
}

TEST_CASE("closest_match suggests plausible typos only", "[config][json_reader]") {
  const std::vector<std::string> keys{"application", "platform", "checkpoints", "distribution", "seed"};
  CHECK(closest_match("checkpoint", keys) == "checkpoints");
  CHECK(closest_match("plattform", keys) == "platform");
  CHECK(closest_match("Platform", keys) == "platform");  // case does not count as an edit
  CHECK(closest_match("aplication", keys) == "application");
  CHECK(closest_match("sed", keys) == "seed");
  CHECK_FALSE(closest_match("zzzz", keys));
  CHECK_FALSE(closest_match("nodes", keys));
  CHECK_FALSE(closest_match("x", {}));
  // At most a third of the word may differ (at least one edit).
  CHECK(closest_match("ab", {"ax"}) == "ax");
  CHECK_FALSE(closest_match("abc", {"xyz"}));
}

TEST_CASE("finish() rejects keys nobody asked for, with a hint", "[config][json_reader]") {
  const Json doc = parse(R"({"tiles": 8, "tile_size": 64, "precison": "single"})");

  SECTION("a typo of a known key gets a did-you-mean hint and the list of known keys") {
    JsonReader reader(doc, "c.json", "/application");
    reader.at("tiles");
    reader.at("tile_size");
    reader.find("precision");  // asked for, absent: still a known key
    ConfigError error = error_of([&] { reader.finish(); });
    CHECK(error.pointer() == "/application/precison");
    CHECK(error.message() ==
          "unknown key \"precison\" (did you mean \"precision\"?); known keys here: precision, tile_size, tiles");
  }

  SECTION("has() declares a key as known") {
    JsonReader reader(doc, "c.json");
    CHECK(reader.has("tiles"));
    CHECK(reader.has("tile_size"));
    CHECK_FALSE(reader.has("precision"));
    CHECK(reader.has("precison"));
    CHECK_NOTHROW(reader.finish());
  }

  SECTION("a key far from every known key gets no hint") {
    JsonReader reader(doc, "c.json");
    reader.at("tiles");
    reader.at("precison");
    ConfigError error = error_of([&] { reader.finish(); });
    CHECK(error.pointer() == "/tile_size");
    CHECK(error.message().find("did you mean") == std::string::npos);
  }

  SECTION("copies of a reader share the keys asked for") {
    JsonReader reader(doc, "c.json");
    JsonReader copy = reader;
    copy.at("tiles");
    copy.at("tile_size");
    copy.at("precison");
    CHECK_NOTHROW(reader.finish());
  }

  SECTION("finish() needs an object") {
    const Json number = parse("3");
    ConfigError error = error_of([&] { JsonReader(number, "c.json", "/x").finish(); });
    CHECK(error.pointer() == "/x");
  }
}

TEST_CASE("a missing required key names its parent and a likely misspelling", "[config][json_reader]") {
  const Json doc = parse(R"({"plattform": {}, "tile_size": 3})");
  JsonReader reader(doc, "c.json");
  ConfigError error = error_of([&] { reader.at("platform"); });
  CHECK(error.pointer() == "/");
  CHECK(error.message() == "missing required key \"platform\" (is \"plattform\" a misspelling of it?)");

  // Keys already read are not suggested, nor keys far from the missing one.
  error = error_of([&] { reader.at("tiles"); });
  CHECK(error.message() == "missing required key \"tiles\"");
  CHECK_FALSE(reader.find("seed"));
}

TEST_CASE("one_of() wants exactly one of its keys", "[config][json_reader]") {
  const Json both = parse(R"({"every": 1, "count": 2})");
  JsonReader reader(both, "c.json", "/checkpoints/0");
  ConfigError error = error_of([&] { reader.one_of({"every", "count"}); });
  CHECK(error.pointer() == "/checkpoints/0");
  CHECK(error.message() == "expected only one of the keys \"every\", \"count\", got both \"every\" and \"count\"");

  const Json none = parse(R"({"buddy": "next"})");
  JsonReader empty(none, "c.json", "/checkpoints");
  error = error_of([&] { empty.one_of({"every", "count"}); });
  CHECK(error.message() == "expected one of the keys \"every\", \"count\"");

  const Json one = parse(R"({"count": 2})");
  JsonReader single(one, "c.json");
  CHECK(single.one_of({"every", "count"}) == "count");
  CHECK_NOTHROW(single.finish());  // both keys are known now
}

TEST_CASE("as_int checks type and range", "[config][json_reader]") {
  auto read = [](const std::string& text, std::int64_t min = INT64_MIN, std::int64_t max = INT64_MAX) {
    const Json value = parse(text);
    return JsonReader(value, "f.json", "/v").as_int(min, max);
  };
  auto message = [&](const std::string& text, std::int64_t min = INT64_MIN, std::int64_t max = INT64_MAX) {
    return error_of([&] { read(text, min, max); }).message();
  };

  CHECK(read("42") == 42);
  CHECK(read("-7") == -7);
  CHECK(read("3.0") == 3);  // an integral float is an integer (as in JSON Schema)
  CHECK(read("1e3") == 1000);
  CHECK(read("9223372036854775807") == INT64_MAX);
  CHECK(read("-9223372036854775808") == INT64_MIN);
  CHECK(read("0", 0) == 0);
  CHECK(read("4294967295", 1, UINT32_MAX) == UINT32_MAX);

  CHECK(message("2.5") == "expected an integer, got 2.5");
  CHECK(message("\"8\"") == "expected an integer, got \"8\"");
  CHECK(message("true") == "expected an integer, got true");
  CHECK(message("null") == "expected an integer, got null");
  CHECK(message("[1]") == "expected an integer, got [1]");
  CHECK(message("9223372036854775808") == "expected an integer, got 9223372036854775808");
  CHECK(message("1e19") == "expected an integer, got 1e+19");
  CHECK(message("-1", 0) == "expected a non-negative integer, got -1");
  CHECK(message("0", 1) == "expected a positive integer, got 0");
  CHECK(message("2", 3) == "expected an integer >= 3, got 2");
  CHECK(message("4", 0, 3) == "expected an integer in [0, 3], got 4");
  CHECK(message("4", INT64_MIN, 3) == "expected an integer <= 3, got 4");
  CHECK(message("-1", 0, 3) == "expected an integer in [0, 3], got -1");
  CHECK(message("4294967296", 1, UINT32_MAX) == "expected an integer in [1, 4294967295], got 4294967296");
  CHECK(error_of([&] { read("-1", 0); }).pointer() == "/v");
}

TEST_CASE("numbers, booleans and choices", "[config][json_reader]") {
  auto reader = [](const Json& value) { return JsonReader(value, "f.json", "/v"); };
  const Json half = parse("0.5"), zero = parse("0"), word = parse("\"fast\""), yes = parse("true");
  CHECK(reader(half).as_number(0, 1) == 0.5);
  CHECK(reader(half).as_positive_number() == 0.5);
  CHECK(error_of([&] { reader(zero).as_positive_number(); }).message() == "expected a positive number, got 0");
  CHECK(error_of([&] { reader(word).as_number(); }).message() == "expected a number, got \"fast\"");
  CHECK(error_of([&] { reader(half).as_number(1, 2); }).message().rfind("expected a number in [1", 0) == 0);
  CHECK(reader(yes).as_bool());
  CHECK(error_of([&] { reader(zero).as_bool(); }).message() == "expected true or false, got 0");

  const Json near = parse("\"block_cyclic\""), far = parse("\"zzz\"");
  CHECK(error_of([&] { reader(near).as_choice({"block-cyclic", "block", "explicit"}); }).message() ==
        "unknown value \"block_cyclic\" (did you mean \"block-cyclic\"?); expected one of \"block-cyclic\", "
        "\"block\", \"explicit\"");
  CHECK(error_of([&] { reader(far).as_choice({"single", "double"}); }).message() ==
        "unknown value \"zzz\"; expected one of \"single\", \"double\"");
  CHECK(error_of([&] { reader(yes).as_choice({"single", "double"}); }).message() ==
        "expected one of \"single\", \"double\", got true");
  const Json single = parse("\"single\"");
  CHECK(reader(single).as_choice({"single", "double"}) == "single");
}

TEST_CASE("quantities with units report what they expected", "[config][json_reader][units]") {
  auto reader = [](const Json& value) { return JsonReader(value, "f.json", "/q"); };

  const Json kib = parse("\"320KiB\""), plain = parse("1024"), fractional = parse("1.6");
  CHECK(reader(kib).as_bytes() == 320 * 1024);
  CHECK(reader(plain).as_bytes() == 1024);
  CHECK(reader(fractional).as_bytes() == 2);  // rounded to whole bytes

  // Sizes beyond 2^63 do not fit a long long but do fit the uint64 result.
  const Json huge = parse("1e19"), too_huge = parse("2e19"), huge_text = parse("\"10000PB\"");
  CHECK(reader(huge).as_bytes() == 10000000000000000000ULL);
  CHECK(error_of([&] { reader(too_huge).as_bytes(); }).message() == "expected a size below 16 EiB, got 2e+19");
  CHECK_THROWS_AS(reader(huge_text).as_bytes(), ConfigError);  // PB is not a unit

  const Json parsecs = parse("\"12 parsecs\""), negative = parse("\"-64KiB\""), object = parse("{}");
  ConfigError error = error_of([&] { reader(parsecs).as_bytes(); });
  CHECK(error.pointer() == "/q");
  CHECK(error.message() == std::string("expected ") + kSizeUnitsHelp + ", got \"12 parsecs\"");
  CHECK(error_of([&] { reader(negative).as_bytes(); }).message() == "expected a non-negative size, got \"-64KiB\"");
  CHECK(error_of([&] { reader(object).as_bytes(); }).message() == std::string("expected ") + kSizeUnitsHelp + ", got {}");

  const Json two_hours = parse("\"2h\""), zero_seconds = parse("\"0s\""), minus = parse("-3"),
             fortnights = parse("\"3 fortnights\"");
  CHECK(reader(two_hours).as_seconds() == 7200.0);
  CHECK(reader(zero_seconds).as_seconds() == 0.0);
  CHECK(reader(two_hours).as_positive_seconds() == 7200.0);
  CHECK(error_of([&] { reader(zero_seconds).as_positive_seconds(); }).message() ==
        "expected a positive duration (> 0), got \"0s\"");
  CHECK(error_of([&] { reader(minus).as_seconds(); }).message() == "expected a non-negative duration (>= 0), got -3");
  CHECK(error_of([&] { reader(fortnights).as_seconds(); }).message() ==
        std::string("expected ") + kDurationUnitsHelp + ", got \"3 fortnights\"");

  const Json gbps = parse("\"40Gbps\""), gbs = parse("\"40Gbs\""), zero_bw = parse("\"0GB/s\"");
  CHECK(reader(gbps).as_bandwidth() == Approx(5e9));
  CHECK(error_of([&] { reader(gbs).as_bandwidth(); }).message() ==
        std::string("expected ") + kBandwidthUnitsHelp + ", got \"40Gbs\"");
  const std::string bandwidth_range = "expected a bandwidth from 1 KB/s to 1 EB/s (1000 to 1e+18 bytes per second), got ";
  CHECK(error_of([&] { reader(zero_bw).as_bandwidth(); }).message() == bandwidth_range + "\"0GB/s\"");
  // Outside that range SimGrid aborts (too slow) or the unit overflows to +inf.
  const Json slow = parse("1e-300"), overflow = parse("\"1e308TB/s\""), slowest = parse("\"8Kbps\"");
  CHECK(error_of([&] { reader(slow).as_bandwidth(); }).message() == bandwidth_range + "1e-300");
  CHECK(error_of([&] { reader(overflow).as_bandwidth(); }).message() == bandwidth_range + "\"1e308TB/s\"");
  CHECK(reader(slowest).as_bandwidth() == 1000.0);

  // A finite number times its unit may overflow: "1e308d" is +inf seconds, beyond the horizon.
  const Json forever = parse("\"1e308d\""), horizon = parse("1e15"), beyond = parse("1.1e15");
  CHECK(std::isinf(*parse_duration_seconds("1e308d")));
  CHECK(error_of([&] { reader(forever).as_seconds(); }).message() ==
        "expected a duration of at most 1e+15 s (about 32 million years), got \"1e308d\"");
  CHECK(reader(horizon).as_seconds() == 1e15);
  CHECK_THROWS_AS(reader(beyond).as_positive_seconds(), ConfigError);
  const Json too_many_bytes = parse("\"1e308TB\"");
  CHECK(error_of([&] { reader(too_many_bytes).as_bytes(); }).message() == "expected a size below 16 EiB, got \"1e308TB\"");
}

TEST_CASE("syntax errors report line and column", "[config][json_reader]") {
  // Missing comma at the end of line 2: the parser stops at the string on line 3.
  ConfigError error = error_of([] { parse_json_text("{\n  \"a\": 1\n  \"b\": 2\n}\n", "bad.json"); });
  CHECK(error.file() == "bad.json");
  CHECK(error.pointer().empty());
  CHECK(error.message().rfind("invalid JSON at line 3, column ", 0) == 0);
  CHECK(error.message().find("syntax error") != std::string::npos);
  CHECK(std::string(error.what()).rfind("bad.json: invalid JSON at line 3, column ", 0) == 0);

  error = error_of([] { parse_json_text("{\"a\": [1, 2,]}", "bad.json"); });
  CHECK(error.message().rfind("invalid JSON at line 1, column 13: ", 0) == 0);

  error = error_of([] { parse_json_text("", "empty.json"); });
  CHECK(error.message().rfind("invalid JSON at line 1, column 1: ", 0) == 0);

  // A number no double can hold is bad input too, with its position.
  error = error_of([] { parse_json_text("{\n  \"seed\": 1e400\n}", "big.json"); });
  CHECK(error.message() == "invalid JSON at line 2, column 11: number overflow parsing '1e400'");

  CHECK(parse_json_text("{\"a\": [1, 2]}", "ok.json")["a"].size() == 2);
}

TEST_CASE("documents have unique keys, bounded nesting, an optional byte order mark", "[config][json_reader]") {
  // nlohmann keeps the last of two equal keys: a silently ignored value.
  ConfigError error = error_of([] { parse_json_text(R"({"a": [1, {"b": 1, "c": 2, "b": 3}]})", "dup.json"); });
  CHECK(error.pointer() == "/a/1/b");
  CHECK(error.message() == "duplicate key \"b\" (JSON would silently keep the last value)");
  error = error_of([] { parse_json_text(R"({"x": 1, "x": 1})", "dup.json"); });
  CHECK(error.pointer() == "/x");
  CHECK(parse_json_text(R"({"a": {"x": 1}, "b": {"x": 2}})", "ok.json")["b"]["x"] == 2);

  // Copies and dumps recurse: a document 10^6 levels deep would overflow the stack.
  const std::string deep = "{\"a\": " + std::string(1000000, '[') + std::string(1000000, ']') + "}";
  error = error_of([&] { parse_json_text(deep, "deep.json"); });
  CHECK(error.message() == "expected at most 64 levels of nested objects and arrays, got more");
  CHECK(error.pointer().rfind("/a/0/0/", 0) == 0);
  const std::string deepest_allowed = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  CHECK(parse_json_text(deepest_allowed, "ok.json").is_array());

  CHECK(parse_json_text("\xEF\xBB\xBF{\"a\": 1}", "bom.json")["a"] == 1);
}

TEST_CASE("read_json_file reports unreadable files", "[config][json_reader]") {
  const auto dir = std::filesystem::temp_directory_path() / "ftsim_json_reader_test";
  std::filesystem::create_directories(dir);
  const auto missing = (dir / "missing.json").string();
  std::filesystem::remove(missing);
  ConfigError error = error_of([&] { read_json_file(missing); });
  CHECK(error.file() == missing);
  CHECK(error.message() == "cannot open file (No such file or directory)");

  error = error_of([&] { read_json_file(dir.string()); });
  CHECK(error.message() == "is a directory, not a regular file");

  // A FIFO would block the open forever, a device be read until memory runs out.
  const auto fifo = (dir / "fifo.json").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(error_of([&] { read_json_file(fifo); }).message() == "is a FIFO, not a regular file");
  CHECK(error_of([&] { read_json_file("/dev/zero"); }).message() == "is a character device, not a regular file");

  const auto large = (dir / "large.json").string();
  std::ofstream(large) << std::string(2000, ' ') << "{}";
  CHECK(error_of([&] { read_json_file(large, 1000); }).message() ==
        "is 2002 bytes, more than the 1000 bytes that ftsim reads from such a file");

  const auto good = (dir / "good.json").string();
  std::ofstream(good) << "{\"x\": 1}\n";
  CHECK(read_json_file(good)["x"] == 1);
  std::filesystem::remove_all(dir);
}

#ifdef FTSIM_SOURCE_DIR
TEST_CASE("the schema's unit patterns accept what JsonReader accepts", "[config][json_reader][units][schema]") {
  const Json schema = read_json_file(std::string(FTSIM_SOURCE_DIR) + "/configs/schema/ftsim.schema.json");
  const Json& defs = schema.at("$defs");
  auto pattern = [&](const std::string& name) {
    return std::regex(defs.at(name).at("oneOf").at(1).at("pattern").get<std::string>(), std::regex::ECMAScript);
  };
  const std::regex size = pattern("size"), duration = pattern("duration"),
                   positive_duration = pattern("positiveDuration"), bandwidth = pattern("bandwidth");

  auto accepts = [](auto&& read) {
    try {
      read();
      return true;
    } catch (const ConfigError&) {
      return false;
    }
  };
  const char* const texts[] = {
      "0", "-0", "-0.0e3", "1024", "-1", "+1", ".5", "5.", "1e3", "1E+3", "1e", "e3", "0x10", "inf", "nan", "",
      "  ", " 7 ", "1e-3", "0e5", "00.5",
      // sizes
      "320KiB", "4MB", "1.5 GiB", "2  TiB ", "5kB", "5KIB", "1.18 Gb", "12 parsecs", "-64KiB", "KiB", "5\tKiB",
      // durations
      "1us", "1µs", "20 ms", "2h", "1.5min", "3d", "1e-3s", "0s", "0.0h", "3 fortnights", "2H", "5 sec",
      // bandwidths
      "40Gbps", "10Gb/s", "5GB/s", "100MiB/s", "1TiB/s", "40Gbs", "0Gbps", "0.5 Kb/s", "8bps", "3 B/s", "1e-2MB/s"};
  for (const std::string text : texts) {
    const Json value = text;
    JsonReader reader(value, "f.json");
    INFO("text: \"" << text << "\"");
    CHECK(std::regex_search(text, size) == accepts([&] { reader.as_bytes(); }));
    CHECK(std::regex_search(text, duration) == accepts([&] { reader.as_seconds(); }));
    CHECK(std::regex_search(text, positive_duration) == accepts([&] { reader.as_positive_seconds(); }));
    // A pattern cannot compare a quantity in any unit with [1 KB/s, 1 EB/s]: the schema checks
    // the syntax and the sign of bandwidth strings (and the range of plain numbers).
    const auto parsed = parse_bandwidth_bytes_per_second(text);
    CHECK(std::regex_search(text, bandwidth) == (parsed && *parsed > 0 && names_a_unit(text)));
    if (parsed && *parsed >= kMinBandwidth && *parsed <= kMaxBandwidth) {
      CHECK(accepts([&] { reader.as_bandwidth(); }) == names_a_unit(text));  // a string names its unit
    }
  }
}
#endif
