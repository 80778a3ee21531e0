// A channel's early messages (sim/world/early_messages.hpp): held out of order, taken in order,
// the window reused once drained and trimmed when it runs long.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "sim/world/early_messages.hpp"

using ftsim::world::EarlyMessages;
using ftsim::node::Message;

namespace {
Message numbered(std::uint64_t sequence) {
  Message m;
  m.sequence = sequence;
  return m;
}
}  // namespace

TEST_CASE("early messages: taken in sequence once the next one has passed", "[channels]") {
  EarlyMessages early;
  std::uint64_t next = 0;  // the channel's next sequence to deliver
  std::vector<std::uint64_t> delivered;
  // 3 and 1 overtake 0; 2 comes last.
  early.hold(3 - next, numbered(3));
  early.hold(1 - next, numbered(1));
  CHECK_FALSE(early.take());  // 0 has not come
  ++next;
  early.pass();  // 0 came and was delivered
  while (auto m = early.take()) {
    CHECK(m->sequence == next);
    delivered.push_back(m->sequence);
    ++next;
  }
  CHECK(delivered == std::vector<std::uint64_t>{1});
  ++next;
  early.pass();  // 2
  while (auto m = early.take()) {
    delivered.push_back(m->sequence);
    ++next;
  }
  CHECK(delivered == std::vector<std::uint64_t>{1, 3});
  CHECK(next == 4);
  CHECK_FALSE(early.take());
}

TEST_CASE("early messages: a long stream with one straggler at a time stays in order", "[channels]") {
  // Every 100th message arrives 10 places late: the window holds up to 10, drains, and is reused
  // or trimmed without losing or reordering anything.
  EarlyMessages early;
  std::uint64_t next = 0;
  std::vector<std::uint64_t> delivered;
  std::vector<std::uint64_t> arrivals;
  for (std::uint64_t block = 0; block < 50; ++block) {
    const std::uint64_t late = block * 100;
    for (std::uint64_t s = late + 1; s <= late + 10; ++s) arrivals.push_back(s);
    arrivals.push_back(late);
    for (std::uint64_t s = late + 11; s < late + 100; ++s) arrivals.push_back(s);
  }
  for (const std::uint64_t s : arrivals) {
    if (s != next) {
      early.hold(s - next, numbered(s));
      continue;
    }
    delivered.push_back(s);
    ++next;
    early.pass();
    while (auto m = early.take()) {
      delivered.push_back(m->sequence);
      ++next;
    }
  }
  REQUIRE(delivered.size() == 5000);
  for (std::uint64_t i = 0; i < delivered.size(); ++i) CHECK(delivered[i] == i);
}
