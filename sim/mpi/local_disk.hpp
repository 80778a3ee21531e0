#pragma once
// LocalDisk: an MPI rank's node-local storage (/platform/local_storage), as real files in a
// directory of the machine the rank runs on (under $FTSIM_LOCAL_STORAGE_DIR, or the system's
// temporary directory): a checkpoint written there is read back by a process restarted in place
// after a process failure, and wiped when its node fails. The directory is removed at the end.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "sim/node/message.hpp"

namespace ftsim::mpi {

class LocalDisk {
public:
  explicit LocalDisk(int rank);
  ~LocalDisk();
  LocalDisk(const LocalDisk&) = delete;
  LocalDisk& operator=(const LocalDisk&) = delete;

  // An empty string, or why the write failed (the path and the system's reason).
  std::string write(std::uint64_t key, const node::Bytes& content);
  // The file's content, or none if it is not there.
  std::optional<node::Bytes> read(std::uint64_t key) const;
  void erase(std::uint64_t key);
  void wipe();  // its node failed: everything on it is gone

private:
  std::filesystem::path file(std::uint64_t key) const;
  std::filesystem::path dir_;
};

}  // namespace ftsim::mpi
