#include "sim/mpi/local_disk.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <system_error>

namespace ftsim::mpi {

namespace {
std::atomic<unsigned> disks_made{0};  // several runs in one process (the reference run first)
}

LocalDisk::LocalDisk(int rank) {
  const char* root = std::getenv("FTSIM_LOCAL_STORAGE_DIR");
  const std::filesystem::path base = root && *root ? std::filesystem::path(root) : std::filesystem::temp_directory_path();
  dir_ = base / ("ftsim-local-" + std::to_string(::getpid()) + "-" + std::to_string(disks_made++) + "-rank-" +
                 std::to_string(rank));
}

LocalDisk::~LocalDisk() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::filesystem::path LocalDisk::file(std::uint64_t key) const { return dir_ / (std::to_string(key) + ".ckpt"); }

std::string LocalDisk::write(std::uint64_t key, const node::Bytes& content) {
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (error) return "cannot create node-local storage " + dir_.string() + ": " + error.message();
  // Written aside, then renamed: a file that is there is whole.
  const std::filesystem::path path = file(key);
  const std::filesystem::path partial = path.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(content.data()), static_cast<std::streamsize>(content.size()));
    if (!out) return "cannot write " + partial.string() + ": " + std::strerror(errno);
  }
  std::filesystem::rename(partial, path, error);
  if (error) return "cannot rename " + partial.string() + ": " + error.message();
  return {};
}

std::optional<node::Bytes> LocalDisk::read(std::uint64_t key) const {
  std::ifstream in(file(key), std::ios::binary);
  if (!in) return std::nullopt;
  node::Bytes content;
  content.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return content;
}

void LocalDisk::erase(std::uint64_t key) {
  std::error_code ignored;
  std::filesystem::remove(file(key), ignored);
}

void LocalDisk::wipe() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

}  // namespace ftsim::mpi
