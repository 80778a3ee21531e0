#include "protocols/global/global_xor_code.hpp"

#include <algorithm>
#include <stdexcept>

namespace ftsim::protocols::global::xor_code {

std::uint64_t block_size(std::uint64_t length, std::uint32_t k) { return (length + k - 2) / (k - 1); }

std::span<const std::uint8_t> block_of(const Bytes& data, std::uint32_t block, std::uint32_t k) {
  const std::uint64_t size = block_size(data.size(), k);
  const std::uint64_t begin = std::min<std::uint64_t>(block * size, data.size());
  const std::uint64_t end = std::min<std::uint64_t>(begin + size, data.size());
  return {data.data() + begin, end - begin};
}

void xor_into(Bytes& parity, std::span<const std::uint8_t> block) {
  if (parity.size() < block.size()) parity.resize(block.size(), 0);
  for (std::size_t i = 0; i < block.size(); ++i) parity[i] ^= block[i];
  parity.content_bytes = parity.size();  // opaque data: its simulated size is stated apart
}

std::uint64_t Parity::simulated_size() const {
  if (sizes.size() < 2) return 0;
  return block_size(*std::max_element(sizes.begin(), sizes.end()), static_cast<std::uint32_t>(sizes.size()));
}

Bytes Parity::encode() const {
  Bytes out;
  node::WireWriter w(out);
  w.u64(lengths.size());
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    w.u64(lengths[i]);
    w.u64(sizes[i]);
  }
  w.bytes(block);
  return out;
}

Parity Parity::decode(const Bytes& bytes) {
  node::WireReader r(bytes);
  Parity p;
  const std::uint32_t k = static_cast<std::uint32_t>(r.count(16));
  p.lengths.resize(k);
  p.sizes.resize(k);
  for (std::uint32_t i = 0; i < k; ++i) {
    p.lengths[i] = r.u64();
    p.sizes[i] = r.u64();
  }
  p.block = r.bytes();
  r.expect_done();
  return p;
}

Rebuilt rebuild(std::uint32_t lost, std::span<const Bytes> data, std::span<const std::uint64_t> sizes,
                std::span<const Parity> parity) {
  const auto k = static_cast<std::uint32_t>(data.size());
  if (k < 2 || parity.size() != k || sizes.size() != k || lost >= k) throw std::logic_error("xor rebuild: a set of " + std::to_string(k));
  // Its length, from any other member's parity header (all list it).
  const std::uint64_t length = parity[(lost + 1) % k].lengths.at(lost);
  Rebuilt out;
  out.data.reserve(length);
  for (std::uint32_t b = 0; b + 1 < k; ++b) {
    // Block b is in the parity of member p, with one block of each member but p and the lost one.
    const std::uint32_t p = holder_of(lost, b, k);
    Bytes block = parity[p].block;
    for (std::uint32_t q = 0; q < k; ++q) {
      if (q != p && q != lost) xor_into(block, block_of(data[q], block_for(p, q, k), k));
    }
    const std::uint64_t want = std::min<std::uint64_t>(block_size(length, k), length - out.data.size());
    if (block.size() < want) throw node::WireError("xor rebuild: a parity block shorter than the data it covers");
    out.data.insert(out.data.end(), block.begin(), block.begin() + static_cast<std::ptrdiff_t>(want));
  }
  out.data.content_bytes = 0;
  // Its parity again: the XOR of the blocks the others sent it, and their lengths and sizes.
  out.parity.lengths.assign(k, 0);
  out.parity.sizes.assign(k, 0);
  for (std::uint32_t q = 0; q < k; ++q) {
    if (q == lost) continue;
    xor_into(out.parity.block, block_of(data[q], block_for(lost, q, k), k));
    out.parity.lengths[q] = data[q].size();
    out.parity.sizes[q] = sizes[q];
  }
  return out;
}

}  // namespace ftsim::protocols::global::xor_code
