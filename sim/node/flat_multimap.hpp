#pragma once
// FlatMultimap64: several values per 64-bit key, built once and then only read. The values sit in
// one array, those of a key side by side in the order they were added; a FlatMap64 gives each key
// its range. For plans made at the start and looked up at every task or message (the buddy
// protocol's saves of each version): no heap node and no vector per key, one probe and one
// contiguous read per lookup. Most lookups find nothing (a node's tasks write far more versions
// than its checkpoints save), so a bit per key hash, 8 bits per key, answers most of them from a
// few hundred bytes that stay in cache, without probing the table (a cache miss per lookup: 11%
// of a 64-node buddy run before).
//
//   FlatMultimap64<Save> saves;
//   saves.add(key, save); ...; saves.seal();   // then saves.find(key) is a span, empty if none
#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "sim/node/flat_map.hpp"

namespace ftsim::node {

template <class Value>
class FlatMultimap64 {
public:
  // Forgets everything (a new plan follows).
  void clear() {
    pending_.clear();
    values_.clear();
    ranges_.clear();
    filter_.clear();
  }
  void add(std::uint64_t key, Value value) { pending_.push_back({key, std::move(value)}); }
  // The values added so far become readable; a key's values keep their order of addition.
  void seal() {
    std::stable_sort(pending_.begin(), pending_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    values_.clear();
    values_.reserve(pending_.size());
    ranges_.clear();
    std::size_t keys = 0;
    for (std::size_t i = 0; i < pending_.size(); ++i) keys += i == 0 || pending_[i].first != pending_[i - 1].first;
    ranges_.reserve(keys);  // grown once, not by doubling
    for (std::size_t i = 0; i < pending_.size();) {
      const std::uint64_t key = pending_[i].first;
      const auto begin = static_cast<std::uint32_t>(values_.size());
      for (; i < pending_.size() && pending_[i].first == key; ++i) values_.push_back(std::move(pending_[i].second));
      ranges_[key] = Range{begin, static_cast<std::uint32_t>(values_.size())};
    }
    pending_.clear();
    pending_.shrink_to_fit();
    std::size_t bits = 64;
    while (bits < 8 * keys) bits *= 2;
    filter_.assign(bits / 64, 0);
    filter_shift_ = 64;
    for (std::size_t b = bits; b > 1; b >>= 1) --filter_shift_;
    for (const auto& item : ranges_) {
      const std::uint64_t bit = filter_bit(item.first);
      filter_[bit / 64] |= std::uint64_t(1) << (bit % 64);
    }
  }
  std::span<const Value> find(std::uint64_t key) const {
    if (filter_.empty()) return {};
    const std::uint64_t bit = filter_bit(key);
    if (!(filter_[bit / 64] >> (bit % 64) & 1)) return {};
    const auto it = ranges_.find(key);
    if (it == ranges_.end()) return {};
    return {values_.data() + it->second.begin, values_.data() + it->second.end};
  }
  std::size_t size() const { return values_.size(); }

private:
  struct Range {
    std::uint32_t begin = 0, end = 0;
  };
  // A multiplicative hash on both halves of the key (version keys vary in their high half).
  std::uint64_t filter_bit(std::uint64_t key) const {
    return ((key ^ (key >> 29)) * 0xD6E8FEB86659FD93ull) >> filter_shift_;
  }
  std::vector<std::pair<std::uint64_t, Value>> pending_;
  std::vector<Value> values_;
  FlatMap64<Range> ranges_;
  std::vector<std::uint64_t> filter_;  // a bit per hash of each key (none: nothing sealed)
  unsigned filter_shift_ = 64;
};

}  // namespace ftsim::node
