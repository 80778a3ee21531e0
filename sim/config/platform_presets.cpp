#include "sim/config/platform_presets.hpp"

#include <map>

#include "sim/config/config_error.hpp"

namespace ftsim::config {

namespace {

using Json = nlohmann::json;

// Each preset says where its numbers come from in docs/platforms.md.
const std::map<std::string, Json>& node_presets() {
  static const std::map<std::string, Json> presets = {
      // A dual-socket x86 node of 2 x 32 cores (about 2.5 GHz, AVX-512: 80 GFlop/s peak per core in
      // double precision; 20 sustained by tiled dense kernels), HDR InfiniBand (200 Gb/s, ~1 us).
      {"infiniband-cluster",
       Json{{"cores_per_node", 64},
            {"core_gflops", {{"default", 20}}},
            {"network", {{"topology", "cluster"}, {"bandwidth", "200Gbps"}, {"latency", "1us"}}}}},
      // A GPU-less exascale-class node (A64FX, Fugaku): 48 compute cores at 2.2 GHz, 70.4 GFlop/s
      // peak per core in double precision (35 sustained); Tofu-D, 6 links of 6.8 GB/s injected at
      // once (40.8 GB/s, ~326 Gb/s), ~1 us.
      {"exascale-cpu",
       Json{{"cores_per_node", 48},
            {"core_gflops", {{"default", 35}}},
            {"network", {{"topology", "cluster"}, {"bandwidth", "326Gbps"}, {"latency", "1us"}}}}},
  };
  return presets;
}

const std::map<std::string, Json>& storage_presets_map() {
  static const std::map<std::string, Json> presets = {
      // A parallel file system shared by the job: one server standing for the whole file system
      // (every writer shares its bandwidth), 100 GB/s, ~1 ms per request.
      {"pfs", Json{{"hosts", 1}, {"bandwidth", "100GB/s"}, {"latency", "1ms"}}},
      // A burst buffer: 8 NVMe servers of 20 GB/s each (160 GB/s together), ~50 us.
      {"burst-buffer", Json{{"hosts", 8}, {"bandwidth", "20GB/s"}, {"latency", "50us"}}},
  };
  return presets;
}

// `given` over `preset`: objects merged key by key, anything else replaced.
Json merged(const Json& preset, const Json& given) {
  if (!preset.is_object() || !given.is_object()) return given;
  Json out = preset;
  for (const auto& [key, value] : given.items()) out[key] = out.contains(key) ? merged(out[key], value) : value;
  return out;
}

std::string choices(const std::map<std::string, Json>& presets) {
  std::string text;
  for (const auto& [name, _] : presets) text += (text.empty() ? "\"" : ", \"") + name + "\"";
  return text;
}

// The object `object` with its "preset" expanded from `presets`; `pointer` names it in errors.
Json expand(const Json& object, const std::map<std::string, Json>& presets, const std::string& origin, const std::string& pointer) {
  if (!object.is_object() || !object.contains("preset")) return object;
  const Json& name = object["preset"];
  const auto it = name.is_string() ? presets.find(name.get<std::string>()) : presets.end();
  if (it == presets.end()) {
    throw ConfigError(origin, pointer + "/preset", "expected one of " + choices(presets) + ", got " + name.dump());
  }
  Json given = object;
  given.erase("preset");
  return merged(it->second, given);
}

}  // namespace

Json with_platform_presets(const Json& document, const std::string& origin) {
  if (!document.is_object() || !document.contains("platform") || !document["platform"].is_object()) return document;
  Json out = document;
  Json& platform = out["platform"];
  if (platform.contains("storage")) platform["storage"] = expand(platform["storage"], storage_presets_map(), origin, "/platform/storage");
  platform = expand(platform, node_presets(), origin, "/platform");
  return out;
}

std::vector<std::string> platform_preset_names() {
  std::vector<std::string> names;
  for (const auto& [name, _] : node_presets()) names.push_back(name);
  return names;
}

std::vector<std::string> storage_preset_names() {
  std::vector<std::string> names;
  for (const auto& [name, _] : storage_presets_map()) names.push_back(name);
  return names;
}

const Json& platform_preset(const std::string& name) { return node_presets().at(name); }
const Json& storage_preset(const std::string& name) { return storage_presets_map().at(name); }

}  // namespace ftsim::config
