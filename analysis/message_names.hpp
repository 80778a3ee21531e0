#pragma once
// MessageNames: the message ids of a trace (unique strings) interned to dense integers 0, 1, ...
// in order of first appearance. The texts live in one character arena; the index is an
// open-addressing hash table of 16-byte slots holding a 32-bit hash, the id and the name's first
// 7 bytes with its length. Most ids are short ("m1a2b", "0>1#7.3"): they are compared and hashed
// inside the slot, without touching the arena (a cache miss per lookup is what interning
// millions of ids costs); growing never rehashes a text. No allocation per id.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ftsim::analysis {

using MessageId = std::uint32_t;

class MessageNames {
public:
  // Ids are limited so that an id and a flag fit in 32 bits (see Trace).
  static constexpr std::size_t kMaxMessages = (std::size_t(1) << 31) - 1;

  MessageNames() = default;
  MessageNames(const MessageNames& other);
  MessageNames& operator=(const MessageNames& other);
  MessageNames(MessageNames&&) noexcept = default;
  MessageNames& operator=(MessageNames&&) noexcept = default;

  std::size_t size() const { return offsets_.size() - 1; }
  std::string_view name(MessageId id) const {
    return std::string_view(arena_).substr(offsets_[id], offsets_[id + 1] - offsets_[id]);
  }
  // The id of `name`, and whether this call created it. Throws std::length_error beyond kMaxMessages.
  std::pair<MessageId, bool> intern(std::string_view name);
  std::optional<MessageId> find(std::string_view name) const;
  // Starts loading the slot of `name` into the cache (a hint; no effect on the contents).
  void prefetch(std::string_view name) const;
  void reserve(std::size_t messages, std::size_t characters);

private:
  struct Slot {
    std::uint64_t key = 0;  // the first 7 bytes, and the length (0xFF if longer than 7)
    std::uint32_t id = 0;   // id + 1; 0: empty
    std::uint32_t hash = 0;
  };
  // The slot table, in huge pages where the system allows: its accesses are random, and with 4 KB
  // pages each one would also miss the TLB.
  struct SlotTable {
    struct Free {
      std::size_t bytes;
      void operator()(Slot* slots) const;
    };
    std::unique_ptr<Slot[], Free> slots{nullptr, Free{0}};
    std::size_t size = 0;
    Slot& operator[](std::size_t i) { return slots[i]; }
    const Slot& operator[](std::size_t i) const { return slots[i]; }
    bool empty() const { return size == 0; }
  };
  static SlotTable make_table(std::size_t size);
  std::size_t slot_of(std::string_view name, std::uint64_t key, std::uint32_t hash) const;
  void rebuild(std::size_t slots);

  std::string arena_;
  std::vector<std::uint64_t> offsets_{0};  // name i is arena_[offsets_[i], offsets_[i + 1])
  SlotTable slots_;
};

}  // namespace ftsim::analysis
