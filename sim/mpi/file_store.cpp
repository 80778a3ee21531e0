#include "sim/mpi/file_store.hpp"

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
std::atomic<unsigned> stores_made{0};  // several runs in one process (the reference run first)
}

FileStore::FileStore(const char* root_variable, const std::string& name) {
  const char* root = std::getenv(root_variable);
  const std::filesystem::path base = root && *root ? std::filesystem::path(root) : std::filesystem::temp_directory_path();
  dir_ = base / (name + "-" + std::to_string(::getpid()) + "-" + std::to_string(stores_made++));
}

FileStore::~FileStore() { wipe(); }

std::string FileStore::write(const std::string& file, const node::Bytes& content, std::uint64_t bytes) {
  const std::filesystem::path path = dir_ / file;
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  if (error) return "cannot create " + path.parent_path().string() + ": " + error.message();
  // Written aside, then renamed: a file that is there is whole.
  const std::filesystem::path partial = path.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(&bytes), sizeof bytes);
    out.write(reinterpret_cast<const char*>(content.data()), static_cast<std::streamsize>(content.size()));
    if (!out) return "cannot write " + partial.string() + ": " + std::strerror(errno);
  }
  std::filesystem::rename(partial, path, error);
  if (error) return "cannot rename " + partial.string() + ": " + error.message();
  return {};
}

std::optional<FileStore::Object> FileStore::read(const std::string& file) const {
  std::ifstream in(dir_ / file, std::ios::binary);
  Object object;
  if (!in || !in.read(reinterpret_cast<char*>(&object.bytes), sizeof object.bytes)) return std::nullopt;
  object.content.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return object;
}

void FileStore::erase(const std::string& file) {
  std::error_code ignored;
  std::filesystem::remove(dir_ / file, ignored);
}

void FileStore::wipe() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

}  // namespace ftsim::mpi
