#include "relative_paths.hpp"

#include <array>
#include <filesystem>

namespace ftsim::config {

nlohmann::json with_absolute_file_paths(nlohmann::json document, const std::string& origin) {
  // The loader resolves each of these against the config's directory (config.cpp: read_application
  // and read_platform, run_config.cpp: read_failures); a new file key must be added here too.
  static const std::array<nlohmann::json::json_pointer, 4> file_keys = {
      nlohmann::json::json_pointer("/application/file"), nlohmann::json::json_pointer("/application/path"), nlohmann::json::json_pointer("/platform/xml"),
      nlohmann::json::json_pointer("/failures/file")};
  const std::filesystem::path directory = std::filesystem::absolute(std::filesystem::path(origin)).parent_path();
  for (const auto& key : file_keys) {
    if (!document.contains(key) || !document[key].is_string()) continue;
    const std::filesystem::path path(document[key].get<std::string>());
    if (path.is_relative()) document[key] = (directory / path).lexically_normal().string();
  }
  return document;
}

}  // namespace ftsim::config
