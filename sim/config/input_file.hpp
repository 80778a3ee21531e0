#pragma once
// Input files (configs, graph files, failure traces, platform files) are read only if they are
// regular files of a bounded size: a FIFO would block the open forever, /dev/zero would be read
// until memory runs out, and a directory reads as empty on Linux.
#include <cstdint>
#include <optional>
#include <string>

namespace ftsim::config {

// Size limits, far above any real input: a config or a trace is a few KB, a platform file a few
// MB; a graph file of 10 million tasks is about 1 GB (its parsed JSON takes several times that).
inline constexpr std::uint64_t kMaxConfigFileBytes = std::uint64_t(64) << 20;
inline constexpr std::uint64_t kMaxTraceFileBytes = std::uint64_t(64) << 20;
inline constexpr std::uint64_t kMaxPlatformFileBytes = std::uint64_t(64) << 20;
inline constexpr std::uint64_t kMaxGraphFileBytes = std::uint64_t(4) << 30;

// Why `path` cannot be read as an input file of at most `max_bytes` ("does not exist", "is a
// FIFO, not a regular file", ...), or nullopt if it can. Looks with stat() and opens nothing.
std::optional<std::string> input_file_problem(const std::string& path, std::uint64_t max_bytes);

// The contents of a regular file of at most `max_bytes`. Opens without blocking and checks the
// opened file again (it may have changed since a stat). Throws ConfigError naming `path`.
std::string read_input_file(const std::string& path, std::uint64_t max_bytes);

// At most `limit` characters of a line, control and non-ASCII bytes escaped, for messages: a
// line of an input file may hold a CR, a NUL or megabytes of junk.
std::string printable_excerpt(const std::string& line, std::size_t limit = 60);

}  // namespace ftsim::config
