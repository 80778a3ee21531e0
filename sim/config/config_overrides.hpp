#pragma once
// Overrides of config keys on the command line (docs/configs.md#overrides): `--set KEY=VALUE`, or
// SimGrid's spelling `--cfg=KEY:VALUE`. KEY is a dotted path or a JSON pointer (config_key.hpp);
// VALUE is JSON when it parses as JSON (64, true, {"type": "buddy"}), else a string (0.1s, buddy).
// An error the loader finds in an overridden key names the override instead of the file:
// "--set protocol.period=-3: /protocol/period: expected a positive duration, got -3".
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/config_error.hpp"
#include "sim/config/config_key.hpp"

namespace ftsim::config {

// The options' help, for every verb that takes them.
inline constexpr const char* kSetOptionHelp =
    "Set a config key: KEY=VALUE, KEY a dotted path (protocol.period) or a JSON pointer (/platform/nodes), VALUE JSON "
    "when it parses (64, true, {\"type\": \"buddy\"}) else a string (0.1s); repeatable (docs/configs.md#overrides)";
inline constexpr const char* kCfgOptionHelp = "SimGrid's spelling of --set: --cfg=KEY:VALUE; repeatable";

struct ConfigOverride {
  std::string text;  // as given, for messages: "--set protocol.period=0.1s"
  ConfigKey key;
  nlohmann::json value;
};

// `option` is "--set" (KEY=VALUE) or "--cfg" (KEY:VALUE); throws ConfigError naming the override.
ConfigOverride parse_override(const std::string& option, const std::string& argument);
// The --set and --cfg arguments of a command, checked: a key given twice is refused; a key inside
// another is applied after it (`protocol={...}` then `protocol.cow=true`), whatever their order.
std::vector<ConfigOverride> parse_overrides(const std::vector<std::string>& sets, const std::vector<std::string>& cfgs);

// Sets every override in `document`; throws ConfigError naming the override.
void apply_overrides(nlohmann::json& document, const std::vector<ConfigOverride>& overrides);

// An error of the config `file` with overrides: the override's when its pointer is in the key the
// override set; else the file's, saying which overrides were applied (an override may make another
// key wrong). An error of another file (a graph file) is left as it is.
ConfigError name_override(const ConfigError& error, const std::vector<ConfigOverride>& overrides, const std::string& file);

}  // namespace ftsim::config
