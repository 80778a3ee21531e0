// The buddy keeper's store keys (protocols/buddy/buddy_options.hpp): sized to the job, so that 131,072
// nodes fit (the 16-bit origin field of before stopped the protocol at 65,535), distinct for
// distinct saves, and ordered by (origin, checkpoint, handle) as the store iterates them.
#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <tuple>

#include "protocols/buddy/buddy_messages.hpp"
#include "protocols/buddy/buddy_options.hpp"

using ftsim::protocols::buddy::EntryKeys;

TEST_CASE("buddy store keys: distinct and ordered by origin, checkpoint, handle at 131,072 nodes", "[buddy]") {
  EntryKeys keys;
  REQUIRE(keys.layout(131072, 16, 2'700'000));
  const std::uint32_t value = ftsim::protocols::buddy::messages::kValueHandle;
  std::set<std::uint64_t> seen;
  std::uint64_t previous = 0;
  bool first = true;
  for (std::uint32_t origin : {0u, 1u, 65535u, 65536u, 131071u}) {
    for (std::uint32_t c : {0u, 1u, 15u, 16u}) {
      for (std::uint32_t h : {0u, 1u, 2'699'999u, value}) {
        const std::uint64_t key = keys.key(origin, c, h);
        CHECK(key != ~std::uint64_t(0));
        CHECK(seen.insert(key).second);
        if (!first) CHECK(key > previous);  // loops in (origin, checkpoint, handle) order, VALUE last
        previous = key;
        first = false;
      }
    }
  }
}

TEST_CASE("buddy store keys: a job whose sizes need more than 63 bits is refused", "[buddy]") {
  EntryKeys keys;
  CHECK(keys.layout(1u << 20, 1u << 10, 1u << 31));   // 20 + 11 + 32 = 63
  CHECK_FALSE(keys.layout(1u << 21, 1u << 10, 1u << 31));  // 21 + 11 + 32
}
