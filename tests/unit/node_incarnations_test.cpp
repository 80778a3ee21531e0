// protocols/node_incarnations.hpp: a process's knowledge of the others' incarnations, sparse (only
// the nodes that differ from the default are held), with the semantics the vector it replaced had.
#include <catch2/catch.hpp>

#include <cstdint>

#include "protocols/node_incarnations.hpp"

using ftsim::protocols::NodeIncarnations;

TEST_CASE("node incarnations: defaults inside and outside the job, updates, and back to the default", "[protocols]") {
  constexpr std::uint32_t kAny = 0xffffffffu;
  NodeIncarnations known(kAny);
  CHECK(known.empty());
  CHECK(known.get(3) == kAny);  // before the job starts: nothing is known
  known.reset(131072, 0, kAny);
  CHECK_FALSE(known.empty());
  CHECK(known.get(0) == 0);
  CHECK(known.get(131071) == 0);
  CHECK(known.get(131072) == kAny);  // the coordinator's id, outside the nodes
  known.set(70000, 2);
  CHECK(known.get(70000) == 2);
  CHECK(known.get(69999) == 0);
  known.set(131072, 5);  // outside: ignored
  CHECK(known.get(131072) == kAny);
  known.set(70000, 0);  // back to the default
  CHECK(known.get(70000) == 0);
  known.reset(16, kAny, kAny);  // a replacement: nothing known but itself
  known.set(4, 1);
  CHECK(known.get(4) == 1);
  CHECK(known.get(5) == kAny);
}
