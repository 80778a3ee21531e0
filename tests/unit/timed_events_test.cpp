// The SimGrid backend's queue of timed events: equal times fire in insertion order whatever else is
// queued (a late failure must not reorder simultaneous task ends), cancelled events never fire.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "sim/simgrid/timed_events.hpp"

using ftsim::simgrid_backend::TimedEvents;

namespace {
std::vector<std::uint32_t> drain(TimedEvents& q, double now) {
  std::vector<std::uint32_t> tasks;
  TimedEvents::Event e;
  while (q.pop_due(now, e)) {
    if (!e.cancelled) tasks.push_back(e.id);
  }
  return tasks;
}
}  // namespace

TEST_CASE("timed events: equal times fire first in, first out, whatever else is queued", "[simgrid][timers]") {
  for (bool late_event : {false, true}) {
    TimedEvents q;
    if (late_event) q.add_action(100.0, [] {});
    for (std::uint32_t t = 0; t < 40; ++t) q.add_task_end(t % 3 == 0 ? 1.0 : 2.0, 0, t);
    std::vector<std::uint32_t> expected;
    for (std::uint32_t t = 0; t < 40; t += 3) expected.push_back(t);
    CHECK(q.earliest() == 1.0);
    CHECK(drain(q, 1.0) == expected);
    expected.clear();
    for (std::uint32_t t = 0; t < 40; ++t) {
      if (t % 3 != 0) expected.push_back(t);
    }
    CHECK(drain(q, 2.0) == expected);
    CHECK(q.empty() == !late_event);
  }
}

TEST_CASE("timed events: a cancelled event is dropped, its slot reused", "[simgrid][timers]") {
  TimedEvents q;
  const auto a = q.add_task_end(1.0, 0, 7);
  q.add_task_end(1.0, 1, 8);
  q.cancel(a);
  CHECK(drain(q, 0.5).empty());
  CHECK(drain(q, 1.0) == std::vector<std::uint32_t>{8});
  CHECK(q.add_task_end(3.0, 0, 9) <= 1u);  // a freed slot, not a new one
  q.clear();
  CHECK(q.empty());
}

TEST_CASE("timed events: typed events keep kind, node and id while another event is cancelled, actions in between",
          "[simgrid][timers]") {
  // A typed event (task end, "nic" message step) is carried in its queue entry; with a cancelled
  // event pending it is read through its slot instead. Both ways give the same events in order.
  using Kind = TimedEvents::Kind;
  TimedEvents q;
  std::vector<int> fired;
  q.add_task_end(1.0, 3, 30);
  const auto cancelled = q.add_task_end(1.0, 4, 40);
  q.add_action(1.0, [&] { fired.push_back(-1); });
  q.add(1.0, Kind::nic_head, 0, 7);
  q.add_task_end(1.0, 5, 50);
  q.cancel(cancelled);
  q.add_task_end(2.0, 6, 60);  // after the cancelled one is gone: the entry alone
  q.add(2.0, Kind::nic_arrival, 0, 7);
  const auto lost = q.add(2.0, Kind::nic_arrival, 0, 8);  // a message to a failed node
  q.cancel(lost);
  TimedEvents::Event e;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ends;
  while (q.pop_due(2.0, e)) {
    if (e.cancelled) continue;
    if (e.kind == Kind::action) {
      REQUIRE(e.action);
      e.action();
      fired.push_back(0);
      continue;
    }
    CHECK(!e.action);
    if (e.kind != Kind::task_end) {
      fired.push_back(e.kind == Kind::nic_head ? 1000 + int(e.id) : 2000 + int(e.id));
      continue;
    }
    ends.emplace_back(e.node, e.id);
    fired.push_back(static_cast<int>(e.id));
  }
  CHECK(ends == std::vector<std::pair<std::uint32_t, std::uint32_t>>{{3, 30}, {5, 50}, {6, 60}});
  CHECK(fired == std::vector<int>{30, -1, 0, 1007, 50, 60, 2007});
  CHECK(q.empty());
}

TEST_CASE("timed events: the peeks name the first three events in the order they will pop", "[simgrid][timers]") {
  // The cache hints of the backend (three stages) must name the right tasks, or they warm the
  // wrong lines: at every step, peek(0), peek(1) and peek(2) are the next three pops, kind and id.
  std::mt19937 random(7);
  std::uniform_int_distribution<int> time(0, 20);
  const TimedEvents::Kind kinds[] = {TimedEvents::Kind::task_end, TimedEvents::Kind::nic_head,
                                     TimedEvents::Kind::nic_arrival};
  for (int trial = 0; trial < 50; ++trial) {
    TimedEvents q;
    const std::uint32_t n = 1 + static_cast<std::uint32_t>(trial);
    for (std::uint32_t t = 0; t < n; ++t) q.add(time(random), kinds[t % 3], t % 5, t);
    std::vector<std::pair<TimedEvents::Kind, std::uint32_t>> peeked[3];
    std::vector<std::pair<TimedEvents::Kind, std::uint32_t>> popped;
    TimedEvents::Event e;
    for (;;) {
      TimedEvents::Upcoming up;
      for (int k = 0; k < 3; ++k) {
        if (q.peek(k, up)) peeked[k].emplace_back(up.kind, up.id);
      }
      if (!q.pop_due(100.0, e)) break;
      popped.emplace_back(e.kind, e.id);
    }
    for (std::size_t k = 0; k < 3; ++k) {
      const std::vector<std::pair<TimedEvents::Kind, std::uint32_t>> expected(popped.begin() + std::min(k, popped.size()),
                                                                          popped.end());
      CHECK(peeked[k] == expected);
    }
  }
}
