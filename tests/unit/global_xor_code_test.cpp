// The XOR level's code (protocols/global/global_xor_code.hpp) and its sets (make_xor_sets): any one
// member of a set is rebuilt bit-exact from the others' checkpoints and parity blocks, its parity
// block too, whatever the lengths (empty, shorter than k - 1 bytes, unequal); the sets put no two
// nodes of one failure group together.
#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <vector>

#include "protocols/global/global_options.hpp"
#include "protocols/global/global_xor_code.hpp"

using namespace ftsim;
using namespace ftsim::protocols::global;

namespace {

// What the holders keep: each member's blocks sent around the set, XORed (the protocol's steps).
std::vector<xor_code::Parity> encode_set(const std::vector<node::Bytes>& data, const std::vector<std::uint64_t>& sizes) {
  const auto k = static_cast<std::uint32_t>(data.size());
  std::vector<xor_code::Parity> parity(k);
  for (auto& p : parity) {
    p.lengths.assign(k, 0);
    p.sizes.assign(k, 0);
  }
  for (std::uint32_t q = 0; q < k; ++q) {
    for (std::uint32_t b = 0; b + 1 < k; ++b) {
      const std::uint32_t holder = xor_code::holder_of(q, b, k);
      REQUIRE(holder != q);
      xor_code::xor_into(parity[holder].block, xor_code::block_of(data[q], b, k));
      parity[holder].lengths[q] = data[q].size();
      parity[holder].sizes[q] = sizes[q];
    }
  }
  return parity;
}

}  // namespace

TEST_CASE("xor code: every member of a set is rebuilt bit-exact, with its parity block", "[xor]") {
  std::mt19937_64 random(20261207);
  for (int round = 0; round < 400; ++round) {
    const auto k = static_cast<std::uint32_t>(2 + random() % 9);
    std::vector<node::Bytes> data(k);
    std::vector<std::uint64_t> sizes(k);
    for (std::uint32_t q = 0; q < k; ++q) {
      const std::size_t length = random() % 4 == 0 ? random() % k : random() % 3000;  // some empty or tiny
      data[q].resize(length);
      for (auto& byte : data[q]) byte = static_cast<std::uint8_t>(random());
      sizes[q] = random() % 1'000'000'000;
    }
    const std::vector<xor_code::Parity> parity = encode_set(data, sizes);
    for (std::uint32_t lost = 0; lost < k; ++lost) {
      // The lost member's own bytes and parity are gone: the rebuild must not read them.
      std::vector<node::Bytes> left = data;
      std::vector<xor_code::Parity> left_parity = parity;
      left[lost] = node::Bytes(7, 0xAB);
      left_parity[lost] = xor_code::Parity{};
      const xor_code::Rebuilt rebuilt = xor_code::rebuild(lost, left, sizes, left_parity);
      REQUIRE(std::vector<std::uint8_t>(rebuilt.data) == std::vector<std::uint8_t>(data[lost]));
      REQUIRE(std::vector<std::uint8_t>(rebuilt.parity.block) == std::vector<std::uint8_t>(parity[lost].block));
      REQUIRE(rebuilt.parity.lengths == parity[lost].lengths);
      REQUIRE(rebuilt.parity.sizes == parity[lost].sizes);
    }
  }
}

TEST_CASE("xor code: a parity block round-trips its encoding and states the largest block's size", "[xor]") {
  xor_code::Parity p;
  p.lengths = {10, 0, 31};
  p.sizes = {1000, 0, 3001};
  p.block = node::Bytes{1, 2, 3};
  const xor_code::Parity back = xor_code::Parity::decode(p.encode());
  CHECK(back.lengths == p.lengths);
  CHECK(back.sizes == p.sizes);
  CHECK(std::vector<std::uint8_t>(back.block) == std::vector<std::uint8_t>(p.block));
  CHECK(p.simulated_size() == 1501);  // 3001 bytes in 2 blocks
  node::Bytes cut = p.encode();
  cut.resize(cut.size() - 1);
  CHECK_THROWS_AS(xor_code::Parity::decode(cut), node::WireError);
}

TEST_CASE("xor sets: one node per failure group, sets of k, no set of one", "[xor]") {
  GlobalOptions options;
  std::string error;
  SECTION("16 nodes in racks of 4, sets of 4: one node of each rack") {
    REQUIRE(make_xor_sets(options, 16, 4, 4, error));
    REQUIRE(options.xor_sets.size() == 4);
    for (const auto& set : options.xor_sets) {
      std::set<std::uint32_t> racks;
      for (node::NodeId n : set) racks.insert(n / 4);
      CHECK(racks.size() == set.size());
      CHECK(set.size() == 4);
    }
    CHECK(options.xor_sets[options.xor_set_of[6]][options.xor_position[6]] == 6);
  }
  SECTION("no groups: consecutive nodes; a last set of one joins the one before") {
    REQUIRE(make_xor_sets(options, 9, 0, 4, error));
    REQUIRE(options.xor_sets.size() == 2);
    CHECK(options.xor_sets[0] == std::vector<node::NodeId>{0, 1, 2, 3});
    CHECK(options.xor_sets[1] == std::vector<node::NodeId>{4, 5, 6, 7, 8});
  }
  SECTION("a single failure group leaves no set possible") {
    CHECK_FALSE(make_xor_sets(options, 8, 8, 4, error));
    CHECK(error.find("two failure groups") != std::string::npos);
  }
}
