// A process's send queue (sim/node/send_queue.hpp): with a window of w per destination, the
// others wait and leave highest priority first; a control message is a barrier (never reordered);
// two versions of one datum keep their order; a window of 0 queues nothing.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/node/send_queue.hpp"

using ftsim::node::Message;
using ftsim::node::SendQueue;

namespace {
Message data(ftsim::node::NodeId to, ftsim::node::HandleId h, std::int32_t priority, ftsim::node::Version v = 1) {
  Message m;
  m.destination = to;
  m.is_data = true;
  m.handle = h;
  m.version = v;
  m.priority = priority;
  m.bytes = 100;
  return m;
}
Message control(ftsim::node::NodeId to) {
  Message m;
  m.destination = to;
  m.is_data = false;
  m.control_type = 7;
  m.bytes = 10;
  return m;
}
// Completes messages to `to` one by one: the handles (control: 999) in the order they leave.
std::vector<std::uint32_t> drain(SendQueue& q, ftsim::node::NodeId to) {
  std::vector<std::uint32_t> order;
  while (auto next = q.completed(to)) order.push_back(next->is_data ? next->handle : 999);
  return order;
}
}  // namespace

TEST_CASE("send queue: a window of 0 lets every message leave at once", "[node][send_queue]") {
  SendQueue q(0);
  for (int i = 0; i < 5; ++i) {
    Message m = data(1, i, i);
    CHECK(q.admit(m));
  }
  CHECK(q.queued() == 0);
  CHECK_FALSE(q.completed(1).has_value());
}

TEST_CASE("send queue: beyond the window, the highest priority leaves first, FIFO at equal priority",
          "[node][send_queue]") {
  SendQueue q(1);
  Message first = data(1, 10, 0);
  CHECK(q.admit(first));  // in flight
  for (auto [h, p] : std::vector<std::pair<std::uint32_t, int>>{{11, 1}, {12, 5}, {13, 1}, {14, 9}}) {
    Message m = data(1, h, p);
    CHECK_FALSE(q.admit(m));
  }
  CHECK(q.queued() == 4);
  CHECK(q.queued_bytes() == 400);
  CHECK(drain(q, 1) == std::vector<std::uint32_t>{14, 12, 11, 13});
  CHECK(q.queued() == 0);
  CHECK(q.queued_bytes() == 0);
}

TEST_CASE("send queue: destinations have windows of their own", "[node][send_queue]") {
  SendQueue q(1);
  Message a = data(1, 1, 0), b = data(2, 2, 0), c = data(1, 3, 0);
  CHECK(q.admit(a));
  CHECK(q.admit(b));        // another destination: its own window
  CHECK_FALSE(q.admit(c));  // behind a
  CHECK_FALSE(q.completed(2).has_value());
  auto next = q.completed(1);
  REQUIRE(next.has_value());
  CHECK(next->handle == 3);
}

TEST_CASE("send queue: a control message is never overtaken nor overtakes", "[node][send_queue]") {
  SendQueue q(1);
  Message busy = data(1, 1, 0);
  CHECK(q.admit(busy));
  Message low = data(1, 2, 0), marker = control(1), high = data(1, 3, 100);
  CHECK_FALSE(q.admit(low));
  CHECK_FALSE(q.admit(marker));
  CHECK_FALSE(q.admit(high));  // higher priority, but posted after the marker
  CHECK(drain(q, 1) == std::vector<std::uint32_t>{2, 999, 3});
}

TEST_CASE("send queue: two versions of one datum keep their order whatever their priorities", "[node][send_queue]") {
  SendQueue q(1);
  Message busy = data(1, 1, 0);
  CHECK(q.admit(busy));
  Message v1 = data(1, 5, 1, 1), other = data(1, 6, 3), v2 = data(1, 5, 10, 2);
  CHECK_FALSE(q.admit(v1));
  CHECK_FALSE(q.admit(other));
  CHECK_FALSE(q.admit(v2));  // would overtake v1 at 10: capped at v1's 1, behind it
  std::vector<std::pair<std::uint32_t, std::uint32_t>> order;
  while (auto next = q.completed(1)) order.emplace_back(next->handle, next->version);
  CHECK(order == std::vector<std::pair<std::uint32_t, std::uint32_t>>{{6, 1}, {5, 1}, {5, 2}});
}

TEST_CASE("send queue: a window of 2 keeps two in flight", "[node][send_queue]") {
  SendQueue q(2);
  Message a = data(1, 1, 0), b = data(1, 2, 0), c = data(1, 3, 0);
  CHECK(q.admit(a));
  CHECK(q.admit(b));
  CHECK_FALSE(q.admit(c));
  auto next = q.completed(1);  // one of two completed: room for c
  REQUIRE(next.has_value());
  CHECK(next->handle == 3);
  CHECK_FALSE(q.completed(1).has_value());  // nothing left; one in flight
}
