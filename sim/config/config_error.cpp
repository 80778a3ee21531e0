#include "config_error.hpp"

#include <utility>

namespace ftsim::config {

namespace {
std::string compose(const std::string& file, const std::string& pointer, const std::string& message) {
  std::string text = file.empty() ? std::string("<config>") : file;
  text += ": ";
  if (!pointer.empty()) text += pointer + ": ";
  text += message;
  return text;
}
}  // namespace

ConfigError::ConfigError(std::string file, std::string pointer, std::string message)
    : std::runtime_error(compose(file, pointer, message)),
      file_(std::move(file)),
      pointer_(std::move(pointer)),
      message_(std::move(message)) {}

}  // namespace ftsim::config
