#pragma once
// StorageRequests: a simulation's requests to stable storage while their transfers are under
// way (the backend knows them by id). Ids are reused: no allocation per request once warm.
#include <cstdint>
#include <vector>

#include "sim/node/message.hpp"

namespace ftsim::world {

using graphs::NodeId;

class StorageRequests {
public:
  struct Request {
    NodeId node = 0;
    std::uint32_t incarnation = 0;  // of the requester: its answer dies with it
    std::uint32_t server = 0;
    std::uint64_t key = 0;
    bool write = false;
    std::uint64_t bytes = 0;
    node::Bytes content;  // a write's
    std::uint64_t token = 0;
  };

  std::uint32_t open(Request request) {
    if (!free_.empty()) {
      const std::uint32_t id = free_.back();
      free_.pop_back();
      requests_[id] = std::move(request);
      return id;
    }
    requests_.push_back(std::move(request));
    return static_cast<std::uint32_t>(requests_.size() - 1);
  }
  bool known(std::uint64_t id) const { return id < requests_.size(); }
  // The request `id` completed: it is handed back and its id freed.
  Request close(std::uint64_t id) {
    Request request = std::move(requests_[id]);
    free_.push_back(static_cast<std::uint32_t>(id));
    return request;
  }

private:
  std::vector<Request> requests_;
  std::vector<std::uint32_t> free_;
};

}  // namespace ftsim::world
