#pragma once
// Files compressed with xz (liblzma): failure logs are published and kept that way (the LANL data
// is 2.9 MB as CSV, 250 KB as .xz).
#include <cstddef>
#include <string>

namespace ftsim::config {

// Whether `path` ends in ".xz".
bool is_xz_path(const std::string& path);

// The decompressed contents of an xz file, at most `max_bytes` of them; throws ConfigError naming
// the file if it cannot be read, is not valid xz, or decompresses to more.
std::string read_xz_file(const std::string& path, std::size_t max_bytes);

}  // namespace ftsim::config
