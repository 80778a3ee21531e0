#include "sim/node/send_queue.hpp"

#include <algorithm>
#include <limits>

namespace ftsim::node {

bool SendQueue::admit(Message& m) {
  if (window_ == 0) return true;
  Destination& d = destinations_[m.destination];
  if (d.in_flight < window_ && d.waiting.empty()) {
    ++d.in_flight;
    return true;
  }
  Entry entry{d.barrier, m.priority, next_order_++, {}};
  if (!m.is_data) {
    // Behind everything queued so far, ahead of everything queued later.
    entry.priority = std::numeric_limits<std::int64_t>::min();
    ++d.barrier;
  } else {
    Datum& datum = data_[datum_key(m.destination, m.handle)];
    if (datum.count > 0) entry.priority = std::min(entry.priority, datum.cap);
    datum.cap = entry.priority;
    ++datum.count;
  }
  ++queued_;
  queued_bytes_ += m.bytes;
  entry.message = std::move(m);
  d.waiting.push_back(std::move(entry));
  std::push_heap(d.waiting.begin(), d.waiting.end(), Comes_after{});
  return false;
}

std::optional<Message> SendQueue::completed(NodeId destination) {
  if (window_ == 0) return std::nullopt;
  auto found = destinations_.find(destination);
  if (found == destinations_.end()) return std::nullopt;
  Destination& d = found->second;
  if (d.in_flight > 0) --d.in_flight;
  if (d.waiting.empty() || d.in_flight >= window_) return std::nullopt;
  std::pop_heap(d.waiting.begin(), d.waiting.end(), Comes_after{});
  Message next = std::move(d.waiting.back().message);
  d.waiting.pop_back();
  ++d.in_flight;
  --queued_;
  queued_bytes_ -= next.bytes;
  if (next.is_data) {
    auto datum = data_.find(datum_key(destination, next.handle));
    if (datum != data_.end() && --datum->second.count == 0) data_.erase(datum);
  }
  return next;
}

}  // namespace ftsim::node
