// The block logic of /checkpoint_data (protocols/checkpoint_content.hpp) in isolation: zero-block
// markers, incremental chains (a full image every full_every, restart = the last full image and
// the incrementals after it, in order), garbage collection of the images no chain needs, zstd, the
// simulation's data profiles, and the single-datum images of the buddy protocol.
#include <catch2/catch.hpp>

#include <cstring>
#include <numeric>
#include <random>

#include "protocols/checkpoint_content.hpp"

using namespace ftsim;
using namespace ftsim::protocols;
using node::Bytes;
using node::NodeSnapshot;
using node::VersionStore;

namespace {

constexpr std::uint64_t kBlock = 1024;

config::CheckpointDataConfig data_config(bool zero_blocks, bool incremental, bool zstd, std::uint32_t full_every = 3) {
  config::CheckpointDataConfig c;
  c.enabled = true;
  c.zero_blocks = zero_blocks;
  c.incremental = incremental;
  c.full_every = full_every;
  c.block_size = kBlock;
  c.zstd = zstd;
  return c;
}

std::shared_ptr<const content::Settings> settings(const config::CheckpointDataConfig& c, config::DataProfile profile = {}) {
  return std::make_shared<const content::Settings>(c, profile, 8);
}

// Random bytes (incompressible), with the listed blocks zero.
node::ContentRef make_content(std::uint64_t blocks, std::uint64_t seed, std::vector<std::uint64_t> zero_blocks = {}) {
  auto content = std::make_shared<node::Content>(blocks * kBlock);
  std::mt19937_64 random(seed);
  for (std::size_t i = 0; i < content->size(); i += 8) {
    const std::uint64_t word = random();
    std::memcpy(content->data() + i, &word, 8);
  }
  for (std::uint64_t b : zero_blocks) std::memset(content->data() + b * kBlock, 0, kBlock);
  return content;
}

// The same content with blocks `changed` rewritten.
node::ContentRef change(const node::ContentRef& before, std::vector<std::uint64_t> changed, std::uint64_t seed) {
  auto content = std::make_shared<node::Content>(*before);
  std::mt19937_64 random(seed);
  for (std::uint64_t b : changed) {
    for (std::uint64_t i = 0; i < kBlock; i += 8) {
      const std::uint64_t word = random() | 1;
      std::memcpy(content->data() + b * kBlock + i, &word, 8);
    }
  }
  return content;
}

// A node state holding version v of handle 0 with this content (and version 0 of handle 1).
NodeSnapshot snapshot_with(graphs::Version v, const node::ContentRef& content, const node::ContentRef& other) {
  NodeSnapshot s;
  s.done = {1, 0, 1};
  VersionStore::Entry e;
  e.bytes = content->size();
  e.digest = 1000 + v;
  e.content = content;
  s.store[VersionStore::key(0, v)] = e;
  VersionStore::Entry o;
  o.bytes = other->size();
  o.digest = 7;
  o.content = other;
  s.store[VersionStore::key(1, 0)] = o;
  s.bytes = e.bytes + o.bytes;
  return s;
}

const node::Content& restored_content(const content::Restored& r, graphs::HandleId h, graphs::Version v) {
  return *r.snapshot.store.at(VersionStore::key(h, v)).content;
}

}  // namespace

TEST_CASE("checkpoint data: a zero block is stored as a marker and restored as zeros", "[checkpoint-data]") {
  content::ImageWriter writer(settings(data_config(true, false, false)));
  node::ContentCounters counters;
  const auto data = make_content(8, 1, {1, 4, 5});
  const auto other = make_content(2, 2);
  const auto image = writer.write(counters, snapshot_with(1, data, other), 1);
  CHECK(image.full);
  CHECK(image.logical_bytes == 10 * kBlock);
  // 7 non-zero blocks of data, 3 zero markers of 4 bytes (Block_ID, thesis Eq. 2.2).
  CHECK(image.stored_bytes == 7 * kBlock + 3 * 4);
  CHECK(image.zero_blocks == 3);
  CHECK(counters.full_images == 1);
  CHECK(counters.zero_blocks == 3);
  const Bytes* chain[] = {&image.content};
  const content::Restored r = content::read_chain(*settings(data_config(true, false, false)), chain, nullptr);
  CHECK(restored_content(r, 0, 1) == *data);
  CHECK(restored_content(r, 1, 0) == *other);
  CHECK(r.snapshot.done == std::vector<std::uint8_t>{1, 0, 1});
  CHECK(r.snapshot.bytes == 10 * kBlock);
  CHECK(r.snapshot.store.at(VersionStore::key(0, 1)).digest == 1001);
}

TEST_CASE("checkpoint data: without zero_blocks a zero block is stored as it is", "[checkpoint-data]") {
  content::ImageWriter writer(settings(data_config(false, true, false)));
  node::ContentCounters counters;
  const auto image = writer.write(counters, snapshot_with(1, make_content(4, 1, {0, 1}), make_content(1, 2)), 1);
  CHECK(image.stored_bytes == 5 * kBlock);
}

TEST_CASE("checkpoint data: incremental images hold the changed blocks; restart reads the chain in order",
          "[checkpoint-data]") {
  const auto s = settings(data_config(true, true, false, 3));
  content::ImageWriter writer(s);
  node::ContentCounters counters;
  const auto other = make_content(2, 9);
  const auto v1 = make_content(16, 1);
  const auto v2 = change(v1, {3, 7}, 2);
  const auto v3 = change(v2, {7, 8, 9}, 3);
  const auto v4 = change(v3, {0}, 4);
  std::vector<content::ImageWriter::Image> images;
  images.push_back(writer.write(counters, snapshot_with(1, v1, other), 1));
  images.push_back(writer.write(counters, snapshot_with(2, v2, other), 2));
  images.push_back(writer.write(counters, snapshot_with(3, v3, other), 3));
  images.push_back(writer.write(counters, snapshot_with(4, v4, other), 4));
  // F I I F: a full image every 3.
  CHECK(images[0].full);
  CHECK_FALSE(images[1].full);
  CHECK_FALSE(images[2].full);
  CHECK(images[3].full);
  CHECK(images[1].previous == 1);
  CHECK(images[2].previous == 2);
  // An incremental image: the changed blocks of handle 0 (handle 1 unchanged) and their ids.
  CHECK(images[1].stored_bytes == 2 * kBlock + 2 * 4);
  CHECK(images[2].stored_bytes == 3 * kBlock + 3 * 4);
  CHECK(images[1].unchanged_blocks == 14 + 2);
  CHECK(counters.full_images == 2);
  CHECK(counters.incremental_images == 2);
  CHECK(counters.images.size() == 4);

  // Restart at 3 = full 1 + incrementals 2 and 3, in order: bit-exact.
  const Bytes* chain[] = {&images[0].content, &images[1].content, &images[2].content};
  const content::Restored r3 = content::read_chain(*s, chain, nullptr);
  CHECK(r3.images == 3);
  CHECK(r3.bytes_read == images[0].stored_bytes + images[1].stored_bytes + images[2].stored_bytes);
  CHECK(restored_content(r3, 0, 3) == *v3);
  CHECK(restored_content(r3, 1, 0) == *other);
  CHECK(r3.snapshot.store.size() == 2);
  // At 2: full 1 + incremental 2.
  const Bytes* chain2[] = {&images[0].content, &images[1].content};
  CHECK(restored_content(content::read_chain(*s, chain2, nullptr), 0, 2) == *v2);
  // A full image alone.
  const Bytes* chain4[] = {&images[3].content};
  CHECK(restored_content(content::read_chain(*s, chain4, nullptr), 0, 4) == *v4);

  // Out of order, a link missing, or no full image first: refused, never restored wrong.
  const Bytes* skipped[] = {&images[0].content, &images[2].content};
  CHECK_THROWS_AS(content::read_chain(*s, skipped, nullptr), node::WireError);
  const Bytes* reversed[] = {&images[1].content, &images[0].content};
  CHECK_THROWS_AS(content::read_chain(*s, reversed, nullptr), node::WireError);
  const Bytes* no_full[] = {&images[1].content, &images[2].content};
  CHECK_THROWS_AS(content::read_chain(*s, no_full, nullptr), node::WireError);
}

TEST_CASE("checkpoint data: a changed block that became zero is a marker in an incremental image", "[checkpoint-data]") {
  const auto s = settings(data_config(true, true, false, 10));
  content::ImageWriter writer(s);
  node::ContentCounters counters;
  const auto other = make_content(1, 9);
  const auto v1 = make_content(4, 1);
  auto v2 = std::make_shared<node::Content>(*v1);
  std::memset(v2->data() + 2 * kBlock, 0, kBlock);
  const auto a = writer.write(counters, snapshot_with(1, v1, other), 1);
  const auto b = writer.write(counters, snapshot_with(2, v2, other), 2);
  CHECK_FALSE(b.full);
  CHECK(b.stored_bytes == 4);  // one marker, no data
  CHECK(b.zero_blocks == 1);
  const Bytes* chain[] = {&a.content, &b.content};
  CHECK(restored_content(content::read_chain(*s, chain, nullptr), 0, 2) == *v2);
}

TEST_CASE("checkpoint data: the chain restarts after a restore; old chains are released for garbage collection",
          "[checkpoint-data]") {
  const auto s = settings(data_config(false, true, false, 3));
  content::ImageWriter writer(s);
  node::ContentCounters counters;
  const auto other = make_content(1, 9);
  auto v = make_content(4, 1);
  for (std::uint32_t c = 1; c <= 5; ++c) {
    v = change(v, {c % 4}, c);
    writer.write(counters, snapshot_with(c, v, other), c);
  }
  // F1 I2 I3 F4 I5
  CHECK(writer.full_of(3) == 1);
  CHECK(writer.full_of(5) == 4);
  // Once 5 is the oldest checkpoint kept, images 1 to 3 serve nothing; 4 and 5 stay.
  CHECK(writer.release_before(5) == std::vector<std::uint32_t>{1, 2, 3});
  CHECK(writer.release_before(5).empty());
  CHECK(writer.full_of(4) == 4);
  // A rollback to 4: image 5 belongs to a lost execution; the next image is full.
  CHECK(writer.release_after(4) == std::vector<std::uint32_t>{5});
  writer.restart_chain();
  const auto next = writer.write(counters, snapshot_with(6, v, other), 5);
  CHECK(next.full);
  CHECK(writer.full_of(5) == 5);
}

TEST_CASE("checkpoint data: reading a chain back from storage, newest first", "[checkpoint-data]") {
  const auto s = settings(data_config(false, true, false, 3));
  content::ImageWriter writer(s);
  node::ContentCounters counters;
  const auto other = make_content(1, 9);
  const auto v1 = make_content(4, 1);
  const auto v2 = change(v1, {1}, 2);
  const auto v3 = change(v2, {2}, 3);
  std::map<std::uint32_t, Bytes> storage;
  storage[1] = writer.write(counters, snapshot_with(1, v1, other), 1).content;
  storage[2] = writer.write(counters, snapshot_with(2, v2, other), 2).content;
  storage[3] = writer.write(counters, snapshot_with(3, v3, other), 3).content;
  content::ChainFetch fetch;
  fetch.begin(3);
  std::vector<std::uint32_t> reads;
  while (fetch.want() != 0) {
    reads.push_back(fetch.want());
    fetch.add(storage.at(fetch.want()));
  }
  CHECK(reads == std::vector<std::uint32_t>{3, 2, 1});
  const auto chain = fetch.chain();
  CHECK(restored_content(content::read_chain(*s, chain, nullptr), 0, 3) == *v3);
  // The wrong image for what it waits for is refused.
  fetch.begin(3);
  CHECK_THROWS_AS(fetch.add(storage.at(2)), node::WireError);
  // A keeper's view: the chain of 3 among the images it holds, packed in one message.
  const auto find = [&](std::uint32_t id) -> const Bytes* { return storage.count(id) ? &storage.at(id) : nullptr; };
  const auto held = content::collect_chain(find, 3);
  REQUIRE(held.size() == 3);
  const std::vector<Bytes> unpacked = content::unpack(content::pack(held));
  std::vector<const Bytes*> pointers;
  for (const Bytes& b : unpacked) pointers.push_back(&b);
  CHECK(restored_content(content::read_chain(*s, pointers, nullptr), 0, 3) == *v3);
  storage.erase(2);
  CHECK(content::collect_chain(find, 3).empty());  // a link missing: no chain
}

TEST_CASE("checkpoint data: zstd compresses the stored blocks and restores them exactly", "[checkpoint-data]") {
  const auto s = settings(data_config(false, false, true));
  content::ImageWriter writer(s);
  node::ContentCounters counters;
  // Compressible: small integers as doubles.
  auto data = std::make_shared<node::Content>(16 * kBlock);
  for (std::size_t i = 0; i < data->size() / 8; ++i) {
    const double value = double(i % 17);
    std::memcpy(data->data() + 8 * i, &value, 8);
  }
  const auto other = make_content(1, 3);
  const auto image = writer.write(counters, snapshot_with(1, data, other), 1);
  CHECK(image.uncompressed_bytes == 17 * kBlock);
  CHECK(image.stored_bytes < 3 * kBlock);
  CHECK(image.compress_seconds > 0);
  CHECK(image.charge_seconds == 0);  // real content: spent for real, nothing to charge
  const Bytes* chain[] = {&image.content};
  node::ContentCounters read;
  const content::Restored r = content::read_chain(*s, chain, &read);
  CHECK(restored_content(r, 0, 1) == *data);
  CHECK(restored_content(r, 1, 0) == *other);
  CHECK(read.restores == 1);
  CHECK(read.restore_images == 1);
}

TEST_CASE("checkpoint data: a simulation models the blocks from the data profile and charges the CPU time",
          "[checkpoint-data]") {
  config::CheckpointDataConfig c = data_config(true, true, true, 3);
  c.block_size = 8192;
  const auto s = settings(c, {0.25, 0.5, 2.0});
  content::ImageWriter writer(s);
  node::ContentCounters counters;
  const std::uint64_t bytes = 100 * 8192;
  const auto state = [&](graphs::Version v) {
    NodeSnapshot snapshot;
    snapshot.done = {1};
    VersionStore::Entry e;
    e.bytes = bytes;
    e.digest = 50 + v;
    snapshot.store[VersionStore::key(0, v)] = e;
    VersionStore::Entry same;
    same.bytes = bytes;
    same.digest = 9;
    snapshot.store[VersionStore::key(1, 0)] = same;
    snapshot.bytes = 2 * bytes;
    return snapshot;
  };
  const auto full = writer.write(counters, state(1), 1);
  // Full: every block but the zero ones (25%), halved by zstd; 4 bytes per zero marker.
  CHECK(full.full);
  CHECK(full.stored_bytes == 2 * (bytes * 3 / 4 / 2) + 2 * 25 * 4);
  CHECK(full.zero_blocks == 50);
  CHECK(full.charge_seconds == Approx(2.0 * bytes / s->hash_throughput + 2 * 0.75 * bytes / s->compress_throughput));
  // Two writes later: 1 - 0.5^2 = 75% of handle 0's blocks changed; handle 1 is the same version.
  const auto incremental = writer.write(counters, state(3), 2);
  CHECK_FALSE(incremental.full);
  CHECK(incremental.stored_bytes == std::llround(bytes * 0.75 * 0.75 / 2) + 4 * 75);
  CHECK(incremental.unchanged_blocks == 25 + 100);
  CHECK(incremental.charge_seconds == Approx(double(bytes) / s->hash_throughput + bytes * 0.75 * 0.75 / s->compress_throughput));
  // The chain restores the versions (digests); restoring needs the image it builds on.
  const Bytes* chain[] = {&full.content, &incremental.content};
  const content::Restored r = content::read_chain(*s, chain, nullptr);
  CHECK(r.snapshot.store.at(VersionStore::key(0, 3)).digest == 53);
  CHECK(r.snapshot.store.at(VersionStore::key(1, 0)).digest == 9);
  CHECK(r.snapshot.store.at(VersionStore::key(0, 3)).content == nullptr);
  CHECK(r.charge_seconds > 0);
  const Bytes* alone[] = {&incremental.content};
  CHECK_THROWS_AS(content::read_chain(*s, alone, nullptr), node::WireError);
}

TEST_CASE("checkpoint data: single-datum images (buddy) chain over the versions saved to one keeper", "[checkpoint-data]") {
  const auto s = settings(data_config(true, true, true, 3));
  content::DatumWriter writer(s);
  node::ContentCounters counters;
  const auto v1 = make_content(8, 1, {6});
  const auto v2 = change(v1, {2}, 2);
  const auto v3 = change(v2, {3, 4}, 3);
  const auto a = writer.write(counters, v1->size(), 5, 0, 1, v1, true, 1);
  const auto b = writer.write(counters, v2->size(), 5, 0, 2, v2, false, 2);
  const auto c = writer.write(counters, v3->size(), 5, 0, 3, v3, false, 3);
  CHECK(a.full);
  CHECK_FALSE(b.full);
  CHECK_FALSE(c.full);
  CHECK(content::read_datum_header(*c.image).base == 2);
  double modelled = 0, measured = 0;
  const node::Content* chain[] = {a.image.get(), b.image.get(), c.image.get()};
  CHECK(*content::read_datum_chain(*s, chain, 0, modelled, measured) == *v3);
  CHECK(modelled == 0);
  const node::Content* broken[] = {a.image.get(), c.image.get()};
  CHECK_THROWS_AS(content::read_datum_chain(*s, broken, 0, modelled, measured), node::WireError);
  // Another keeper has nothing of it: full there; a keeper that was replaced: full again.
  CHECK(writer.write(counters, v3->size(), 6, 0, 3, v3, false, 3).full);
  writer.forget(5);
  CHECK(writer.write(counters, v3->size(), 5, 0, 4, v3, false, 4).full);
  // A raw copy (a cached save) is a full entry of a chain.
  const node::Content* raw[] = {v2.get(), c.image.get()};
  CHECK(*content::read_datum_chain(*s, raw, 0, modelled, measured) == *v3);
}
