#include "input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "config_error.hpp"

namespace ftsim::config {

namespace {

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string size_text(std::uint64_t bytes) {
  if (bytes >= (std::uint64_t(1) << 30) && bytes % (std::uint64_t(1) << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (std::uint64_t(1) << 20) && bytes % (std::uint64_t(1) << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

// The problem with an opened or stat'ed file, or nullopt.
std::optional<std::string> stat_problem(const struct stat& info, std::uint64_t max_bytes) {
  if (!S_ISREG(info.st_mode)) return "is " + kind_of(info.st_mode) + ", not a regular file";
  if (static_cast<std::uint64_t>(info.st_size) > max_bytes) {
    return "is " + std::to_string(info.st_size) + " bytes, more than the " + size_text(max_bytes) +
           " that ftsim reads from such a file";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> input_file_problem(const std::string& path, std::uint64_t max_bytes) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return "cannot open file (" + std::string(std::strerror(errno)) + ")";
  }
  return stat_problem(info, max_bytes);
}

std::string read_input_file(const std::string& path, std::uint64_t max_bytes) {
  if (auto problem = input_file_problem(path, max_bytes)) throw ConfigError(path, "", *problem);
  // O_NONBLOCK: should a FIFO have replaced the file since the stat, open() returns at once.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw ConfigError(path, "", "cannot open file (" + std::string(std::strerror(errno)) + ")");
  auto fail = [&](const std::string& message) {
    ::close(fd);
    throw ConfigError(path, "", message);
  };
  struct stat info {};
  if (::fstat(fd, &info) != 0) fail("cannot read file (" + std::string(std::strerror(errno)) + ")");
  if (auto problem = stat_problem(info, max_bytes)) fail(*problem);
  std::string contents;
  contents.reserve(static_cast<std::size_t>(info.st_size));
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot read file (" + std::string(std::strerror(errno)) + ")");
    if (n == 0) break;
    contents.append(buffer, static_cast<std::size_t>(n));
    // The file may grow while it is read.
    if (contents.size() > max_bytes) fail("is more than the " + size_text(max_bytes) + " that ftsim reads from such a file");
  }
  ::close(fd);
  return contents;
}

// At most `limit` characters of a line, control and non-ASCII bytes escaped, for messages: a
// trace line may hold a CR, a NUL or megabytes of junk.
std::string printable_excerpt(const std::string& line, std::size_t limit) {
  std::string text;
  for (std::size_t i = 0; i < line.size() && text.size() < limit; ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c == 0xC2 && i + 1 < line.size() && static_cast<unsigned char>(line[i + 1]) == 0xB5) {
      text += "\u00b5";  // the micro sign of "µs"
      ++i;
    } else if (c >= 0x20 && c < 0x7F) {
      text += static_cast<char>(c);
    } else {
      static const char* const kHex = "0123456789abcdef";
      text += c == '\r' ? std::string("\\r") : c == '\t' ? std::string("\\t") : std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
    }
  }
  if (text.size() >= limit && text.size() < line.size()) text += "...";
  return text;
}

}  // namespace ftsim::config
