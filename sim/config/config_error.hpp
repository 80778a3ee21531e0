#pragma once
// The one error type for bad input: it names the file, the JSON pointer and what was expected,
// e.g. "configs/x.json: /protocol/period: expected a positive duration, got -3".
#include <stdexcept>
#include <string>

namespace ftsim::config {

class ConfigError : public std::runtime_error {
public:
  ConfigError(std::string file, std::string pointer, std::string message);

  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& message() const { return message_; }

private:
  std::string file_;
  std::string pointer_;
  std::string message_;
};

}  // namespace ftsim::config
