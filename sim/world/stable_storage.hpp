#pragma once
// StableStorage: what the stable-storage servers (/platform/storage/hosts) hold, per server and
// key. It is the world's, not a node's: it outlives every failure of the nodes. The Simulation
// keeps it, and on MPI the driver rank. The Simulation keeps the nodes' local storage
// (/platform/local_storage) in one too, a "server" per node, wiped when its node fails.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/node/message.hpp"

namespace ftsim::world {

class StableStorage {
public:
  struct Object {
    node::Bytes content;
    std::uint64_t bytes = 0;  // its simulated size (content may be a stand-in)
  };

  explicit StableStorage(std::uint32_t servers) : servers_(servers) {}

  std::uint32_t servers() const { return static_cast<std::uint32_t>(servers_.size()); }
  bool empty() const { return servers_.empty(); }
  // The server a request names, among those there are (a protocol may name any number).
  std::uint32_t server(std::uint32_t named) const { return named % servers(); }

  void put(std::uint32_t server, std::uint64_t key, Object object) { servers_[server][key] = std::move(object); }
  // Null if the server does not hold it.
  const Object* find(std::uint32_t server, std::uint64_t key) const {
    auto it = servers_[server].find(key);
    return it == servers_[server].end() ? nullptr : &it->second;
  }
  void erase(std::uint32_t server, std::uint64_t key) { servers_[server].erase(key); }
  void wipe(std::uint32_t server) { servers_[server].clear(); }  // node-local storage: its node failed
  // The size of the server's answer to a read: the object, or a tiny "not found".
  std::uint64_t answer_bytes(std::uint32_t server, std::uint64_t key) const {
    const Object* object = find(server, key);
    return object ? object->bytes : 1;
  }

private:
  std::vector<std::unordered_map<std::uint64_t, Object>> servers_;
};

}  // namespace ftsim::world
