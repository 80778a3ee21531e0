#include "sim/config/xz_file.hpp"

#include <lzma.h>

#include <fstream>
#include <iterator>
#include <memory>

#include "sim/config/config_error.hpp"

namespace ftsim::config {

bool is_xz_path(const std::string& path) { return path.size() > 3 && path.compare(path.size() - 3, 3, ".xz") == 0; }

std::string read_xz_file(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, "", "cannot open this file");
  const std::string packed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  lzma_stream stream = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&stream, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
    throw ConfigError(path, "", "cannot start an xz decoder");
  }
  const std::unique_ptr<lzma_stream, void (*)(lzma_stream*)> guard(&stream, lzma_end);
  std::string out;
  char buffer[1 << 16];
  stream.next_in = reinterpret_cast<const std::uint8_t*>(packed.data());
  stream.avail_in = packed.size();
  for (;;) {
    stream.next_out = reinterpret_cast<std::uint8_t*>(buffer);
    stream.avail_out = sizeof buffer;
    const lzma_ret ret = lzma_code(&stream, LZMA_FINISH);
    out.append(buffer, sizeof buffer - stream.avail_out);
    if (out.size() > max_bytes) {
      throw ConfigError(path, "", "decompresses to more than " + std::to_string(max_bytes >> 20) + " MiB");
    }
    if (ret == LZMA_STREAM_END) return out;
    if (ret != LZMA_OK) throw ConfigError(path, "", "not a valid xz file (liblzma error " + std::to_string(int(ret)) + ")");
  }
}

}  // namespace ftsim::config
