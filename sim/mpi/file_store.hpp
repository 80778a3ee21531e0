#pragma once
// FileStore: checkpoint files in a directory of the machine a rank runs on, for the MPI backend's
// storage: each rank's node-local storage (/platform/local_storage: read back by a process restarted
// in place, wiped when its node fails) and, on the driver rank, the storage servers
// (/platform/storage: the PFS, a directory per server). The directory is under the environment
// variable the owner names, or the system's temporary directory, and is removed at the end.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "sim/node/message.hpp"

namespace ftsim::mpi {

class FileStore {
public:
  struct Object {
    node::Bytes content;
    std::uint64_t bytes = 0;  // its simulated size (a header of the file)
  };

  // A directory `name`-PID-N under $`root_variable` (if set) or the temporary directory.
  FileStore(const char* root_variable, const std::string& name);
  ~FileStore();
  FileStore(const FileStore&) = delete;
  FileStore& operator=(const FileStore&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  // An empty string, or why the write failed (the path and the system's reason). `file` is a path
  // relative to the directory ("3.ckpt", "server-0/3.ckpt").
  std::string write(const std::string& file, const node::Bytes& content, std::uint64_t bytes);
  // The file's content and size, or none if it is not there (or not whole).
  std::optional<Object> read(const std::string& file) const;
  void erase(const std::string& file);
  void wipe();  // everything on it is gone (its node failed)

private:
  std::filesystem::path dir_;
};

}  // namespace ftsim::mpi
