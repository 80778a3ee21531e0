#include "analysis/message_names.hpp"

#include <bit>
#include <functional>
#include <stdexcept>

namespace ftsim::analysis {

namespace {
std::uint64_t hash_of(std::string_view name) { return std::hash<std::string_view>{}(name); }
std::uint64_t fingerprint(std::uint64_t hash) { return hash >> 32; }
}  // namespace

// The slot holding `name`, or the empty slot where it belongs (linear probing; the table is at
// most half full).
std::size_t MessageNames::slot_of(std::string_view name, std::uint64_t hash) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
    const std::uint64_t entry = slots_[slot];
    if (entry == 0) return slot;
    if ((entry >> 32) == fingerprint(hash) && this->name(MessageId((entry & 0xffffffffu) - 1)) == name) return slot;
  }
}

void MessageNames::grow() {
  std::vector<std::uint64_t> old = std::move(slots_);
  slots_.assign(std::max<std::size_t>(64, old.size() * 2), 0);
  const std::size_t mask = slots_.size() - 1;
  for (std::uint64_t entry : old) {
    if (entry == 0) continue;
    const MessageId id = MessageId((entry & 0xffffffffu) - 1);
    std::size_t slot = hash_of(name(id)) & mask;
    while (slots_[slot] != 0) slot = (slot + 1) & mask;
    slots_[slot] = entry;
  }
}

void MessageNames::reserve(std::size_t messages, std::size_t characters) {
  arena_.reserve(characters);
  offsets_.reserve(messages + 1);
  if (slots_.size() < 2 * messages) {
    // Rebuild at the final size once rather than doubling on the way.
    std::vector<std::uint64_t> old = std::move(slots_);
    slots_.assign(std::bit_ceil(std::max<std::size_t>(64, 2 * messages)), 0);
    const std::size_t mask = slots_.size() - 1;
    for (std::uint64_t entry : old) {
      if (entry == 0) continue;
      std::size_t slot = hash_of(name(MessageId((entry & 0xffffffffu) - 1))) & mask;
      while (slots_[slot] != 0) slot = (slot + 1) & mask;
      slots_[slot] = entry;
    }
  }
}

std::pair<MessageId, bool> MessageNames::intern(std::string_view name) {
  if (2 * (size() + 1) > slots_.size()) grow();
  const std::uint64_t hash = hash_of(name);
  const std::size_t slot = slot_of(name, hash);
  if (slots_[slot] != 0) return {MessageId((slots_[slot] & 0xffffffffu) - 1), false};
  if (size() >= kMaxMessages) throw std::length_error("more than 2^31 - 1 messages in one trace");
  const MessageId id = MessageId(size());
  arena_.append(name);
  offsets_.push_back(arena_.size());
  slots_[slot] = (fingerprint(hash) << 32) | (std::uint64_t(id) + 1);
  return {id, true};
}

std::optional<MessageId> MessageNames::find(std::string_view name) const {
  if (slots_.empty()) return std::nullopt;
  const std::size_t slot = slot_of(name, hash_of(name));
  if (slots_[slot] == 0) return std::nullopt;
  return MessageId((slots_[slot] & 0xffffffffu) - 1);
}

}  // namespace ftsim::analysis
