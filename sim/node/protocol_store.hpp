#pragma once
// A store a protocol owns on its node: checkpoint copies held for other nodes, or a message log.
// Entries are content (encoded bytes) plus the simulated bytes they stand for; the store accounts
// those bytes, the total ever stored and the peak. It lives in the node's memory: a fail-stop
// loses it with the rest of the node. A flat hash map: an entry is put for every save a buddy
// keeps and every message a sender logs, without a tree node per entry. Its order is unspecified.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/node/flat_map.hpp"
#include "sim/node/wire.hpp"

namespace ftsim::node {

class ProtocolStore {
public:
  struct Entry {
    Bytes content;
    std::uint64_t bytes = 0;
  };

  // Stores (or replaces) the entry of `key`.
  void put(std::uint64_t key, Bytes content, std::uint64_t bytes) {
    auto [it, inserted] = entries_.try_emplace(key);
    if (!inserted) bytes_ -= it->second.bytes;
    it->second = Entry{std::move(content), bytes};
    max_key_ = std::max(max_key_, key);
    bytes_ += bytes;
    total_bytes_ += bytes;
    peak_bytes_ = std::max(peak_bytes_, bytes_);
  }
  const Entry* find(std::uint64_t key) const {
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second;
  }
  void erase(std::uint64_t key) {
    auto it = entries_.find(key);
    if (it == entries_.end()) return;
    bytes_ -= it->second.bytes;
    entries_.erase(it);
  }
  // Erases every entry whose key satisfies `predicate` (e.g. checkpoints older than a valid one).
  template <class Predicate> void erase_if(Predicate predicate) {
    std::vector<std::uint64_t> doomed;
    for (const auto& [key, entry] : entries_) {
      if (predicate(key)) doomed.push_back(key);
    }
    for (const std::uint64_t key : doomed) erase(key);
  }
  // The keys held, in no particular order.
  template <class Function> void for_each_key(Function function) const {
    for (const auto& item : entries_) function(item.first);
  }
  bool empty() const { return entries_.empty(); }
  // A key above every key ever put (1 for the first).
  std::uint64_t next_key() const { return max_key_ + 1; }
  std::uint64_t bytes() const { return bytes_; }
  std::uint64_t total_bytes() const { return total_bytes_; }
  std::uint64_t peak_bytes() const { return peak_bytes_; }

private:
  FlatMap64<Entry> entries_;
  std::uint64_t bytes_ = 0, total_bytes_ = 0, peak_bytes_ = 0;
  std::uint64_t max_key_ = 0;
};

}  // namespace ftsim::node
