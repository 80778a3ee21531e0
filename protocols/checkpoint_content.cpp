#include "protocols/checkpoint_content.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include <xxhash.h>
#include <zstd.h>

#include "graphs/apps/applications.hpp"
#include "sim/config/config_error.hpp"

namespace ftsim::protocols::content {

using node::Bytes;
using node::WireError;
using node::WireReader;
using node::WireWriter;
using graphs::HandleId;
using graphs::Version;

namespace {

constexpr std::uint64_t kImageMagic = 0x3149434d49535446ull;  // "FTSIMCI1": a node snapshot image
constexpr std::uint64_t kDatumMagic = 0x3149444d49535446ull;  // "FTSIMDI1": a datum image
constexpr std::uint32_t kZeroBit = 0x80000000u;               // a block id marking a zero block (thesis §2.3)
constexpr std::uint64_t kBlockIdBytes = 4;                    // Block_ID entries (thesis Eq. 2.2)

// How an entry of a snapshot image is given.
enum EntryMode : std::uint8_t {
  kModel = 0,      // a simulation: no content, its size modelled from the data profile
  kUnchanged = 1,  // an incremental: the same version as in the previous image
  kBlocks = 2,     // real content: block ids (zero markers) and the stored blocks in the data section
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ---------------------------------------------------------------------------- one datum's blocks

// The blocks of a datum to save: which are listed (stored or zero markers), against its base.
struct BlockPlan {
  std::vector<std::uint32_t> ids;  // listed blocks; kZeroBit: a zero marker
  std::uint64_t stored_bytes = 0;  // bytes of the stored blocks (the data they append)
};

// Hashes and zero flags of real content, by blocks of `block`. Returns the time it took.
double hash_blocks(const node::Content& content, std::uint64_t block, DatumMemory& memory) {
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t size = content.size();
  const std::uint64_t n = (size + block - 1) / block;
  memory.size = size;
  memory.hashes.resize(n);
  memory.zero.resize(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint8_t* data = content.data() + i * block;
    const std::uint64_t length = std::min(block, size - i * block);
    memory.hashes[i] = XXH3_64bits(data, length);
    bool zero = true;
    for (std::uint64_t k = 0; k < length && zero; k += 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, data + k, std::min<std::uint64_t>(8, length - k));
      zero = word == 0;
    }
    memory.zero[i] = zero ? 1 : 0;
  }
  return seconds_since(start);
}

// Real content: the blocks to list (all of them in a full save; those whose hash changed since
// `base` in an incremental one) and the data to append.
BlockPlan plan_blocks(const Settings& settings, const node::Content& content, const DatumMemory& now,
                      const DatumMemory* base, Bytes& data) {
  BlockPlan plan;
  const std::uint64_t block = settings.block_size;
  const bool comparable = base && base->size == now.size;
  for (std::uint64_t i = 0; i < now.hashes.size(); ++i) {
    if (comparable && base->hashes[i] == now.hashes[i] && base->zero[i] == now.zero[i]) continue;  // unchanged
    if (now.zero[i] && settings.zero_blocks) {
      plan.ids.push_back(static_cast<std::uint32_t>(i) | kZeroBit);
      continue;
    }
    plan.ids.push_back(static_cast<std::uint32_t>(i));
    const std::uint64_t at = i * block, length = std::min(block, now.size - at);
    data.insert(data.end(), content.begin() + static_cast<std::ptrdiff_t>(at),
                content.begin() + static_cast<std::ptrdiff_t>(at + length));
    plan.stored_bytes += length;
  }
  return plan;
}

// A simulation: what the data profile says saving a datum of `bytes` costs, full or `writes`
// writes after its base (0: no base, everything is new).
struct ModelledBlocks {
  double stored = 0;      // bytes of stored blocks
  double compressed = 0;  // the same after compression
  std::uint64_t blocks = 0, listed = 0, zero = 0;  // rounded (one datum)
  double listed_share = 0, zero_share = 0;         // expected, not rounded (summed over an image)
};
ModelledBlocks model_blocks(const Settings& settings, const config::DataProfile& profile, std::uint64_t bytes,
                            std::uint64_t writes) {
  ModelledBlocks m;
  m.blocks = (bytes + settings.block_size - 1) / settings.block_size;
  // Each write changes each block with probability `changed_fraction`, independently.
  const double changed = writes == 0 ? 1.0 : 1.0 - std::pow(1.0 - profile.changed_fraction, double(writes));
  const double zero = settings.zero_blocks ? profile.zero_fraction : 0.0;
  m.listed_share = double(m.blocks) * changed;
  m.zero_share = m.listed_share * zero;
  m.listed = static_cast<std::uint64_t>(std::llround(m.listed_share));
  m.zero = static_cast<std::uint64_t>(std::llround(double(m.listed) * zero));
  m.stored = double(bytes) * changed * (1.0 - zero);
  m.compressed = settings.zstd ? m.stored / profile.compression_ratio : m.stored;
  return m;
}

// Compresses the data section (zstd) if asked; returns the bytes stored and adds the time.
Bytes compress(const Settings& settings, Bytes data, double& seconds) {
  if (!settings.zstd || data.empty()) return data;
  const auto start = std::chrono::steady_clock::now();
  Bytes out(ZSTD_compressBound(data.size()));
  const std::size_t size = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), settings.level);
  if (ZSTD_isError(size)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(size));
  out.resize(size);
  seconds += seconds_since(start);
  return out;
}

Bytes decompress(bool zstd, const std::uint8_t* data, std::size_t size, std::uint64_t raw, double& seconds) {
  if (!zstd || raw == 0) {
    if (size != raw) throw WireError("checkpoint image: data section of " + std::to_string(size) + " bytes, expected " + std::to_string(raw));
    return Bytes(data, data + size);
  }
  const auto start = std::chrono::steady_clock::now();
  Bytes out(raw);
  const std::size_t got = ZSTD_decompress(out.data(), out.size(), data, size);
  if (ZSTD_isError(got) || got != raw) throw WireError("checkpoint image: the zstd data section does not decompress");
  seconds += seconds_since(start);
  return out;
}

// Rebuilds real content from its base (null: none) and its listed blocks, reading the stored
// blocks from `data` at `offset`.
node::ContentRef apply_blocks(const Settings& settings, std::uint64_t size, const node::Content* base,
                              const std::vector<std::uint32_t>& ids, const Bytes& data, std::uint64_t& offset) {
  auto content = std::make_shared<node::Content>(size, 0);
  if (base) std::memcpy(content->data(), base->data(), std::min<std::size_t>(size, base->size()));
  const std::uint64_t block = settings.block_size;
  for (std::uint32_t id : ids) {
    const std::uint64_t i = id & ~kZeroBit;
    const std::uint64_t at = i * block;
    if (at >= size) throw WireError("checkpoint image: a block beyond its datum");
    const std::uint64_t length = std::min(block, size - at);
    if (id & kZeroBit) {
      std::memset(content->data() + at, 0, length);
      continue;
    }
    if (offset + length > data.size()) throw WireError("checkpoint image: data section too short");
    std::memcpy(content->data() + at, data.data() + offset, length);
    offset += length;
  }
  return content;
}

void write_ids(WireWriter& w, const std::vector<std::uint32_t>& ids) {
  w.u64(ids.size());
  for (std::uint32_t id : ids) w.u32(id);
}
std::vector<std::uint32_t> read_ids(WireReader& r) {
  std::vector<std::uint32_t> ids(r.count(4));
  for (auto& id : ids) id = r.u32();
  return ids;
}

std::uint64_t ids_overhead(bool full, const std::vector<std::uint32_t>& ids) {
  // An incremental image lists every block it holds; a full one only its zero markers.
  if (!full) return kBlockIdBytes * ids.size();
  return kBlockIdBytes * static_cast<std::uint64_t>(std::count_if(ids.begin(), ids.end(), [](std::uint32_t id) { return id & kZeroBit; }));
}

}  // namespace

// ============================================================================ settings

Settings::Settings(const config::Config& config, const graphs::TaskGraph& graph) {
  const config::CheckpointDataConfig& c = config.checkpoint_data;
  cores = std::max<std::uint32_t>(1, config.platform.cores_per_node);
  zero_blocks = c.zero_blocks;
  incremental = c.incremental;
  block_size = c.block_size;
  full_every = c.incremental ? c.full_every : 1;
  zstd = c.zstd;
  level = c.level;
  if (c.hash_throughput > 0) hash_throughput = c.hash_throughput;
  if (c.compress_throughput > 0) compress_throughput = c.compress_throughput;
  if (c.decompress_throughput > 0) decompress_throughput = c.decompress_throughput;
  const auto apply = [](config::DataProfile& p, const config::CheckpointDataConfig::ProfileOverride& o) {
    if (o.zero_fraction) p.zero_fraction = *o.zero_fraction;
    if (o.changed_fraction) p.changed_fraction = *o.changed_fraction;
    if (o.compression_ratio) p.compression_ratio = *o.compression_ratio;
  };
  // One profile per handle family: the application's default, then the overrides.
  std::map<std::string, std::uint32_t> family_index;
  handle_profile_.resize(graph.handle_count());
  for (HandleId h = 0; h < graph.handle_count(); ++h) {
    const std::string& family = graph.handle_family(h);
    auto [it, inserted] = family_index.try_emplace(family, static_cast<std::uint32_t>(profiles_.size()));
    if (inserted) {
      config::DataProfile p = graphs::default_data_profile(config.application, family);
      apply(p, c.profile_all);
      if (auto o = c.profile_families.find(family); o != c.profile_families.end()) apply(p, o->second);
      profiles_.push_back(p);
    }
    handle_profile_[h] = it->second;
  }
  for (const auto& [family, o] : c.profile_families) {
    if (family_index.count(family)) continue;
    std::string known;
    for (const auto& [name, index] : family_index) known += (known.empty() ? "" : ", ") + name;
    throw config::ConfigError(config.file, c.profile_pointer + "/families/" + family,
                              "this graph has no data family \"" + family + "\"; its families: " + known);
  }
}

Settings::Settings(const config::CheckpointDataConfig& c, const config::DataProfile& profile, std::size_t handles) {
  zero_blocks = c.zero_blocks;
  incremental = c.incremental;
  block_size = c.block_size;
  full_every = c.incremental ? c.full_every : 1;
  zstd = c.zstd;
  level = c.level;
  if (c.hash_throughput > 0) hash_throughput = c.hash_throughput;
  if (c.compress_throughput > 0) compress_throughput = c.compress_throughput;
  if (c.decompress_throughput > 0) decompress_throughput = c.decompress_throughput;
  profiles_ = {profile};
  handle_profile_.assign(handles, 0);
}

std::shared_ptr<const Settings> make_settings(const config::Config& config, const graphs::TaskGraph& graph) {
  if (!config.checkpoint_data.enabled) return nullptr;
  return std::make_shared<const Settings>(config, graph);
}

void count(node::ContentCounters& c, const Encoded& e, std::uint32_t checkpoint, bool record_image) {
  if (e.full) {
    ++c.full_images;
    c.full_logical_bytes += e.logical_bytes;
    c.full_stored_bytes += e.stored_bytes;
  } else {
    ++c.incremental_images;
    c.incremental_logical_bytes += e.logical_bytes;
    c.incremental_stored_bytes += e.stored_bytes;
  }
  c.uncompressed_bytes += e.uncompressed_bytes;
  c.blocks += e.blocks;
  c.zero_blocks += e.zero_blocks;
  c.unchanged_blocks += e.unchanged_blocks;
  c.stored_blocks += e.stored_blocks;
  c.hash_seconds += e.hash_seconds;
  c.compress_seconds += e.compress_seconds;
  if (record_image) {
    c.images.push_back({checkpoint, e.full, e.logical_bytes, e.stored_bytes, e.hash_seconds + e.compress_seconds});
  }
}

// ============================================================================ snapshot images

bool is_image(const Bytes& bytes) {
  if (bytes.size() < 8) return false;
  std::uint64_t magic = 0;
  std::memcpy(&magic, bytes.data(), 8);
  return magic == kImageMagic;
}

namespace {

struct FullHeader : ImageHeader {
  std::uint64_t block_size = 0;
  bool zstd = false;
  std::uint64_t raw_bytes = 0;       // the data section before compression (real blocks)
  std::uint64_t modelled_bytes = 0;  // a simulation: the modelled stored blocks before compression
};

FullHeader read_full_header(WireReader& r) {
  if (r.u64() != kImageMagic) throw WireError("not a checkpoint image of /checkpoint_data");
  FullHeader h;
  h.full = r.u8() != 0;
  h.checkpoint = r.u32();
  h.previous = r.u32();
  h.logical_bytes = r.u64();
  h.stored_bytes = r.u64();
  h.block_size = r.u64();
  h.zstd = r.u8() != 0;
  h.raw_bytes = r.u64();
  h.modelled_bytes = r.u64();
  return h;
}

}  // namespace

ImageHeader read_header(const Bytes& image) {
  WireReader r(image);
  return read_full_header(r);
}

ImageWriter::Image ImageWriter::write(node::ProtocolContext& ctx, const node::NodeSnapshot& snapshot,
                                      std::uint32_t checkpoint, const Bytes& extra) {
  return write(ctx.counters().content, snapshot, checkpoint, extra);
}

ImageWriter::Image ImageWriter::write(node::ContentCounters& counters, const node::NodeSnapshot& snapshot,
                                      std::uint32_t checkpoint, const Bytes& extra) {
  const Settings& s = *settings_;
  Image image;
  image.checkpoint = checkpoint;
  // (An id at or below the last one means the protocol numbers again: a new chain.)
  image.full = last_ == 0 || checkpoint <= last_ || !s.incremental || since_full_ + 1 >= s.full_every;
  image.previous = image.full ? 0 : last_;
  image.logical_bytes = snapshot.bytes;

  // The previous image's versions of each handle: an incremental entry builds on the newest one
  // older than itself.
  std::unordered_map<HandleId, std::vector<Version>> previous_versions;
  if (!image.full) {
    for (const auto& [key, memory] : memory_) previous_versions[node::VersionStore::handle_of(key)].push_back(memory.version);
  }
  std::vector<std::uint64_t> keys;
  keys.reserve(snapshot.store.size());
  for (const auto& [key, entry] : snapshot.store) keys.push_back(key);
  std::sort(keys.begin(), keys.end());

  Bytes meta;  // entries, after the header
  WireWriter m(meta);
  Bytes data;  // the stored blocks (real content)
  double modelled_compressed = 0, modelled_raw = 0, hashed_bytes = 0;
  double modelled_blocks = 0, modelled_listed = 0, modelled_zero = 0;
  std::uint64_t overhead = 0;
  std::unordered_map<std::uint64_t, DatumMemory> memory;
  m.u64(keys.size());
  for (std::uint64_t key : keys) {
    const node::VersionStore::Entry& e = snapshot.store.at(key);
    const HandleId h = node::VersionStore::handle_of(key);
    const Version v = node::VersionStore::version_of(key);
    m.u64(key);
    m.u64(e.bytes);
    m.u64(e.digest);
    m.u32(e.remaining_readers);
    m.u8(e.copy ? 1 : 0);
    auto known = memory_.find(key);
    const bool same = known != memory_.end() && known->second.digest == e.digest;
    DatumMemory& now = memory[key];
    now.version = v;
    now.digest = e.digest;
    if (same && !image.full) {  // the same version as in the previous image: nothing to save
      m.u8(kUnchanged);
      now = known->second;
      const std::uint64_t blocks = (e.bytes + s.block_size - 1) / s.block_size;
      image.blocks += blocks;
      image.unchanged_blocks += blocks;
      continue;
    }
    // Its base in an incremental image: the previous image's newest version of h older than v.
    std::optional<Version> base;
    if (!image.full) {
      if (auto it = previous_versions.find(h); it != previous_versions.end()) {
        for (Version older : it->second) {
          if (older < v && (!base || older > *base)) base = older;
        }
      }
    }
    const DatumMemory* base_memory = base ? &memory_.at(node::VersionStore::key(h, *base)) : nullptr;
    if (!e.content) {
      // A simulation: the data profile models the blocks.
      m.u8(kModel);
      m.u8(base ? 1 : 0);
      if (base) m.u32(*base);
      const ModelledBlocks b = model_blocks(s, s.profile(h), e.bytes, base ? v - *base : 0);
      // Block counts are expected values: summed over the image, rounded once at its end.
      modelled_blocks += double(b.blocks);
      modelled_listed += b.listed_share;
      modelled_zero += b.zero_share;
      modelled_raw += b.stored;
      modelled_compressed += b.compressed;
      if (!same && (s.incremental || s.zero_blocks)) hashed_bytes += double(e.bytes);
      continue;
    }
    // Real content: hash its blocks (unless the same version was hashed for the previous image).
    if (same) {
      now = known->second;
    } else if (s.incremental || s.zero_blocks) {
      image.hash_seconds += hash_blocks(*e.content, s.block_size, now);
    } else {
      now.size = e.content->size();  // compression only: every block is stored, none is hashed
      const std::uint64_t n = (now.size + s.block_size - 1) / s.block_size;
      now.hashes.assign(n, 0);
      now.zero.assign(n, 0);
    }
    const BlockPlan plan = plan_blocks(s, *e.content, now, base_memory, data);
    m.u8(kBlocks);
    m.u64(now.size);
    m.u8(base ? 1 : 0);
    if (base) m.u32(*base);
    write_ids(m, plan.ids);
    const std::uint64_t zeros = static_cast<std::uint64_t>(std::count_if(plan.ids.begin(), plan.ids.end(), [](std::uint32_t id) { return id & kZeroBit; }));
    image.blocks += now.hashes.size();
    image.zero_blocks += zeros;
    image.stored_blocks += plan.ids.size() - zeros;
    image.unchanged_blocks += now.hashes.size() - plan.ids.size();
    overhead += ids_overhead(image.full, plan.ids);
  }
  if (modelled_blocks > 0) {
    const auto listed = static_cast<std::uint64_t>(std::llround(modelled_listed));
    const auto zero = std::min(listed, static_cast<std::uint64_t>(std::llround(modelled_zero)));
    image.blocks += static_cast<std::uint64_t>(modelled_blocks);
    image.zero_blocks += zero;
    image.stored_blocks += listed - zero;
    image.unchanged_blocks += static_cast<std::uint64_t>(modelled_blocks) - listed;
    overhead += image.full ? kBlockIdBytes * zero : kBlockIdBytes * listed;
  }
  // Real blocks are measured; modelled ones (a simulation) are charged to the node's core.
  const std::uint64_t section_raw = data.size();
  image.uncompressed_bytes = section_raw + static_cast<std::uint64_t>(std::llround(modelled_raw));
  Bytes section = compress(s, std::move(data), image.compress_seconds);
  image.stored_bytes = section.size() + static_cast<std::uint64_t>(std::llround(modelled_compressed)) + overhead;
  const double modelled_hash = hashed_bytes / s.hash_throughput;
  const double modelled_compress = s.zstd ? modelled_raw / s.compress_throughput : 0;
  image.hash_seconds += modelled_hash;
  image.compress_seconds += modelled_compress;
  image.charge_seconds = (modelled_hash + modelled_compress) / s.cores;  // the node is stopped: all its cores
  // The whole image: header, the snapshot's tasks, the entries, the data section, the extra state.
  WireWriter w(image.content);
  w.u64(kImageMagic);
  w.u8(image.full ? 1 : 0);
  w.u32(image.checkpoint);
  w.u32(image.previous);
  w.u64(image.logical_bytes);
  w.u64(image.stored_bytes);
  w.u64(s.block_size);
  w.u8(s.zstd ? 1 : 0);
  w.u64(section_raw);
  w.u64(static_cast<std::uint64_t>(std::llround(modelled_raw)));
  w.u64(snapshot.done.size());
  for (std::uint8_t d : snapshot.done) w.u8(d);
  w.u64(snapshot.bytes);
  w.bytes(meta);
  node::Content section_content(section.begin(), section.end());
  w.content(&section_content);
  w.bytes(extra);

  memory_ = std::move(memory);
  since_full_ = image.full ? 0 : since_full_ + 1;
  full_of_[checkpoint] = image.full ? checkpoint : full_of(last_);
  last_ = checkpoint;
  count(counters, image, checkpoint, true);
  return image;
}

void ImageWriter::restart_chain() {
  last_ = 0;
  since_full_ = 0;
  memory_.clear();
}

std::uint32_t ImageWriter::full_of(std::uint32_t checkpoint) const {
  auto it = full_of_.find(checkpoint);
  return it == full_of_.end() ? 0 : it->second;
}

std::vector<std::uint32_t> ImageWriter::release_before(std::uint32_t checkpoint) {
  const std::uint32_t first = full_of(checkpoint);
  std::vector<std::uint32_t> released;
  if (first == 0) return released;
  for (auto it = full_of_.begin(); it != full_of_.end() && it->first < first;) {
    released.push_back(it->first);
    it = full_of_.erase(it);
  }
  return released;
}

std::vector<std::uint32_t> ImageWriter::release_after(std::uint32_t checkpoint) {
  std::vector<std::uint32_t> released;
  for (auto it = full_of_.upper_bound(checkpoint); it != full_of_.end();) {
    released.push_back(it->first);
    it = full_of_.erase(it);
  }
  return released;
}

void ImageWriter::adopt(std::span<const Bytes* const> chain) {
  if (chain.empty()) return;
  const std::uint32_t first = read_header(*chain.front()).checkpoint;
  for (const Bytes* image : chain) full_of_[read_header(*image).checkpoint] = first;
}

Restored read_chain(node::ProtocolContext& ctx, const Settings& settings, std::span<const Bytes* const> chain) {
  return read_chain(settings, chain, &ctx.counters().content);
}

Restored read_chain(const Settings& settings, std::span<const Bytes* const> chain, node::ContentCounters* counters) {
  if (chain.empty()) throw WireError("checkpoint chain: no image");
  Restored restored;
  std::unordered_map<std::uint64_t, node::VersionStore::Entry> state;
  double modelled_raw = 0, measured = 0;
  std::uint32_t previous = 0;
  for (std::size_t i = 0; i < chain.size(); ++i) {
    WireReader r(*chain[i]);
    const FullHeader header = read_full_header(r);
    if (i == 0 && !header.full) throw WireError("checkpoint chain: it does not start with a full image");
    if (i > 0 && (header.full || header.previous != previous)) {
      throw WireError("checkpoint chain: image " + std::to_string(header.checkpoint) + " does not follow image " +
                      std::to_string(previous));
    }
    if (header.block_size != settings.block_size) throw WireError("checkpoint chain: another block size");
    previous = header.checkpoint;
    restored.bytes_read += header.stored_bytes;
    restored.snapshot.done.resize(r.count(1));
    for (auto& d : restored.snapshot.done) d = r.u8();
    restored.snapshot.bytes = r.u64();
    const Bytes meta = r.bytes();
    const node::ContentRef section = r.content();
    restored.extra = r.bytes();
    r.expect_done();
    const bool real = section && !section->empty();
    Bytes data;
    if (real) data = decompress(header.zstd, section->data(), section->size(), header.raw_bytes, measured);
    modelled_raw += double(header.modelled_bytes);  // a simulation's modelled blocks
    std::uint64_t offset = 0;
    std::unordered_map<std::uint64_t, node::VersionStore::Entry> next;
    WireReader m(meta);
    const std::uint64_t entries = m.count(30);
    for (std::uint64_t k = 0; k < entries; ++k) {
      const std::uint64_t key = m.u64();
      node::VersionStore::Entry e;
      e.bytes = m.u64();
      e.digest = m.u64();
      e.remaining_readers = m.u32();
      e.copy = m.u8() != 0;
      const HandleId h = node::VersionStore::handle_of(key);
      const std::uint8_t mode = m.u8();
      if (mode == kUnchanged) {
        auto it = state.find(key);
        if (header.full || it == state.end() || it->second.digest != e.digest) {
          throw WireError("checkpoint chain: image " + std::to_string(header.checkpoint) +
                          " keeps a version the image before it does not hold");
        }
        e.content = it->second.content;
      } else if (mode == kModel || mode == kBlocks) {
        const std::uint64_t size = mode == kBlocks ? m.u64() : 0;
        const node::Content* base = nullptr;
        if (m.u8() != 0) {
          const Version v = m.u32();
          auto it = state.find(node::VersionStore::key(h, v));
          if (header.full || it == state.end()) {
            throw WireError("checkpoint chain: image " + std::to_string(header.checkpoint) +
                            " builds on a version the image before it does not hold");
          }
          base = it->second.content.get();
        }
        if (mode == kBlocks) {
          const std::vector<std::uint32_t> ids = read_ids(m);
          e.content = apply_blocks(settings, size, base, ids, data, offset);
        }
      } else {
        throw WireError("checkpoint image: unknown entry mode");
      }
      next[key] = std::move(e);
    }
    m.expect_done();
    if (real && offset != data.size()) throw WireError("checkpoint image: data section not used up");
    state = std::move(next);
    ++restored.images;
  }
  restored.snapshot.store = std::move(state);
  const double modelled = settings.zstd ? modelled_raw / settings.decompress_throughput : 0;
  restored.charge_seconds = modelled / settings.cores;
  if (counters) {
    ++counters->restores;
    counters->restore_images += restored.images;
    counters->restore_bytes += restored.bytes_read;
    counters->decompress_seconds += modelled + measured;
  }
  return restored;
}

std::uint32_t ChainFetch::add(Bytes image) {
  const ImageHeader header = read_header(image);
  if (header.checkpoint != want_) {
    throw WireError("checkpoint chain: read image " + std::to_string(header.checkpoint) + " for " + std::to_string(want_));
  }
  if (!header.full && (header.previous == 0 || header.previous >= header.checkpoint)) {
    throw WireError("checkpoint chain: incremental image " + std::to_string(header.checkpoint) + " builds on image " +
                    std::to_string(header.previous));
  }
  images_.push_back(std::move(image));
  want_ = header.full ? 0 : header.previous;
  return want_;
}

std::vector<const Bytes*> ChainFetch::chain() const {
  std::vector<const Bytes*> chain;
  for (auto it = images_.rbegin(); it != images_.rend(); ++it) chain.push_back(&*it);
  return chain;
}

Bytes pack(std::span<const Bytes* const> images) {
  Bytes out;
  WireWriter w(out);
  w.u64(images.size());
  for (const Bytes* image : images) w.bytes(*image);
  return out;
}

std::vector<Bytes> unpack(const Bytes& packed) {
  WireReader r(packed);
  std::vector<Bytes> images(r.count(16));
  for (auto& image : images) image = r.bytes();
  r.expect_done();
  return images;
}

// ============================================================================ single data

bool is_datum_image(const node::Content* content) {
  if (!content || content->size() < 8) return false;
  std::uint64_t magic = 0;
  std::memcpy(&magic, content->data(), 8);
  return magic == kDatumMagic;
}

namespace {

struct FullDatumHeader : DatumHeader {
  std::uint64_t raw_bytes = 0;
  bool zstd = false;
  std::uint8_t mode = kModel;
};

FullDatumHeader read_full_datum_header(WireReader& r) {
  if (r.u64() != kDatumMagic) throw WireError("not a datum image of /checkpoint_data");
  FullDatumHeader h;
  h.full = r.u8() != 0;
  h.version = r.u32();
  h.base = r.u32();
  h.logical_bytes = r.u64();
  h.stored_bytes = r.u64();
  h.raw_bytes = r.u64();
  h.zstd = r.u8() != 0;
  h.mode = r.u8();
  return h;
}

std::uint64_t datum_key(node::NodeId keeper, HandleId h) { return (std::uint64_t(keeper) << 32) | h; }

}  // namespace

DatumHeader read_datum_header(const node::Content& image) {
  WireReader r(image.data(), image.size());
  return read_full_datum_header(r);
}

DatumWriter::Image DatumWriter::write(node::ProtocolContext& ctx, node::NodeId keeper, HandleId h, Version v,
                                      const node::ContentRef& content, bool full, std::uint32_t checkpoint) {
  return write(ctx.counters().content, ctx.graph().bytes(h), keeper, h, v, content, full, checkpoint);
}

DatumWriter::Image DatumWriter::write(node::ContentCounters& counters, std::uint64_t bytes, node::NodeId keeper,
                                      HandleId h, Version v, const node::ContentRef& content, bool full,
                                      std::uint32_t checkpoint) {
  const Settings& s = *settings_;
  Image image;
  auto known = memory_.find(datum_key(keeper, h));
  const DatumMemory* base = !full && s.incremental && known != memory_.end() && known->second.version < v ? &known->second : nullptr;
  image.full = base == nullptr;
  image.logical_bytes = bytes;
  DatumMemory now;
  now.version = v;
  Bytes header_and_ids;
  WireWriter w(header_and_ids);
  Bytes section;
  std::uint64_t overhead = 0;
  std::uint8_t mode = kModel;
  std::vector<std::uint32_t> ids;
  if (content) {
    mode = kBlocks;
    if (s.incremental || s.zero_blocks) {
      image.hash_seconds = hash_blocks(*content, s.block_size, now);
    } else {
      now.size = content->size();
      const std::uint64_t n = (now.size + s.block_size - 1) / s.block_size;
      now.hashes.assign(n, 0);
      now.zero.assign(n, 0);
    }
    Bytes data;
    const BlockPlan plan = plan_blocks(s, *content, now, base, data);
    ids = plan.ids;
    const std::uint64_t zeros = static_cast<std::uint64_t>(std::count_if(ids.begin(), ids.end(), [](std::uint32_t id) { return id & kZeroBit; }));
    image.blocks = now.hashes.size();
    image.zero_blocks = zeros;
    image.stored_blocks = ids.size() - zeros;
    image.unchanged_blocks = now.hashes.size() - ids.size();
    image.uncompressed_bytes = data.size();
    section = compress(s, std::move(data), image.compress_seconds);
    overhead = ids_overhead(image.full, ids);
    image.stored_bytes = section.size() + overhead;
  } else {
    const ModelledBlocks b = model_blocks(s, s.profile(h), bytes, base ? v - base->version : 0);
    image.blocks = b.blocks;
    image.zero_blocks = b.zero;
    image.unchanged_blocks = b.blocks - b.listed;
    image.stored_blocks = b.listed - b.zero;
    image.uncompressed_bytes = static_cast<std::uint64_t>(std::llround(b.stored));
    overhead = image.full ? kBlockIdBytes * b.zero : kBlockIdBytes * b.listed;
    image.stored_bytes = static_cast<std::uint64_t>(std::llround(b.compressed)) + overhead;
    image.hash_seconds = (s.incremental || s.zero_blocks) ? double(bytes) / s.hash_throughput : 0;
    image.compress_seconds = s.zstd ? b.stored / s.compress_throughput : 0;
    image.charge_seconds = image.hash_seconds + image.compress_seconds;
  }
  w.u64(kDatumMagic);
  w.u8(image.full ? 1 : 0);
  w.u32(v);
  w.u32(base ? base->version : 0);
  w.u64(image.logical_bytes);
  w.u64(image.stored_bytes);
  w.u64(image.uncompressed_bytes);
  w.u8(s.zstd ? 1 : 0);
  w.u8(mode);
  if (mode == kBlocks) {
    w.u64(now.size);
    write_ids(w, ids);
    w.u64(section.size());
    header_and_ids.insert(header_and_ids.end(), section.begin(), section.end());
  }
  image.image = std::make_shared<const node::Content>(header_and_ids.begin(), header_and_ids.end());
  memory_[datum_key(keeper, h)] = std::move(now);
  count(counters, image, checkpoint, false);
  return image;
}

void DatumWriter::forget(node::NodeId keeper, HandleId h) { memory_.erase(datum_key(keeper, h)); }

void DatumWriter::forget(node::NodeId keeper) {
  std::erase_if(memory_, [&](const auto& entry) { return static_cast<node::NodeId>(entry.first >> 32) == keeper; });
}

node::ContentRef read_datum_chain(const Settings& settings, std::span<const node::Content* const> chain, HandleId h,
                                  double& modelled_seconds, double& measured_seconds) {
  if (chain.empty()) throw WireError("datum chain: no entry");
  node::ContentRef content;
  bool has_previous = false;  // the previous entry is an image (a raw copy's version is not known here)
  Version previous = 0;
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const node::Content* entry = chain[i];
    if (!is_datum_image(entry)) {
      // A raw copy (a cached save, a re-protection): a full entry as it is.
      if (i > 0) throw WireError("datum chain of handle " + std::to_string(h) + ": a raw copy after its first entry");
      content = entry ? std::make_shared<const node::Content>(*entry) : nullptr;
      has_previous = false;
      continue;
    }
    WireReader r(entry->data(), entry->size());
    const FullDatumHeader header = read_full_datum_header(r);
    if (i == 0 && !header.full) throw WireError("datum chain of handle " + std::to_string(h) + ": it starts with an incremental entry");
    if (i > 0 && (header.full || (has_previous && header.base != previous))) {
      throw WireError("datum chain of handle " + std::to_string(h) + ": version " + std::to_string(header.version) +
                      " does not build on the entry before it");
    }
    previous = header.version;
    has_previous = true;
    if (header.mode == kModel) {
      if (header.zstd) modelled_seconds += double(header.raw_bytes) / settings.decompress_throughput;
      content = nullptr;
      continue;
    }
    const std::uint64_t size = r.u64();
    const std::vector<std::uint32_t> ids = read_ids(r);
    const std::uint64_t length = r.u64();
    const std::size_t at = entry->size() - static_cast<std::size_t>(length);
    if (length > entry->size()) throw WireError("datum image truncated");
    const Bytes data = decompress(header.zstd, entry->data() + at, static_cast<std::size_t>(length), header.raw_bytes, measured_seconds);
    std::uint64_t offset = 0;
    content = apply_blocks(settings, size, header.full ? nullptr : content.get(), ids, data, offset);
    if (offset != data.size()) throw WireError("datum image: data section not used up");
  }
  return content;
}

}  // namespace ftsim::protocols::content
