#pragma once
// A set of node ids for CCK's sessions (PINGs received, PONGs, CONTs, the nodes whose CONT is
// awaited). Small sets (a stencil's 4 neighbours) are a sorted vector; past 64 members (the full
// flush, "flush": "all") it becomes a bitmap of the N nodes: a std::set of N members per node
// made the full flush of 1024 nodes cache-bound (3 million lookups in scattered trees).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "graphs/ids.hpp"

namespace ftsim::protocols::cck {

class NodeSet {
public:
  bool insert(graphs::NodeId n) {
    if (bitmap_) {
      grow(n);
      const std::uint64_t bit = std::uint64_t(1) << (n % 64);
      if (bits_[n / 64] & bit) return false;
      bits_[n / 64] |= bit;
      ++size_;
      return true;
    }
    auto it = std::lower_bound(small_.begin(), small_.end(), n);
    if (it != small_.end() && *it == n) return false;
    small_.insert(it, n);
    ++size_;
    if (small_.size() > 64) to_bitmap();
    return true;
  }
  bool erase(graphs::NodeId n) {
    if (!contains(n)) return false;
    if (bitmap_) {
      bits_[n / 64] &= ~(std::uint64_t(1) << (n % 64));
    } else {
      small_.erase(std::lower_bound(small_.begin(), small_.end(), n));
    }
    --size_;
    return true;
  }
  bool contains(graphs::NodeId n) const {
    if (bitmap_) return n / 64 < bits_.size() && (bits_[n / 64] >> (n % 64)) & 1;
    return std::binary_search(small_.begin(), small_.end(), n);
  }
  std::size_t count(graphs::NodeId n) const { return contains(n) ? 1 : 0; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The members, ascending.
  std::vector<graphs::NodeId> members() const {
    if (!bitmap_) return small_;
    std::vector<graphs::NodeId> out;
    for (std::size_t w = 0; w < bits_.size(); ++w) {
      for (std::uint64_t word = bits_[w]; word != 0; word &= word - 1) {
        out.push_back(static_cast<graphs::NodeId>(w * 64 + __builtin_ctzll(word)));
      }
    }
    return out;
  }

private:
  void grow(graphs::NodeId n) {
    if (n / 64 >= bits_.size()) bits_.resize(n / 64 + 1, 0);
  }
  void to_bitmap() {
    bitmap_ = true;
    for (graphs::NodeId n : small_) {
      grow(n);
      bits_[n / 64] |= std::uint64_t(1) << (n % 64);
    }
    small_.clear();
    small_.shrink_to_fit();
  }

  bool bitmap_ = false;
  std::vector<graphs::NodeId> small_;
  std::vector<std::uint64_t> bits_;
  std::size_t size_ = 0;
};

}  // namespace ftsim::protocols::cck
