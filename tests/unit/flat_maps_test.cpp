// FlatMap64 and FlatMultimap64 against the standard containers, on random keys and on keys shaped
// like ftsim's (handle << 32 | version), present and absent.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <unordered_map>
#include <vector>

#include "sim/node/flat_map.hpp"
#include "sim/node/flat_multimap.hpp"

using ftsim::node::FlatMap64;
using ftsim::node::FlatMultimap64;

namespace {
std::uint64_t version_key(std::uint32_t handle, std::uint32_t version) { return (std::uint64_t(handle) << 32) | version; }
}  // namespace

TEST_CASE("FlatMap64 holds what an unordered_map holds through inserts and erases", "[flat-map]") {
  std::mt19937_64 random(7);
  FlatMap64<int> flat;
  std::unordered_map<std::uint64_t, int> reference;
  for (int step = 0; step < 20000; ++step) {
    const std::uint64_t key = version_key(random() % 300, random() % 4);
    if (random() % 3 == 0) {
      REQUIRE(flat.erase(key) == reference.erase(key));
    } else {
      const int value = int(random() % 1000);
      flat[key] = value;
      reference[key] = value;
    }
    if (step % 1000 == 0) {
      REQUIRE(flat.size() == reference.size());
      for (std::uint32_t h = 0; h < 300; ++h) {
        for (std::uint32_t v = 0; v < 4; ++v) {
          const auto it = reference.find(version_key(h, v));
          const auto found = flat.find(version_key(h, v));
          REQUIRE((found != flat.end()) == (it != reference.end()));
          if (it != reference.end()) REQUIRE(found->second == it->second);
        }
      }
    }
  }
}

TEST_CASE("FlatMultimap64 finds every value of a key in order, and nothing for an absent key", "[flat-map]") {
  for (const std::size_t keys : {std::size_t(0), std::size_t(1), std::size_t(5), std::size_t(700), std::size_t(20000)}) {
    std::mt19937_64 random(keys);
    FlatMultimap64<int> flat;
    std::multimap<std::uint64_t, int> reference;
    for (std::size_t i = 0; i < keys; ++i) {
      // Version keys of consecutive handles, some with several values, and a few random keys.
      const std::uint64_t key = i % 10 == 9 ? random() >> 1 : version_key(std::uint32_t(1000 + i / 2), std::uint32_t(i % 3));
      const int values = 1 + int(random() % 3);
      for (int v = 0; v < values; ++v) {
        const int value = int(random() % 100000);
        flat.add(key, value);
        reference.emplace(key, value);
      }
    }
    flat.seal();
    REQUIRE(flat.size() == reference.size());
    std::size_t absent = 0;
    for (std::uint32_t h = 900; h < 1000 + keys / 2 + 100; ++h) {
      for (std::uint32_t v = 0; v < 4; ++v) {
        const std::uint64_t key = version_key(h, v);
        const auto [first, last] = reference.equal_range(key);
        std::vector<int> expected;
        for (auto it = first; it != last; ++it) expected.push_back(it->second);
        const auto found = flat.find(key);
        REQUIRE(std::vector<int>(found.begin(), found.end()) == expected);
        absent += expected.empty();
      }
    }
    for (const auto& [key, value] : reference) REQUIRE(!flat.find(key).empty());
    REQUIRE(absent > 0);
  }
}
