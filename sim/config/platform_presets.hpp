#pragma once
// Platform presets (docs/platforms.md): "platform": {"preset": NAME, ...} and "storage": {"preset":
// NAME, ...} stand for the preset's keys, under the ones the config gives (a key given wins; an
// object given is merged key by key). For the numbers a new user would otherwise guess: a node, its
// network, its storage, as round figures of public machine specifications.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ftsim::config {

// The document with /platform/preset and /platform/storage/preset expanded (the keys "preset"
// removed). Throws ConfigError naming `origin` and the key for an unknown preset or one that is not
// a string.
nlohmann::json with_platform_presets(const nlohmann::json& document, const std::string& origin);

// The presets, for messages and docs: node presets and storage presets.
std::vector<std::string> platform_preset_names();
std::vector<std::string> storage_preset_names();
// A preset's keys (throws std::out_of_range for an unknown name).
const nlohmann::json& platform_preset(const std::string& name);
const nlohmann::json& storage_preset(const std::string& name);

}  // namespace ftsim::config
