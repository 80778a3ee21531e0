#include "sim/config/config_overrides.hpp"

#include <algorithm>

namespace ftsim::config {

ConfigOverride parse_override(const std::string& option, const std::string& argument) {
  const bool cfg = option == "--cfg";
  ConfigOverride result;
  result.text = cfg ? option + "=" + argument : option + " " + argument;
  const char separator = cfg ? ':' : '=';
  const std::size_t at = argument.find(separator);
  if (at == std::string::npos) {
    throw ConfigError(result.text, "", std::string("expected KEY") + separator + "VALUE, e.g. " + option + (cfg ? "=" : " ") +
                                           "protocol.period" + separator + "0.1s");
  }
  std::string problem;
  const auto key = parse_config_key(argument.substr(0, at), problem);
  if (!key) throw ConfigError(result.text, "", problem);
  result.key = *key;
  // JSON when it parses as JSON (a number, true, an object), else the text itself ("0.1s", "buddy").
  const std::string value = argument.substr(at + 1);
  result.value = nlohmann::json::parse(value, nullptr, false);
  if (result.value.is_discarded()) result.value = value;
  return result;
}

std::vector<ConfigOverride> parse_overrides(const std::vector<std::string>& sets, const std::vector<std::string>& cfgs) {
  std::vector<ConfigOverride> overrides;
  for (const auto& argument : sets) overrides.push_back(parse_override("--set", argument));
  for (const auto& argument : cfgs) overrides.push_back(parse_override("--cfg", argument));
  for (std::size_t i = 0; i < overrides.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (overrides[i].key.tokens == overrides[j].key.tokens) {
        throw ConfigError(overrides[i].text, "", overrides[i].key.pointer + " is set twice: here and by " + overrides[j].text);
      }
    }
  }
  // The outer key first: the inner one then changes a part of what it set.
  std::stable_sort(overrides.begin(), overrides.end(),
                   [](const ConfigOverride& a, const ConfigOverride& b) { return a.key.tokens.size() < b.key.tokens.size(); });
  return overrides;
}

void apply_overrides(nlohmann::json& document, const std::vector<ConfigOverride>& overrides) {
  for (const auto& o : overrides) {
    if (auto problem = set_config_key(document, o.key, o.value, "the config")) throw ConfigError(o.text, "", *problem);
  }
}

ConfigError name_override(const ConfigError& error, const std::vector<ConfigOverride>& overrides, const std::string& file) {
  if (overrides.empty() || error.file() != file) return error;
  // The innermost override that holds the error's place.
  const ConfigOverride* owner = nullptr;
  for (const auto& o : overrides) {
    const std::string& p = error.pointer();
    const bool inside = p == o.key.pointer || p.rfind(o.key.pointer + "/", 0) == 0;
    if (inside && (!owner || o.key.tokens.size() > owner->key.tokens.size())) owner = &o;
  }
  if (owner) return ConfigError(owner->text, error.pointer(), error.message());
  std::string applied;
  for (const auto& o : overrides) applied += (applied.empty() ? "" : ", ") + o.text;
  return ConfigError(error.file() + " (with " + applied + ")", error.pointer(), error.message());
}

}  // namespace ftsim::config
