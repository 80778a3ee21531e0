#pragma once
// The data versions one node holds in memory: its own data (initial values it owns and the
// versions its tasks produce) and cached copies received from other nodes. A copy lives while
// local readers still need it; an own version lives until a newer one of the same handle is
// produced locally (in place). Pins (a message still being sent, a recovery plan) keep a version
// alive past those points.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "graphs/ids.hpp"
#include "sim/node/flat_map.hpp"
#include "sim/node/content.hpp"
#include "sim/node/digest.hpp"

namespace ftsim::node {

using graphs::HandleId;
using graphs::Version;

class VersionStore {
public:
  struct Entry {
    std::uint64_t bytes = 0;
    Digest digest = 0;                    // of the content (see digest.hpp)
    std::uint32_t remaining_readers = 0;  // copies: local readers still to run
    std::uint32_t pins = 0;
    bool copy = false;                    // received from another node
    bool superseded = false;              // an own version overwritten while pinned
    ContentRef content;                   // the real buffer (MPI backend); null in a simulation
  };
  // The versions held, by key(h, v): one flat array per node rather than a heap node per version
  // (a lookup per task input and per message; at thousands of nodes, cache misses dominate).
  using Map = FlatMap64<Entry>;

  static std::uint64_t key(HandleId h, Version v) { return (std::uint64_t(h) << 32) | v; }
  static HandleId handle_of(std::uint64_t key) { return static_cast<HandleId>(key >> 32); }
  static Version version_of(std::uint64_t key) { return static_cast<Version>(key & 0xffffffffu); }

  bool holds(HandleId h, Version v) const { return entries_.count(key(h, v)) != 0; }

  // An own version produced locally: replaces the previous version of the same handle.
  void produce(HandleId h, Version v, std::uint64_t bytes, Digest digest, ContentRef content = nullptr);
  // An own version restored as it was (initial value, checkpoint, re-sent own data).
  void add_own(HandleId h, Version v, std::uint64_t bytes, Digest digest, ContentRef content = nullptr);
  // A received copy needed by `readers` local tasks (dropped at once if 0 and unpinned).
  void add_copy(HandleId h, Version v, std::uint64_t bytes, std::uint32_t readers, Digest digest,
                ContentRef content = nullptr);
  // A local reader of a copy finished / a reader of it is to run again (re-execution).
  void reader_done(HandleId h, Version v);
  void reader_added(HandleId h, Version v);
  // What a task that reads (h, v) gets: its digest, or, if the node does not hold it, whatever
  // the node's buffer of h holds (its newest version), or kMissingDigest. The oracle then sees
  // the wrong input in the final digests.
  Digest read_digest(HandleId h, Version v) const;
  // The digest of (h, v) if the node holds it, else null (one lookup: a task start asks it of
  // every input).
  const Digest* find_digest(HandleId h, Version v) const {
    auto it = entries_.find(key(h, v));
    return it != entries_.end() ? &it->second.digest : nullptr;
  }
  // A cache hint: where a lookup of (h, v) starts.
  void prefetch(HandleId h, Version v) const { entries_.prefetch(key(h, v)); }
  // The same for the real content (null when there is none to read).
  ContentRef read_content(HandleId h, Version v) const;
  // Test only (see test_faults.hpp): the content held for (h, v) is not that version's.
  void corrupt(HandleId h, Version v) {
    auto it = entries_.find(key(h, v));
    if (it != entries_.end()) it->second.digest = mix_digest(it->second.digest);
  }
  void pin(HandleId h, Version v);
  void unpin(HandleId h, Version v);

  void clear();
  std::uint64_t bytes() const { return bytes_; }
  std::uint64_t peak_bytes() const { return peak_bytes_; }
  // Own versions overwritten while pinned (a message log's copy-on-write): what logging by
  // reference really costs in memory, now and at its peak.
  std::uint64_t superseded_bytes() const { return superseded_bytes_; }
  std::uint64_t superseded_peak_bytes() const { return superseded_peak_bytes_; }
  std::size_t size() const { return entries_.size(); }
  const Map& entries() const { return entries_; }
  void assign(const std::unordered_map<std::uint64_t, Entry>& entries);

private:
  void insert(std::uint64_t k, const Entry& entry);
  void erase(Map::iterator it);
  void release_if_unused(Map::iterator it);

  Map entries_;
  std::uint64_t bytes_ = 0;
  std::uint64_t superseded_bytes_ = 0, superseded_peak_bytes_ = 0;
  std::uint64_t peak_bytes_ = 0;
};

}  // namespace ftsim::node
