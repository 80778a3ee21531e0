#include "relative_paths.hpp"

#include <array>
#include <filesystem>

namespace ftsim::config {

nlohmann::json with_absolute_file_paths(nlohmann::json document, const std::string& origin) {
  // The loader resolves each of these against the config's directory (config.cpp: read_application
  // and read_platform, run_config.cpp: read_failures); a new file key must be added here too.
  static const std::array<nlohmann::json::json_pointer, 4> file_keys = {
      nlohmann::json::json_pointer("/application/file"), nlohmann::json::json_pointer("/application/path"),
      nlohmann::json::json_pointer("/platform/xml"), nlohmann::json::json_pointer("/failures/file")};
  const std::filesystem::path directory = std::filesystem::absolute(std::filesystem::path(origin)).parent_path();
  auto make_absolute = [&](nlohmann::json& value) {
    if (!value.is_string()) return;
    const std::filesystem::path path(value.get<std::string>());
    if (path.is_relative()) value = (directory / path).lexically_normal().string();
  };
  for (const auto& key : file_keys) {
    if (document.contains(key)) make_absolute(document[key]);
  }
  // /platform/kernel_models/KERNEL/file, one per modelled kernel.
  const nlohmann::json::json_pointer models("/platform/kernel_models");
  if (document.contains(models) && document[models].is_object()) {
    for (auto& [kernel, model] : document[models].items()) {
      if (model.is_object() && model.contains("file")) make_absolute(model["file"]);
    }
  }
  return document;
}

}  // namespace ftsim::config
