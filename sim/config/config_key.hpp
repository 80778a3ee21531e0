#pragma once
// A key of a config, as a sweep varies it and a command-line override sets it: a JSON pointer
// ("/protocol/type", RFC 6901: "~1" is "/", "~0" is "~") or a dotted path ("protocol.type"); a step
// made of digits indexes an array. docs/sweeps.md ("Keys") and docs/configs.md ("Overrides").
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ftsim::config {

struct ConfigKey {
  std::vector<std::string> tokens;  // the path in the config: {"protocol", "type"}
  std::string pointer;              // as a JSON pointer: "/protocol/type"
  std::string column;               // dotted: "protocol.type"
};

// The key written in `text`; nullopt with `problem` set (what a message says after the key's
// place: `expected a key of the config ..., got "x..y" (an empty step)`) when it is not one.
std::optional<ConfigKey> parse_config_key(const std::string& text, std::string& problem);

// Sets `key` to `value` in `document`: missing objects on the way are created, array elements must
// exist. Returns what prevents it (e.g. "cannot set /platform/nodes/x: /platform/nodes is 4 in the
// base config, not an object"), naming the document as `document_name` ("the base config").
std::optional<std::string> set_config_key(nlohmann::json& document, const ConfigKey& key, const nlohmann::json& value,
                                          std::string_view document_name);

// Whether `a` is `b` or contains it (a prefix of its tokens).
bool contains_key(const ConfigKey& a, const ConfigKey& b);

}  // namespace ftsim::config
