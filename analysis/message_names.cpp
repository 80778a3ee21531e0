#include "analysis/message_names.hpp"

#include <bit>
#include <cstring>
#include <functional>
#include <stdexcept>

#include <sys/mman.h>

namespace ftsim::analysis {

namespace {

constexpr std::size_t kInline = 7;

std::uint64_t key_of(std::string_view name) {
  std::uint64_t key = 0;
  std::memcpy(&key, name.data(), std::min(name.size(), kInline));
  const std::uint64_t length = name.size() <= kInline ? name.size() : 0xFF;
  return key | (length << 56);
}

// A 64-bit finalizer (splitmix64's): short names hash from their key alone.
std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint32_t hash_of(std::string_view name, std::uint64_t key) {
  const std::uint64_t h = name.size() <= kInline ? mix(key) : mix(std::hash<std::string_view>{}(name) ^ key);
  return std::uint32_t(h ^ (h >> 32));
}

}  // namespace

void MessageNames::SlotTable::Free::operator()(Slot* slots) const { munmap(slots, bytes); }

MessageNames::SlotTable MessageNames::make_table(std::size_t size) {
  // mmap gives zeroed memory (empty slots); the advice asks for transparent huge pages.
  const std::size_t bytes = size * sizeof(Slot);
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  madvise(memory, bytes, MADV_HUGEPAGE);
#endif
  SlotTable table;
  table.slots = std::unique_ptr<Slot[], SlotTable::Free>(static_cast<Slot*>(memory), SlotTable::Free{bytes});
  table.size = size;
  return table;
}

MessageNames::MessageNames(const MessageNames& other) : arena_(other.arena_), offsets_(other.offsets_) {
  if (other.slots_.size == 0) return;
  slots_ = make_table(other.slots_.size);
  std::memcpy(slots_.slots.get(), other.slots_.slots.get(), other.slots_.size * sizeof(Slot));
}

MessageNames& MessageNames::operator=(const MessageNames& other) {
  if (this != &other) *this = MessageNames(other);
  return *this;
}

// The slot holding `name`, or the empty slot where it belongs (linear probing; the table is at
// most half full).
std::size_t MessageNames::slot_of(std::string_view name, std::uint64_t key, std::uint32_t hash) const {
  const std::size_t mask = slots_.size - 1;
  const bool is_short = name.size() <= kInline;
  for (std::size_t at = hash & mask;; at = (at + 1) & mask) {
    const Slot& slot = slots_[at];
    if (slot.id == 0) return at;
    if (slot.hash == hash && slot.key == key && (is_short || this->name(slot.id - 1) == name)) return at;
  }
}

void MessageNames::rebuild(std::size_t size) {
  SlotTable old = std::move(slots_);
  slots_ = make_table(size);
  const std::size_t mask = size - 1;
  for (std::size_t i = 0; i < old.size; ++i) {
    const Slot& slot = old[i];
    if (slot.id == 0) continue;
    std::size_t at = slot.hash & mask;
    while (slots_[at].id != 0) at = (at + 1) & mask;
    slots_[at] = slot;
  }
}

void MessageNames::reserve(std::size_t messages, std::size_t characters) {
  arena_.reserve(characters);
  offsets_.reserve(messages + 1);
  if (slots_.size < 2 * messages) rebuild(std::bit_ceil(std::max<std::size_t>(64, 2 * messages)));
}

std::pair<MessageId, bool> MessageNames::intern(std::string_view name) {
  if (2 * (size() + 1) > slots_.size) rebuild(std::max<std::size_t>(64, slots_.size * 2));
  const std::uint64_t key = key_of(name);
  const std::uint32_t hash = hash_of(name, key);
  const std::size_t at = slot_of(name, key, hash);
  if (slots_[at].id != 0) return {slots_[at].id - 1, false};
  if (size() >= kMaxMessages) throw std::length_error("more than 2^31 - 1 messages in one trace");
  const MessageId id = MessageId(size());
  arena_.append(name);
  offsets_.push_back(arena_.size());
  slots_[at] = Slot{key, id + 1, hash};
  return {id, true};
}

void MessageNames::prefetch(std::string_view name) const {
  if (slots_.empty()) return;
  __builtin_prefetch(&slots_[hash_of(name, key_of(name)) & (slots_.size - 1)]);
}

std::optional<MessageId> MessageNames::find(std::string_view name) const {
  if (slots_.empty()) return std::nullopt;
  const std::uint64_t key = key_of(name);
  const std::size_t at = slot_of(name, key, hash_of(name, key));
  if (slots_[at].id == 0) return std::nullopt;
  return slots_[at].id - 1;
}

}  // namespace ftsim::analysis
