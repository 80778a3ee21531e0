#include "sim/node/version_store.hpp"

#include <algorithm>

namespace ftsim::node {

void VersionStore::insert(std::uint64_t k, const Entry& entry) {
  auto [it, inserted] = entries_.try_emplace(k, entry);
  if (!inserted) {
    // Already held: keep the pins, refresh the rest.
    const std::uint32_t pins = it->second.pins;
    bytes_ -= it->second.bytes;
    if (it->second.superseded) superseded_bytes_ -= it->second.bytes;
    it->second = entry;
    it->second.pins = pins;
  }
  bytes_ += entry.bytes;
  peak_bytes_ = std::max(peak_bytes_, bytes_);
}

void VersionStore::erase(Map::iterator it) {
  bytes_ -= it->second.bytes;
  if (it->second.superseded) superseded_bytes_ -= it->second.bytes;
  entries_.erase(it);
}

void VersionStore::release_if_unused(Map::iterator it) {
  const Entry& e = it->second;
  if (e.pins != 0) return;
  if ((e.copy && e.remaining_readers == 0) || e.superseded) erase(it);
}

void VersionStore::produce(HandleId h, Version v, std::uint64_t bytes, Digest digest, ContentRef content) {
  if (v > 0) {
    auto previous = entries_.find(key(h, v - 1));
    if (previous != entries_.end()) {
      if (previous->second.pins == 0) {
        erase(previous);
      } else {
        previous->second.superseded = true;
        superseded_bytes_ += previous->second.bytes;
        superseded_peak_bytes_ = std::max(superseded_peak_bytes_, superseded_bytes_);
      }
    }
  }
  insert(key(h, v), Entry{bytes, digest, 0, 0, false, false, std::move(content)});
}

void VersionStore::add_own(HandleId h, Version v, std::uint64_t bytes, Digest digest, ContentRef content) {
  insert(key(h, v), Entry{bytes, digest, 0, 0, false, false, std::move(content)});
}

void VersionStore::add_copy(HandleId h, Version v, std::uint64_t bytes, std::uint32_t readers, Digest digest,
                            ContentRef content) {
  insert(key(h, v), Entry{bytes, digest, readers, 0, true, false, std::move(content)});
  release_if_unused(entries_.find(key(h, v)));
}

void VersionStore::reader_added(HandleId h, Version v) {
  auto it = entries_.find(key(h, v));
  if (it != entries_.end() && it->second.copy) ++it->second.remaining_readers;
}

Digest VersionStore::read_digest(HandleId h, Version v) const {
  auto it = entries_.find(key(h, v));
  if (it != entries_.end()) return it->second.digest;
  // Not held: a bug of the protocol or the runtime. Reading the buffer gives its newest content.
  Version newest = 0;
  Digest digest = kMissingDigest;
  bool found = false;
  for (const auto& [k, entry] : entries_) {
    if (handle_of(k) != h || (found && version_of(k) < newest)) continue;
    newest = version_of(k);
    digest = entry.digest;
    found = true;
  }
  return digest;
}

ContentRef VersionStore::read_content(HandleId h, Version v) const {
  auto it = entries_.find(key(h, v));
  if (it != entries_.end()) return it->second.content;
  const Entry* newest = nullptr;
  Version newest_version = 0;
  for (const auto& [k, entry] : entries_) {
    if (handle_of(k) != h || (newest && version_of(k) < newest_version)) continue;
    newest_version = version_of(k);
    newest = &entry;
  }
  return newest ? newest->content : nullptr;
}

void VersionStore::reader_done(HandleId h, Version v) {
  auto it = entries_.find(key(h, v));
  if (it == entries_.end() || !it->second.copy) return;
  if (it->second.remaining_readers > 0) --it->second.remaining_readers;
  release_if_unused(it);
}

void VersionStore::pin(HandleId h, Version v) {
  auto it = entries_.find(key(h, v));
  if (it != entries_.end()) ++it->second.pins;
}

void VersionStore::unpin(HandleId h, Version v) {
  auto it = entries_.find(key(h, v));
  if (it == entries_.end() || it->second.pins == 0) return;
  --it->second.pins;
  release_if_unused(it);
}

void VersionStore::clear() {
  entries_.clear();
  bytes_ = 0;
  superseded_bytes_ = 0;
}

void VersionStore::assign(const std::unordered_map<std::uint64_t, Entry>& entries) {
  entries_.clear();
  entries_.reserve(entries.size());
  for (const auto& [k, e] : entries) entries_.try_emplace(k, e);
  bytes_ = 0;
  superseded_bytes_ = 0;
  for (auto& [k, e] : entries_) {
    e.pins = 0;
    bytes_ += e.bytes;
    if (e.superseded) superseded_bytes_ += e.bytes;
  }
  peak_bytes_ = std::max(peak_bytes_, bytes_);
}

}  // namespace ftsim::node
