// CCK's options reader (protocols/cck/cck_options.cpp): every bad /protocol block is refused with
// an error naming the JSON pointer of the key at fault; good blocks load.
#include <catch2/catch.hpp>

#include "protocols/registry.hpp"
#include "sim/config/config_error.hpp"

using namespace ftsim;

namespace {

config::Json document(const config::Json& protocol, bool storage = true, bool checkpoints = false) {
  config::Json d = {{"application", {{"type", "cholesky"}, {"tiles", 6}, {"tile_size", 64}}},
                    {"platform", {{"nodes", 4}, {"core_gflops", 1}}},
                    {"protocol", protocol}};
  if (storage) d["platform"]["storage"] = {{"hosts", 2}};
  if (checkpoints) d["checkpoints"] = {{"count", 2}};
  return d;
}

config::ConfigError error_of(const config::Json& d) {
  try {
    protocols::load_config_json(d, "cck-options");
  } catch (const config::ConfigError& error) {
    return error;
  }
  FAIL("expected a ConfigError for " << d["protocol"].dump());
  return config::ConfigError("", "", "");
}

}  // namespace

TEST_CASE("cck: options are read, and a bad one is refused naming its JSON pointer", "[cck][options]") {
  CHECK_NOTHROW(protocols::load_config_json(document({{"type", "cck"}, {"period", "5ms"}}), "ok"));
  CHECK_NOTHROW(protocols::load_config_json(
      document({{"type", "cck"}, {"at", "cuts"}, {"flush", "all"}, {"coordinator", 3},
                {"reexecution", {{"keep_in_memory", true}, {"reorder", true}}}, {"spread", false}},
               true, true),
      "ok"));
  CHECK_NOTHROW(protocols::load_config_json(document({{"type", "cck"}, {"period", 1}, {"coordinator", "dedicated"}}), "ok"));

  struct Case {
    config::Json block;
    bool storage, checkpoints;
    std::string pointer, words;
  };
  const std::vector<Case> cases = {
      {{{"type", "cck"}}, true, false, "/protocol", "one of the keys \"period\", \"at\""},
      {{{"type", "cck"}, {"period", "5ms"}, {"at", "cuts"}}, true, true, "/protocol", "got both"},
      {{{"type", "cck"}, {"period", -1}}, true, false, "/protocol/period", "positive"},
      {{{"type", "cck"}, {"at", "cuts"}}, true, false, "/protocol/at", "/checkpoints"},
      {{{"type", "cck"}, {"at", "cut"}}, true, true, "/protocol/at", "cuts"},
      {{{"type", "cck"}, {"period", "5ms"}}, false, false, "/protocol", "/platform/storage/hosts"},
      {{{"type", "cck"}, {"period", "5ms"}, {"flush", "some"}}, true, false, "/protocol/flush", "neighbours"},
      {{{"type", "cck"}, {"period", "5ms"}, {"coordinator", 4}}, true, false, "/protocol/coordinator", "3"},
      {{{"type", "cck"}, {"period", "5ms"}, {"coordinator", "node"}}, true, false, "/protocol/coordinator", "dedicated"},
      {{{"type", "cck"}, {"period", "5ms"}, {"coordinator", true}}, true, false, "/protocol/coordinator", "dedicated"},
      {{{"type", "cck"}, {"period", "5ms"}, {"reexecution", {{"keep", true}}}}, true, false, "/protocol/reexecution/keep", "keep_in_memory"},
      {{{"type", "cck"}, {"period", "5ms"}, {"reexecution", {{"reorder", 1}}}}, true, false, "/protocol/reexecution/reorder", "true or false"},
      {{{"type", "cck"}, {"period", "5ms"}, {"reexecution", true}}, true, false, "/protocol/reexecution", "object"},
      {{{"type", "cck"}, {"period", "5ms"}, {"spread", true}}, true, false, "/protocol/spread", "not built"},
      {{{"type", "cck"}, {"period", "5ms"}, {"flsh", "all"}}, true, false, "/protocol/flsh", "flush"},
  };
  for (const Case& c : cases) {
    INFO(c.block.dump());
    const config::ConfigError error = error_of(document(c.block, c.storage, c.checkpoints));
    CHECK(error.pointer() == c.pointer);
    CHECK_THAT(error.message(), Catch::Contains(c.words));
  }
}
