#pragma once
// The XOR code of an XOR level (RAID-5 over a set of k nodes, as SCR and VeloC lay it out): each
// member cuts its checkpoint into k - 1 blocks and sends block b to the member b + 1 places after
// it (around the set); each member keeps the XOR of the k - 1 blocks it got (its parity block,
// zero-padded to the longest). A member's parity covers none of its own data, so one member lost
// is rebuilt from the others' data and parity blocks: its blocks, and its parity block again.
// Pure functions of bytes, with no protocol state: tests/unit/global_xor_code_test.cpp.
#include <cstdint>
#include <span>
#include <vector>

#include "sim/node/wire.hpp"

namespace ftsim::protocols::global::xor_code {

using node::Bytes;

// Bytes per block of a checkpoint of `length` bytes in a set of k members (the last one shorter).
std::uint64_t block_size(std::uint64_t length, std::uint32_t k);
// Which member holds the parity of block `block` of member `position`, and which block of
// `contributor` the member `holder` XORs.
inline std::uint32_t holder_of(std::uint32_t position, std::uint32_t block, std::uint32_t k) { return (position + 1 + block) % k; }
inline std::uint32_t block_for(std::uint32_t holder, std::uint32_t contributor, std::uint32_t k) {
  return (holder + k - contributor - 1) % k;
}
// Block `block` of `data` in a set of k (empty past its end).
std::span<const std::uint8_t> block_of(const Bytes& data, std::uint32_t block, std::uint32_t k);
// parity ^= block (parity grows with zeros to the block's length).
void xor_into(Bytes& parity, std::span<const std::uint8_t> block);

// What a holder keeps per checkpoint: the length and simulated size of each member's checkpoint
// (its own left 0, as SCR's XOR file header lists the set's files) and its parity block.
struct Parity {
  std::vector<std::uint64_t> lengths, sizes;  // per position in the set
  Bytes block;
  // The simulated size of the block: that of the largest member's block.
  std::uint64_t simulated_size() const;
  Bytes encode() const;
  static Parity decode(const Bytes& bytes);  // throws node::WireError on a corrupt one
};

// Member `lost` rebuilt from the others: `data[q]` is member q's checkpoint, `sizes[q]` its
// simulated size and `parity[q]` its parity (all ignored at q = lost). Its checkpoint, and its parity as it held it.
struct Rebuilt {
  Bytes data;
  Parity parity;
};
Rebuilt rebuild(std::uint32_t lost, std::span<const Bytes> data, std::span<const std::uint64_t> sizes,
                std::span<const Parity> parity);

}  // namespace ftsim::protocols::global::xor_code
