// The "nic" contention model's arithmetic (sim/simgrid/nic_queues.hpp), on cases computed by hand:
// a lone message costs L_s + L_d + b / B; two messages of one host serialise in its send queue; two
// messages to one host serialise in its receive queue; a failed host's queues empty.
#include <catch2/catch.hpp>

#include "sim/simgrid/nic_queues.hpp"

using ftsim::simgrid_backend::NicQueues;

namespace {
// Four hosts with 1 us links of 1 GB/s: 1 MB takes 1 ms on a link.
NicQueues four_hosts() {
  NicQueues q;
  for (int i = 0; i < 4; ++i) q.add({1e-6, 1e9});
  return q;
}
constexpr double kMB = 1e6;
}  // namespace

TEST_CASE("nic: a lone message costs both links' latencies plus bytes over bandwidth", "[simgrid][nic]") {
  NicQueues q = four_hosts();
  CHECK(q.transfer(0, 1, kMB, 0.5) == Approx(0.5 + 2e-6 + 1e-3).epsilon(1e-12));
  // The sender's queue is busy for bytes / its bandwidth only (no latency).
  CHECK(q.send_free(0) == Approx(0.501).epsilon(1e-12));
  CHECK(q.recv_free(1) == Approx(0.501002).epsilon(1e-12));
  // Later: nothing queued, the same cost again.
  CHECK(q.transfer(0, 1, kMB, 2.0) == Approx(2.001002).epsilon(1e-12));
}

TEST_CASE("nic: two messages from one host serialise in its send queue", "[simgrid][nic]") {
  NicQueues q = four_hosts();
  const double first = q.transfer(0, 1, kMB, 0);
  const double second = q.transfer(0, 2, kMB, 0);  // to another host: only the sender is shared
  CHECK(first == Approx(1.002e-3).epsilon(1e-12));
  CHECK(second == Approx(1e-3 + 2e-6 + 1e-3).epsilon(1e-12));  // starts when the first has left
  CHECK(q.send_free(0) == Approx(2e-3).epsilon(1e-12));
  // Under "flows" the two would share the up link and both end at 2.002 ms: "nic" keeps the total
  // (the second ends at the same time) but the first arrives after 1 ms instead of 2.
}

TEST_CASE("nic: two messages to one host serialise in its receive queue", "[simgrid][nic]") {
  NicQueues q = four_hosts();
  const double first = q.transfer(0, 3, kMB, 0);
  const double second = q.transfer(1, 3, kMB, 0);  // another sender, free: waits for the receiver
  CHECK(first == Approx(1.002e-3).epsilon(1e-12));
  CHECK(second == Approx(1.002e-3 + 1e-3).epsilon(1e-12));  // drains at the receiver's rate after the first
  CHECK(q.send_free(1) == Approx(1e-3).epsilon(1e-12));    // its sender was free after 1 ms
  // A third sender, later, but still before the receiver is free.
  CHECK(q.transfer(2, 3, kMB, 1.5e-3) == Approx(3.002e-3).epsilon(1e-12));
  // One that reaches the receiver after it is free is not delayed.
  CHECK(q.transfer(2, 3, kMB, 10e-3) == Approx(11.002e-3).epsilon(1e-12));
}

TEST_CASE("nic: the slower link sets the rate, the receiver's drains a queued message", "[simgrid][nic]") {
  NicQueues q;
  q.add({1e-6, 1e9});    // a node: 1 GB/s
  q.add({10e-6, 0.5e9});  // a storage server: 0.5 GB/s, 10 us
  q.add({1e-6, 1e9});
  // Node to server: 11 us + 1 MB at 0.5 GB/s; the node's queue frees after 1 ms.
  CHECK(q.transfer(0, 1, kMB, 0) == Approx(11e-6 + 2e-3).epsilon(1e-12));
  CHECK(q.send_free(0) == Approx(1e-3).epsilon(1e-12));
  // Another node to the same server: waits until 2.011 ms, then 2 ms at the server's rate.
  CHECK(q.transfer(2, 1, kMB, 0) == Approx(2.011e-3 + 2e-3).epsilon(1e-12));
  // Server to node: the server's send queue is free; the node's 1 GB/s link is not the bottleneck.
  CHECK(q.transfer(1, 0, kMB, 0) == Approx(11e-6 + 2e-3).epsilon(1e-12));
}

TEST_CASE("nic: a failed host's queues empty, the other ends keep their reservations", "[simgrid][nic]") {
  NicQueues q = four_hosts();
  q.transfer(0, 1, 10 * kMB, 0);  // 0 busy sending until 10 ms, 1 receiving until 10.002 ms
  q.transfer(2, 1, 10 * kMB, 0);  // 1 busy receiving until 20.002 ms
  q.reset(1, 5e-3);  // host 1 fails at 5 ms
  CHECK(q.recv_free(1) == Approx(5e-3).epsilon(1e-12));
  CHECK(q.send_free(0) == Approx(10e-3).epsilon(1e-12));
  // A message to the rebooted host 1 at 6 ms is not queued behind the lost ones.
  CHECK(q.transfer(3, 1, kMB, 6e-3) == Approx(7.002e-3).epsilon(1e-12));
  // Resetting never moves a queue's free time later.
  q.reset(3, 0);
  CHECK(q.send_free(3) == 0);
}

TEST_CASE("nic: receive queues serve messages in the order their first bytes arrive", "[simgrid][nic]") {
  NicQueues q = four_hosts();
  q.transfer(0, 2, 10 * kMB, 0);                  // host 0 sends until 10 ms
  const double held = q.send(0, 3, kMB, 0);        // queued behind it: its first byte reaches 3 at 10.002 ms
  CHECK(held == Approx(10.002e-3).epsilon(1e-12));
  const double quick = q.send(1, 3, kMB, 1e-3);    // sent later from an idle host: reaches 3 at 1.002 ms
  CHECK(quick == Approx(1.002e-3).epsilon(1e-12));
  // The backend reserves the receive queue at those times, in their order: the later message is
  // not blocked by the held one.
  CHECK(q.receive(1, 3, kMB, quick) == Approx(2.002e-3).epsilon(1e-12));
  CHECK(q.receive(0, 3, kMB, held) == Approx(11.002e-3).epsilon(1e-12));
}
