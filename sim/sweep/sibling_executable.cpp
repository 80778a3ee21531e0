#include "sim/sweep/sibling_executable.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace ftsim::sweep {

std::string self_executable() {
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string("/proc/self/exe") : self.string();
}

std::string sibling_executable(const std::string& name) {
  return (std::filesystem::path(self_executable()).parent_path() / name).string();
}

int exec_sibling(const std::string& name, const std::vector<std::string>& arguments, const std::string& why) {
  const std::string path = sibling_executable(name);
  std::vector<char*> argv;
  for (const std::string& arg : arguments) argv.push_back(const_cast<char*>(arg.c_str()));
  if (argv.empty()) argv.push_back(nullptr);
  argv[0] = const_cast<char*>(path.c_str());
  argv.push_back(nullptr);
  std::fflush(stdout);
  ::execv(path.c_str(), argv.data());
  std::cerr << "error: " << why << " needs " << path << ": " << std::strerror(errno) << "\n";
  return 1;
}

}  // namespace ftsim::sweep
