#pragma once
// SendQueue: a process's messages waiting to be posted, StarPU-MPI's `ready_send_requests` (Lion
// 2022 §1.3.3.1-1.3.3.3). With a window of w, at most w messages are in flight from this process
// to one destination (posted, not yet received); the others wait here and leave, as earlier ones
// complete, highest priority first, in posting order at equal priority. This is what makes a
// message priority matter: a checkpoint posted at a high priority overtakes application data
// waiting for the same destination (Lion 2022 §2.3.4: the checkpoint transfers "slowed the
// progress of the execution, while the bandwidth used was far from the network's limits").
//
// The order keeps what a protocol may rely on (FIFO channels):
//  - a control message is never reordered: it leaves after everything queued before it to its
//    destination and before everything queued after it (a marker stays behind the data it follows);
//  - two versions of one datum to one destination leave in the order they were posted (StarPU
//    never reorders them: §1.3.3.3); a later one gets at most the priority of an earlier one queued.
// A window of 0 queues nothing: every message leaves when it is sent (the default).
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/node/flat_map.hpp"
#include "sim/node/message.hpp"

namespace ftsim::node {

class SendQueue {
public:
  explicit SendQueue(std::uint32_t window) : window_(window) {}

  // Whether `m` may leave now (then it counts as in flight to its destination); otherwise the
  // queue keeps it.
  bool admit(Message& m);
  // A message to `destination` completed (received or lost). Returns the next one to post to that
  // destination, if one waits (it counts as in flight from now).
  std::optional<Message> completed(NodeId destination);

  std::uint32_t window() const { return window_; }
  std::size_t queued() const { return queued_; }
  std::uint64_t queued_bytes() const { return queued_bytes_; }

private:
  struct Entry {
    std::uint64_t barrier;  // control messages queued before it
    std::int64_t priority;  // effective priority (control: below every data message)
    std::uint64_t order;    // posting order
    Message message;
  };
  struct Comes_after {  // a max-heap: the entry that leaves next on top
    bool operator()(const Entry& a, const Entry& b) const {
      if (a.barrier != b.barrier) return a.barrier > b.barrier;
      if (a.priority != b.priority) return a.priority < b.priority;
      return a.order > b.order;
    }
  };
  struct Destination {
    std::uint32_t in_flight = 0;
    std::uint64_t barrier = 0;
    std::vector<Entry> waiting;  // a heap by Comes_after
  };
  struct Datum {  // versions of one datum queued to one destination
    std::uint32_t count = 0;
    std::int64_t cap = 0;  // the effective priority of the last one queued
  };
  static std::uint64_t datum_key(NodeId destination, HandleId handle) {
    return (std::uint64_t{destination} << 32) | handle;
  }

  std::uint32_t window_;
  FlatMap64<Destination> destinations_;
  FlatMap64<Datum> data_;
  std::uint64_t next_order_ = 0;
  std::size_t queued_ = 0;
  std::uint64_t queued_bytes_ = 0;
};

}  // namespace ftsim::node
