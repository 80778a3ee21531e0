// CCK's all-gather (Besseron 2006 §3.5.5 step 3) with blocks shared by reference:
//  - every node ends with every node's block, the very buffer its owner made (no copy), in
//    ceil(log2 N) messages per node;
//  - a GATHER message costs what it cost when its blocks were written inline: 8 (round) + 4 (step)
//    + 8 (array length) + 4 (count) + Σ(4 + 8 + |block|), and decodes to the same blocks.
#include <catch2/catch.hpp>

#include <deque>
#include <memory>
#include <tuple>
#include <vector>

#include "protocols/cck/cck_allgather.hpp"
#include "protocols/cck/cck_messages.hpp"

using namespace ftsim;
using protocols::cck::AllGather;
using protocols::cck::Control;

namespace {

node::SharedBytes block_of(std::uint32_t node, std::size_t size) {
  auto bytes = std::make_shared<node::Bytes>(size);
  for (std::size_t i = 0; i < size; ++i) (*bytes)[i] = static_cast<std::uint8_t>(node * 31 + i);
  return bytes;
}

}  // namespace

TEST_CASE("cck all-gather: every node holds every block, shared, in ceil(log2 N) steps", "[cck][allgather]") {
  for (std::uint32_t n : {1u, 2u, 3u, 5u, 8u, 13u, 64u, 100u}) {
    INFO("N = " << n);
    std::vector<node::SharedBytes> own;
    std::vector<AllGather> nodes;
    for (std::uint32_t p = 0; p < n; ++p) {
      own.push_back(block_of(p, 1 + p % 7));
      nodes.emplace_back(p, n, own.back());
    }
    // Messages in flight, delivered in an order that mixes steps (later steps may come early).
    std::deque<std::tuple<std::uint32_t, std::uint32_t, AllGather::Blocks>> flight;
    std::vector<std::uint32_t> sent(n, 0);
    auto pump = [&](std::uint32_t p) {
      while (auto out = nodes[p].send()) {
        ++sent[p];
        flight.emplace_back(out->to, out->step, std::move(out->blocks));
      }
    };
    for (std::uint32_t p = 0; p < n; ++p) pump(p);
    bool back = false;
    while (!flight.empty()) {
      auto [to, step, blocks] = back ? std::move(flight.back()) : std::move(flight.front());
      back ? flight.pop_back() : flight.pop_front();
      back = !back;
      nodes[to].receive(step, std::move(blocks));
      pump(to);
    }
    for (std::uint32_t p = 0; p < n; ++p) {
      REQUIRE(nodes[p].complete());
      CHECK(sent[p] == AllGather::steps(n));
      for (std::uint32_t q = 0; q < n; ++q) CHECK(nodes[p].blocks()[q].get() == own[q].get());
    }
  }
}

TEST_CASE("cck GATHER: the simulated size of its blocks inline, the same blocks decoded", "[cck][allgather]") {
  Control c;
  c.round = 0x500000001ull;
  c.step = 3;
  std::uint64_t inline_blocks = 0;
  for (std::uint32_t node : {7u, 8u, 9u, 10u, 11u}) {
    c.blocks.emplace_back(node, block_of(node, 100 + node));
    inline_blocks += 4 + 8 + (100 + node);
  }
  node::Message m;
  m.is_data = false;
  m.control_type = protocols::cck::kGather;
  m.body = node::encode(c, protocols::cck::kGather, &m.parts);
  std::uint64_t size = m.body.encoded_size();
  for (const node::SharedBytes& part : m.parts) size += node::inline_size(*part);
  CHECK(size == 8 + 4 + 8 + 4 + inline_blocks);
  const Control d = node::decode<Control>(m);
  CHECK(d.round == c.round);
  CHECK(d.step == c.step);
  REQUIRE(d.blocks.size() == c.blocks.size());
  for (std::size_t k = 0; k < c.blocks.size(); ++k) {
    CHECK(d.blocks[k].first == c.blocks[k].first);
    CHECK(d.blocks[k].second.get() == c.blocks[k].second.get());
  }
  // A message whose parts disagree with its body is refused.
  m.parts.pop_back();
  CHECK_THROWS_AS(node::decode<Control>(m), node::WireError);
}
