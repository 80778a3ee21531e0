#pragma once
// The messages of one channel that arrived before an earlier one of the same channel, waiting for
// it: the one `distance` places after the next to deliver sits at slot head + distance. Each is
// moved in and out once (a heap of messages moved them at every step: 2% of a 64-node buddy run),
// and the storage is reused from one overtaking to the next: no allocation per message.
//
//   early.hold(m.sequence - next_delivery, m);      // m overtook an earlier message
//   early.pass();                                   // the next one came and was delivered
//   while (auto m = early.take()) deliver(*m);      // those it let through, in order
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/node/message.hpp"

namespace ftsim::world {

class EarlyMessages {
public:
  // `distance` (>= 1) places after the next message to deliver.
  void hold(std::uint64_t distance, const node::Message& m) {
    const std::size_t at = head_ + static_cast<std::size_t>(distance);
    if (at >= slots_.size()) slots_.resize(at + 1);
    slots_[at] = m;
  }
  // The next message was delivered as it came (its slot, if any, is empty).
  void pass() {
    if (head_ < slots_.size()) ++head_;
  }
  // The next message if it is here (then it counts as delivered), else nothing.
  std::optional<node::Message> take() {
    if (head_ < slots_.size() && slots_[head_]) {
      std::optional<node::Message> next = std::move(slots_[head_]);
      slots_[head_++].reset();
      return next;
    }
    if (head_ == slots_.size()) {  // none waiting: start again at the front
      slots_.clear();
      head_ = 0;
    } else if (head_ >= 64 && 2 * head_ >= slots_.size()) {  // drop the delivered front
      slots_.erase(slots_.begin(), slots_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    return std::nullopt;
  }

private:
  std::vector<std::optional<node::Message>> slots_;
  std::size_t head_ = 0;
};

}  // namespace ftsim::world
