#pragma once
// MessageNames: the message ids of a trace (unique strings) interned to dense integers 0, 1, ...
// in order of first appearance. The texts live in one character arena, the index is an
// open-addressing hash table of 64-bit slots (a 32-bit fingerprint of the hash and the id), so
// interning millions of ids allocates nothing per id and compares a text only on a fingerprint
// match.
#include <cstdint>
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

  std::size_t size() const { return offsets_.size() - 1; }
  std::string_view name(MessageId id) const {
    return std::string_view(arena_).substr(offsets_[id], offsets_[id + 1] - offsets_[id]);
  }
  // The id of `name`, and whether this call created it. Throws std::length_error beyond kMaxMessages.
  std::pair<MessageId, bool> intern(std::string_view name);
  std::optional<MessageId> find(std::string_view name) const;
  void reserve(std::size_t messages, std::size_t characters);

private:
  std::size_t slot_of(std::string_view name, std::uint64_t hash) const;
  void grow();

  std::string arena_;
  std::vector<std::uint64_t> offsets_{0};  // name i is arena_[offsets_[i], offsets_[i + 1])
  std::vector<std::uint64_t> slots_;       // 0: empty; else (fingerprint << 32) | (id + 1)
};

}  // namespace ftsim::analysis
