#pragma once
// Smaller checkpoints (/checkpoint_data; Cores 2015, Ch. 2.2-2.5): zero-block exclusion,
// incremental checkpoints and zstd compression of what a protocol saves. The one place of the
// block logic for every protocol that saves data (global, buddy, cck, uncoordinated); each calls it
// where it computes the bytes it sends to storage or to a buddy.
//
// A datum (one version of a data handle) is cut into blocks of /checkpoint_data/block_size bytes.
//  - zero blocks: a block that is all zeros is stored as a marker (its id with the high bit set);
//  - incremental: the writer keeps each block's hash (xxHash XXH3-64) of what it saved last, in
//    memory; an incremental image holds only the blocks whose hash changed (and markers for those
//    that became zero); a full image every `full_every` (the first, and after anything that breaks
//    the chain: a restore, a rollback, a replacement that lost the hashes); a restore reads the
//    last full image and the incrementals after it, in order (thesis §2.3);
//  - zstd compresses the stored blocks of an image (the data section; the metadata stays plain).
//
// Two ways of knowing a datum, one logic. On the MPI backend every version has its real buffer:
// blocks are hashed, compared, tested for zeros and compressed for real, and the bytes saved are
// measured. In a simulation versions have no content: the application's data profile
// (config::DataProfile, measured on the real kernels by bench/content_profile) says what share of
// a datum's blocks are zeros, what share a write changes and how well zstd compresses it, and the
// CPU time of hashing and compressing (measured throughputs) is returned for the protocol to
// charge to a core of the node. The images, chains, markers and garbage collection are the same
// in both: a simulated restore really reads the chain back, and the digest oracle sees a chain
// that misses a link.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"
#include "sim/node/content.hpp"
#include "sim/node/node_runtime.hpp"
#include "sim/node/protocol_context.hpp"
#include "sim/node/wire.hpp"

namespace ftsim::protocols::content {

// Throughputs of one core of this machine (a 2-core VM), in bytes per second, measured by
// bench/content_profile (thread CPU time) on 8 KiB blocks of the applications' real data,
// bench/profiles/*.json (docs/checkpoint-data.md): xxHash XXH3-64 with the zero test 11.2 GB/s,
// zstd level 3 compression 0.68 GB/s and decompression 1.38 GB/s.
inline constexpr double kHashThroughput = 1.12e10;
inline constexpr double kCompressThroughput = 6.8e8;
inline constexpr double kDecompressThroughput = 1.38e9;

// What every process of a run shares, read-only: /checkpoint_data and each datum's profile.
class Settings {
public:
  // Throws config::ConfigError for a profile family the graph does not have.
  Settings(const config::Config& config, const graphs::TaskGraph& graph);
  // One profile for `handles` handles (tests, bench/content_profile).
  Settings(const config::CheckpointDataConfig& config, const config::DataProfile& profile, std::size_t handles);

  bool zero_blocks = false;
  bool incremental = false;
  std::uint64_t block_size = 8192;
  std::uint32_t full_every = 1;
  bool zstd = false;
  int level = 3;
  // A node's cores (/platform/cores_per_node): a stopped node hashes and compresses its snapshot
  // image on all of them (its blocks are independent), and a replacement decompresses its chain so.
  std::uint32_t cores = 1;
  double hash_throughput = kHashThroughput;
  double compress_throughput = kCompressThroughput;
  double decompress_throughput = kDecompressThroughput;

  const config::DataProfile& profile(graphs::HandleId h) const { return profiles_[handle_profile_[h]]; }

private:
  std::vector<config::DataProfile> profiles_;
  std::vector<std::uint32_t> handle_profile_;
};

// Null when the config has no /checkpoint_data.
std::shared_ptr<const Settings> make_settings(const config::Config& config, const graphs::TaskGraph& graph);

// What a writer remembers of a datum it saved (in memory, as CPPC keeps its hashes in RAM): its
// version and, with real content, its size, block hashes and zero flags.
struct DatumMemory {
  graphs::Version version = 0;
  node::Digest digest = 0;
  std::uint64_t size = 0;
  std::vector<std::uint64_t> hashes;
  std::vector<std::uint8_t> zero;
};

// What encoding one image or datum cost and saved (also added to the process's counters).
struct Encoded {
  bool full = true;
  std::uint64_t logical_bytes = 0;  // what saving it would cost without /checkpoint_data
  std::uint64_t stored_bytes = 0;   // what is saved: the protocol sends / writes this many bytes
  std::uint64_t uncompressed_bytes = 0;  // stored block bytes before compression
  std::uint64_t blocks = 0, zero_blocks = 0, unchanged_blocks = 0, stored_blocks = 0;
  double hash_seconds = 0, compress_seconds = 0;
  // Time the protocol charges to a core of the node before the image may leave (a simulation: the
  // modelled hashing and compression; a snapshot image's is spread over the node's cores; 0 on
  // MPI, where they ran for real).
  double charge_seconds = 0;
};

// ============================================================================ node snapshots
// (global, cck, uncoordinated: a checkpoint is the node's state, NodeSnapshot)

struct ImageHeader {
  bool full = true;
  std::uint32_t checkpoint = 0;
  std::uint32_t previous = 0;  // the image this one builds on (0: a full one)
  std::uint64_t logical_bytes = 0, stored_bytes = 0;
};
bool is_image(const node::Bytes& bytes);
ImageHeader read_header(const node::Bytes& image);  // throws node::WireError if it is not one

// One process's images: a chain of a full image and the incrementals after it.
class ImageWriter {
public:
  explicit ImageWriter(std::shared_ptr<const Settings> settings) : settings_(std::move(settings)) {}

  struct Image : Encoded {
    node::Bytes content;
    std::uint32_t checkpoint = 0, previous = 0;
  };
  // Encodes `snapshot` (and the protocol's `extra` state, kept as it is) as checkpoint `checkpoint`:
  // full or incremental over the previous image this writer wrote. Counts it in ctx's counters.
  Image write(node::ProtocolContext& ctx, const node::NodeSnapshot& snapshot, std::uint32_t checkpoint,
              const node::Bytes& extra = {});
  Image write(node::ContentCounters& counters, const node::NodeSnapshot& snapshot, std::uint32_t checkpoint,
              const node::Bytes& extra = {});
  // The next image is full: after a restore or a rollback (the hashes in memory describe a state
  // that is no longer the chain's end) or an image that was abandoned.
  void restart_chain();
  // The full image checkpoint `checkpoint`'s chain starts with (0 if this writer did not write it).
  std::uint32_t full_of(std::uint32_t checkpoint) const;
  // Images this writer wrote before the chain of `checkpoint` (they serve no restore once it is the
  // oldest checkpoint kept): returned for the protocol to erase, and forgotten.
  std::vector<std::uint32_t> release_before(std::uint32_t checkpoint);
  // Every image it wrote after `checkpoint` (a rollback to it: they belong to an execution that
  // no longer exists), forgotten.
  std::vector<std::uint32_t> release_after(std::uint32_t checkpoint);
  // A replacement read these images back (a chain, its full image first): they are its own now,
  // for release_before.
  void adopt(std::span<const node::Bytes* const> chain);

private:
  std::shared_ptr<const Settings> settings_;
  std::unordered_map<std::uint64_t, DatumMemory> memory_;  // entries of the last image, by store key
  std::uint32_t last_ = 0;          // the last image (0: none, the next is full)
  std::uint32_t since_full_ = 0;    // images since the last full one
  std::map<std::uint32_t, std::uint32_t> full_of_;  // image -> the full image of its chain
};

// A state restored from a chain of images.
struct Restored {
  node::NodeSnapshot snapshot;
  node::Bytes extra;             // the protocol's state saved with the last image
  double charge_seconds = 0;     // decompression, to charge before restoring (a simulation)
  std::uint64_t bytes_read = 0;  // stored bytes of the chain
  std::uint32_t images = 0;
};
// Folds a chain (its full image first, then the incrementals in order) into the state of its last
// image; counts the restore in ctx's counters. Throws node::WireError if the chain is broken (an
// image missing, out of order, or an entry whose base is not in the state before it).
Restored read_chain(node::ProtocolContext& ctx, const Settings& settings, std::span<const node::Bytes* const> chain);
// The same for a restore counted by the caller (or not at all: tests).
Restored read_chain(const Settings& settings, std::span<const node::Bytes* const> chain, node::ContentCounters* counters);

// Reads a chain back from storage, newest first: begin(c), then add() each image read for want()
// until want() is 0; chain() gives them in restore order.
class ChainFetch {
public:
  void begin(std::uint32_t checkpoint) {
    images_.clear();
    want_ = checkpoint;
  }
  std::uint32_t want() const { return want_; }
  // The image read for want(); returns the next one to read (0: the chain is complete). Throws
  // node::WireError if it is not an image of want().
  std::uint32_t add(node::Bytes image);
  std::vector<const node::Bytes*> chain() const;

private:
  std::vector<node::Bytes> images_;  // newest first
  std::uint32_t want_ = 0;
};

// Several images in one message (a chain a buddy sends back) and back.
node::Bytes pack(std::span<const node::Bytes* const> images);
std::vector<node::Bytes> unpack(const node::Bytes& packed);

// The chain of `checkpoint` among images held by `find(id)` (the image of id, or null): its full
// image first, then the incrementals in order; empty if an image of it is missing.
template <class Find> std::vector<const node::Bytes*> collect_chain(Find&& find, std::uint32_t checkpoint) {
  std::vector<const node::Bytes*> chain;
  for (std::uint32_t id = checkpoint; id != 0;) {
    const node::Bytes* image = find(id);
    if (!image) return {};
    chain.insert(chain.begin(), image);
    const ImageHeader header = read_header(*image);
    if (header.full) return chain;
    id = header.previous;
  }
  return {};
}

// Charges `seconds` of CPU to a core of the node, as a protocol activity (the protocol's
// on_activity_done gets `token`), or, if no core is free now, as a delay (its on_timer gets it).
inline void charge(node::ProtocolContext& ctx, double seconds, std::uint64_t token) {
  if (!ctx.run_activity(seconds, token)) ctx.set_timer(seconds, token);
}

// ============================================================================ single data
// (buddy: a checkpoint is the versions a node saves to its buddies, one message each)

struct DatumHeader {
  bool full = true;
  graphs::Version version = 0;
  graphs::Version base = 0;  // an incremental: the version whose blocks it does not repeat
  std::uint64_t logical_bytes = 0, stored_bytes = 0;
};
bool is_datum_image(const node::Content* content);
DatumHeader read_datum_header(const node::Content& image);

class DatumWriter {
public:
  explicit DatumWriter(std::shared_ptr<const Settings> settings) : settings_(std::move(settings)) {}

  struct Image : Encoded {
    node::ContentRef image;  // the encoded datum (a header only in a simulation)
  };
  // Encodes version v of h (its real `content` on MPI, null in a simulation) for `keeper`: full
  // if `full` or if it saved no older version of h there, else incremental over that one. Counts
  // it in ctx's counters as a share of checkpoint `checkpoint`.
  Image write(node::ProtocolContext& ctx, node::NodeId keeper, graphs::HandleId h, graphs::Version v,
              const node::ContentRef& content, bool full, std::uint32_t checkpoint);
  // The same, for a datum of `bytes` (its content's size on MPI).
  Image write(node::ContentCounters& counters, std::uint64_t bytes, node::NodeId keeper, graphs::HandleId h,
              graphs::Version v, const node::ContentRef& content, bool full, std::uint32_t checkpoint);
  // The keeper has a copy of (h, v) this writer did not encode (a cached save): the next save of h
  // there is full.
  void forget(node::NodeId keeper, graphs::HandleId h);
  // The keeper lost what it held (a replacement) / this process lost or rolled back its memory.
  void forget(node::NodeId keeper);
  void forget_all() { memory_.clear(); }

private:
  std::shared_ptr<const Settings> settings_;
  std::unordered_map<std::uint64_t, DatumMemory> memory_;  // by (keeper, handle)
};

// Folds a datum's chain (its full image first) into its content (null in a simulation). A raw
// entry (not an image: a cached copy, a re-protection) counts as full. Adds the decompression time
// to `modelled_seconds` (a simulation: to charge) or `measured_seconds` (real content). Throws
// node::WireError if the chain is broken.
node::ContentRef read_datum_chain(const Settings& settings, std::span<const node::Content* const> chain,
                                  graphs::HandleId h, double& modelled_seconds, double& measured_seconds);

// Whether checkpoint c is one where every save is full (1, 1 + full_every, ...).
inline bool full_checkpoint(const Settings& settings, std::uint32_t c) {
  return !settings.incremental || settings.full_every <= 1 || (c - 1) % settings.full_every == 0;
}

// Adds one encoded image or datum to the process's counters (ContentCounters).
void count(node::ContentCounters& counters, const Encoded& encoded, std::uint32_t checkpoint, bool record_image);

}  // namespace ftsim::protocols::content
