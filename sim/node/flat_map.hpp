#pragma once
// FlatMap64: a hash map from 64-bit keys to values in one array (open addressing, linear
// probing, backward-shift erase: no tombstone), for the maps a node touches at every task and
// message (the versions it holds, its sends in flight). std::unordered_map allocates a node per
// insert and chases a pointer per lookup; this allocates only when it grows. The key ~0 is
// reserved (ftsim's keys never take it). Iteration order is unspecified, as std::unordered_map's;
// an insert may move the items (iterators and references are valid until the next insert or
// erase). Items are {first, second}, as std::pair, so `auto& [key, value] : map` works.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "graphs/huge_pages.hpp"

namespace ftsim::node {

template <class Value>
class FlatMap64 {
public:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t(0);
  struct Item {
    std::uint64_t first = kEmpty;
    Value second{};
  };

  template <class ItemT>
  class Iterator {
  public:
    using value_type = Item;
    using difference_type = std::ptrdiff_t;
    using reference = ItemT&;
    using pointer = ItemT*;
    using iterator_category = std::forward_iterator_tag;
    Iterator() = default;
    Iterator(ItemT* at, ItemT* end) : at_(at), end_(end) { skip(); }
    // A const_iterator from an iterator.
    template <class OtherT, std::enable_if_t<std::is_const_v<ItemT> && !std::is_const_v<OtherT>, int> = 0>
    Iterator(const Iterator<OtherT>& other) : at_(other.raw()), end_(other.raw_end()) {}
    reference operator*() const { return *at_; }
    pointer operator->() const { return at_; }
    Iterator& operator++() {
      ++at_;
      skip();
      return *this;
    }
    bool operator==(const Iterator& other) const { return at_ == other.at_; }
    bool operator!=(const Iterator& other) const { return at_ != other.at_; }
    ItemT* raw() const { return at_; }
    ItemT* raw_end() const { return end_; }

  private:
    void skip() {
      while (at_ != end_ && at_->first == kEmpty) ++at_;
    }
    ItemT* at_ = nullptr;
    ItemT* end_ = nullptr;
  };
  using iterator = Iterator<Item>;
  using const_iterator = Iterator<const Item>;

  FlatMap64() = default;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  iterator begin() { return {items_.data(), items_.data() + items_.size()}; }
  iterator end() { return {items_.data() + items_.size(), items_.data() + items_.size()}; }
  const_iterator begin() const { return {items_.data(), items_.data() + items_.size()}; }
  const_iterator end() const { return {items_.data() + items_.size(), items_.data() + items_.size()}; }

  iterator find(std::uint64_t key) {
    Item* item = lookup(key);
    return item ? iterator{item, items_.data() + items_.size()} : end();
  }
  const_iterator find(std::uint64_t key) const {
    const Item* item = const_cast<FlatMap64*>(this)->lookup(key);
    return item ? const_iterator{item, items_.data() + items_.size()} : end();
  }
  std::size_t count(std::uint64_t key) const { return find(key) != end() ? 1 : 0; }
  // A cache hint: the slot where a lookup of `key` starts (both its lines when it straddles two:
  // a 56-byte item does in most places).
  void prefetch(std::uint64_t key) const {
    if (items_.empty()) return;
    const char* item = reinterpret_cast<const char*>(&items_[slot_of(key)]);
    __builtin_prefetch(item);
    __builtin_prefetch(item + sizeof(Item) - 1);
  }
  bool contains(std::uint64_t key) const { return find(key) != end(); }
  Value& at(std::uint64_t key) {
    Item* item = lookup(key);
    if (!item) throw std::out_of_range("FlatMap64::at: no such key");
    return item->second;
  }
  const Value& at(std::uint64_t key) const { return const_cast<FlatMap64*>(this)->at(key); }
  Value& operator[](std::uint64_t key) { return try_emplace(key).first->second; }

  template <class... Args>
  std::pair<iterator, bool> try_emplace(std::uint64_t key, Args&&... args) {
    if (Item* item = lookup(key)) return {iterator{item, items_.data() + items_.size()}, false};
    if ((size_ + 1) * 2 > items_.size()) grow();
    std::size_t i = slot_of(key);
    while (items_[i].first != kEmpty) i = (i + 1) & mask_;
    items_[i].first = key;
    items_[i].second = Value(std::forward<Args>(args)...);
    ++size_;
    return {iterator{&items_[i], items_.data() + items_.size()}, true};
  }
  std::pair<iterator, bool> emplace(std::uint64_t key, const Value& value) { return try_emplace(key, value); }

  void erase(const_iterator it) { erase_at(static_cast<std::size_t>(it.raw() - items_.data())); }
  std::size_t erase(std::uint64_t key) {
    Item* item = lookup(key);
    if (!item) return 0;
    erase_at(static_cast<std::size_t>(item - items_.data()));
    return 1;
  }
  void clear() {
    for (Item& item : items_) {
      if (item.first != kEmpty) item = Item{};
    }
    size_ = 0;
  }
  void reserve(std::size_t n) {
    while (n * 2 > items_.size()) grow();
  }

private:
  std::size_t slot_of(std::uint64_t key) const {
    // Fibonacci hashing: the top bits of key x 2^64 / phi.
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_) & mask_;
  }
  Item* lookup(std::uint64_t key) {
    if (size_ == 0) return nullptr;
    for (std::size_t i = slot_of(key);; i = (i + 1) & mask_) {
      if (items_[i].first == key) return &items_[i];
      if (items_[i].first == kEmpty) return nullptr;
    }
  }
  void erase_at(std::size_t hole) {
    // Backward shift: move up every item of the probe run that may fill the hole.
    for (std::size_t i = (hole + 1) & mask_; items_[i].first != kEmpty; i = (i + 1) & mask_) {
      const std::size_t home = slot_of(items_[i].first);
      // The item at i may move to the hole if its home is not in (hole, i] (cyclically).
      const bool stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
      if (stays) continue;
      items_[hole] = std::move(items_[i]);
      hole = i;
    }
    items_[hole] = Item{};
    --size_;
  }
  void grow() {
    std::vector<Item> old;
    old.swap(items_);
    const std::size_t capacity = old.empty() ? 8 : old.size() * 2;
    graphs::reserve_on_huge_pages(items_, capacity);  // a node's versions, probed at every task
    items_.resize(capacity);
    mask_ = capacity - 1;
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
    for (Item& item : old) {
      if (item.first == kEmpty) continue;
      std::size_t i = slot_of(item.first);
      while (items_[i].first != kEmpty) i = (i + 1) & mask_;
      items_[i] = std::move(item);
    }
  }

  std::vector<Item> items_;
  std::size_t size_ = 0;
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
};

}  // namespace ftsim::node
