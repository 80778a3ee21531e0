// The message codec (sim/node/codec.hpp): every protocol's messages round-trip, and their bytes are
// those the hand-written encoders wrote before it (captured from them once, or written out below
// field by field): the bytes are the simulated sizes, so a layout change must fail here.
#include <catch2/catch.hpp>

#include <cstdio>
#include <memory>
#include <string>

#include "protocols/buddy/buddy_messages.hpp"
#include "protocols/cck/cck_messages.hpp"
#include "protocols/global/global_messages.hpp"
#include "protocols/lineage/lineage_messages.hpp"
#include "protocols/uncoordinated/unco_messages.hpp"
#include "sim/mpi/packet.hpp"
#include "sim/node/codec.hpp"

using namespace ftsim;

namespace {

std::string hex(const node::Bytes& bytes) {
  std::string out;
  char digits[3];
  for (std::uint8_t b : bytes) {
    std::snprintf(digits, sizeof digits, "%02x", b);
    out += digits;
  }
  return out;
}

node::ContentRef content(std::initializer_list<std::uint8_t> bytes) { return std::make_shared<const node::Content>(bytes); }

node::Message control(std::uint32_t type, node::Bytes body, std::vector<node::SharedBytes> parts = {}) {
  node::Message m;
  m.is_data = false;
  m.control_type = type;
  m.body = std::move(body);
  m.parts = std::move(parts);
  return m;
}

// `body` has the expected bytes (and uncounted framing), and decodes to a message that encodes
// to the same bytes again.
template <class T> void check(const T& message, const std::string& expected, std::uint64_t content_bytes) {
  const node::Bytes body = node::encode(message);
  CHECK(hex(body) == expected);
  CHECK(body.content_bytes == content_bytes);
  const node::Bytes again = node::encode(node::decode<T>(control(0, body)));
  CHECK(again == body);
  CHECK(again.content_bytes == body.content_bytes);
}

// The same for a struct with a field list per message type.
template <class T> void check(const T& message, std::uint32_t type, const std::string& expected) {
  const node::Bytes body = node::encode(message, type);
  CHECK(hex(body) == expected);
  CHECK(node::encode(node::decode<T>(control(type, body)), type) == body);
}

}  // namespace

TEST_CASE("codec: buddy's messages keep their layout", "[codec]") {
  namespace m = protocols::buddy::messages;
  const m::RecoveryInfo info{.requester_incarnation = 3, .round = 7, .newest = 5, .older = 4, .buddy = true, .released = true};
  check(info, "0300000007000000ffffffff0500000004000000010001", 0);

  m::RestoreData data;
  data.checkpoint = 6;
  data.add(11, node::encode(m::SavedVersion{2, 0x1122334455667788ull, content({1, 2, 3})}));
  data.add(12, node::encode(m::SavedVersion{9, 42, nullptr}));
  check(data,
        "060000000200000000000000530000000000000023000000000000000b00000017000000000000000b00000000000000"
        "02000000887766554433221104000000000000000102030c00000014000000000000000800000000000000090000002a"
        "000000000000000000000000000000",
        43);
  std::vector<std::pair<graphs::HandleId, m::SavedVersion>> entries;
  node::decode<m::RestoreData>(control(5, node::encode(data))).for_each_entry([&](graphs::HandleId h, m::SavedVersion saved) {
    entries.emplace_back(h, std::move(saved));
  });
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].first == 11);
  CHECK(entries[0].second.digest == 0x1122334455667788ull);
  CHECK(*entries[0].second.content == node::Content{1, 2, 3});
  CHECK(entries[1].second.version == 9);
  CHECK(!entries[1].second.content);

  m::Reprotect reprotect;
  reprotect.checkpoint = 4;
  reprotect.add(4, 11, m::SavedVersion{2, 77, content({9, 8})});
  reprotect.add(5, m::kValueHandle, m::SavedVersion{});
  check(reprotect,
        "0400000002000000000000003a000000000000001200000000000000040000000b000000020000004d00000000000000"
        "0300000000000000090805000000ffffffff0000000000000000000000000000000000000000",
        26);

  m::ReplayRequest replay;
  replay.keys = {m::version_key(3, 4), 99};
  check(replay, "020000000000000004000000030000006300000000000000", 0);
  m::SavedCopy copy;
  copy.handle = 8;
  copy.saved = m::SavedVersion{3, 5, content({7})};
  check(copy, "08000000030000000500000000000000020000000000000007", 9);
  m::Validate validate;
  validate.checkpoint = 12;
  check(validate, "0c000000", 0);
  const m::RestartFrom restart{.failed_incarnation = 2, .checkpoint = 3, .source = 4, .cause_node = 5, .alive = true};
  check(restart, "0200000003000000040000000500000001", 0);
}

TEST_CASE("codec: the uncoordinated protocol's messages keep their layout (u32 counts)", "[codec]") {
  namespace m = protocols::uncoordinated::messages;
  const m::Report report{.round = 2, .incarnation = 1, .restart_epoch = m::kNoEpoch, .epoch = 5, .first_epoch = 3,
                         .epoch_dates = {10, 20, 30}, .dependencies = {{1, 2, 3}, {4, 5, 6}}};
  check(report,
        "0200000001000000ffffffff0500000003000000030000000a000000140000001e000000020000000100000002000000"
        "03000000040000000500000006000000",
        0);
  const m::Lists lists{.round = 3, .orphans = {{m::version_key(1, 2), 4, 5}}, .needed = {7, 8}};
  check(lists, "0300000001000000020000000100000004000000050000000200000007000000000000000800000000000000", 0);
  const m::Notification notification{.round = 4, .rolled_back = true, .phase = 6, .epoch = 7, .orphan_phases = {1, 2}};
  check(notification, "04000000010600000007000000020000000100000002000000", 0);
  check(m::Ack{.version = 0x100000002ull, .date = 5, .epoch = 6, .duplicate = true}, "0200000001000000050000000600000001", 0);
  check(m::Line{.round = 9, .epochs = {1, m::kNoEpoch}, .dates = {3, 4}},
        "090000000200000001000000ffffffff020000000300000004000000", 0);
}

TEST_CASE("codec: cck's control messages keep their layout, per type", "[codec]") {
  namespace c = protocols::cck;
  check(c::Control{.checkpoint = 3, .round = 0x500000001ull, .valid = 2}, c::kInit, "01000000050000000300000002000000");
  check(c::Control{.checkpoint = 4, .round = 1}, c::kPing, "01000000000000000004000000");
  // A restart session's: no checkpoint.
  check(c::Control{.checkpoint = 4, .round = 2, .session = c::Session::restart}, c::kPong, "020000000000000001");
  check(c::Control{.checkpoint = 5, .bytes = 1000, .messages = 6, .message_bytes = 700}, c::kAck,
        "000000000000000005000000e8030000000000000600000000000000bc02000000000000");
  const c::Control restart{.checkpoint = 2, .round = c::round_key(3, 1), .valid = 4, .completed = 7,
                           .incarnations = {{1, 1}, {3, 2}}, .cause = {1, 0, 3}};
  check(restart, c::kRestart,
        "010000000300000002000000040000000100000000000000030000000700000000000000020000000000000001000000"
        "010000000300000002000000");
  check(c::Control{.round = 5, .messages = 3, .tasks = 10, .restored = true}, c::kDone,
        "05000000000000000a00000000000000030000000000000001");
  check(c::Control{.checkpoint = 3, .round = 1}, c::kCont, "010000000000000003000000");

  // GATHER: the blocks are parts, after the body, shared and not copied.
  c::Control gather;
  gather.round = 9;
  gather.step = 2;
  gather.blocks = {{7, std::make_shared<const node::Bytes>(node::Bytes{1, 2, 3})},
                   {8, std::make_shared<const node::Bytes>(node::Bytes{4})}};
  std::vector<node::SharedBytes> parts;
  const node::Bytes body = node::encode(gather, c::kGather, &parts);
  CHECK(hex(body) == "0900000000000000020000003000000000000000020000000700000008000000");
  REQUIRE(parts.size() == 2);
  CHECK(parts[1].get() == gather.blocks[1].second.get());
  const auto back = node::decode<c::Control>(control(c::kGather, body, parts));
  REQUIRE(back.blocks.size() == 2);
  CHECK(back.blocks[0].first == 7);
  CHECK(back.blocks[0].second.get() == parts[0].get());
  // Encoding it without a place for the parts is a bug; decoding it without them is an error.
  CHECK_THROWS_AS(node::encode(gather, c::kGather), std::logic_error);
  CHECK_THROWS_AS(node::decode<c::Control>(control(c::kGather, body)), node::WireError);
  // An unknown session or type is refused.
  CHECK_THROWS_AS(node::decode<c::Control>(control(c::kPing, node::Bytes{1, 0, 0, 0, 0, 0, 0, 0, 2})), node::WireError);
  CHECK_THROWS_AS(node::decode<c::Control>(control(99, node::Bytes{1, 0, 0, 0, 0, 0, 0, 0})), node::WireError);
}

TEST_CASE("codec: global's control messages keep their layout, per type", "[codec]") {
  namespace g = protocols::global::messages;
  g::Control ready = g::with(2, 1);
  ready.sent = {{0, 5}, {3, 7}};
  check(ready, g::kReady, "02000000010000000200000000000000000000000500000000000000030000000700000000000000");
  g::Control recover = g::with(3, 1);
  recover.cause = {1, 0, 1};
  check(recover, g::kRecover, "0300000001000000010000000000000001000000");
  g::Control data = g::with(4, 2);
  data.count = 1000;
  data.snapshot = node::Bytes{1, 2, 3, 4};
  check(data, g::kCheckpointData, "0400000002000000e8030000000000000400000000000000000000000000000001020304");
  CHECK(node::encode(data, g::kCheckpointData).content_bytes == 8);
  g::Control save = g::with(4, 2);
  save.count = 17;
  check(save, g::kSave, "04000000020000001100000000000000");
  check(g::with(5, 0), g::kRequest, "0500000000000000");
}

TEST_CASE("codec: lineage's and none's messages keep their layout", "[codec]") {
  namespace l = protocols::lineage::messages;
  // What the hand-written encoders wrote, field by field.
  node::Bytes expected;
  node::WireWriter w(expected);
  l::Plan plan;
  plan.round = 3;
  plan.replacement = true;
  plan.run = {4, 5};
  plan.sends = {{1, 2, 3}};
  plan.reloads = {6};
  w.u32(3);
  w.u8(1);
  w.u64(2);
  w.u32(4);
  w.u32(5);
  w.u64(1);
  w.u32(1);
  w.u32(2);
  w.u32(3);
  w.u64(1);
  w.u32(6);
  check(plan, hex(expected), 0);

  expected.clear();
  l::Inventory inventory;
  inventory.round = 2;
  inventory.state = {1, 0, 2};
  inventory.held = {9, 10};
  w.u32(2);
  w.u8(0);
  w.u64(3);
  for (std::uint8_t s : {1, 0, 2}) w.u8(s);
  w.u64(2);
  w.u64(9);
  w.u64(10);
  check(inventory, hex(expected), 0);
  // A fresh replacement sends its round and the flag only.
  inventory.fresh = true;
  check(inventory, "0200000001", 0);
  CHECK(node::decode<l::Inventory>(node::Bytes{2, 0, 0, 0, 1}).held.empty());
  check(l::Round{7}, "07000000", 0);

  check(node::FailureNotice{2, 1, 3}, "020000000100000003000000", 0);  // none's messages, and every cause
}

TEST_CASE("codec: MPI packets keep their layout", "[codec]") {
  node::Message msg;
  msg.source = 1;
  msg.destination = 2;
  msg.bytes = 100;
  msg.traffic = node::Traffic::control;
  msg.is_data = false;
  msg.handle = 3;
  msg.version = 4;
  msg.digest = 5;
  msg.section = 6;
  msg.content = content({1, 2});
  msg.control_type = 7;
  msg.body = node::Bytes{8, 9};
  msg.parts = {std::make_shared<const node::Bytes>(node::Bytes{10})};
  msg.set_header(0, 11);
  msg.set_header(5, 12);
  msg.source_incarnation = 1;
  msg.epoch = 2;
  msg.sent_at = 1.5;
  msg.sequence = 13;
  const mpi::HostMessage host{msg};
  check(host,
        "010000000200000064000000000000000400030000000400000005000000000000000600000003000000000000000102"
        "070000000200000000000000000000000000000008090100000000000000010000000000000000000000000000000a06"
        "0000000b000000000000000000000000000000000000000c00000001000000ffffffff02000000000000000000f83f0d"
        "00000000000000",
        26);
  const node::Message back = node::decode<mpi::HostMessage>(node::encode(host)).message;
  CHECK(back.header_words == 6);
  CHECK(back.header_word(5) == 12);
  CHECK(*back.parts[0] == node::Bytes{10});
  CHECK(back.traffic == node::Traffic::control);
  // A traffic kind that does not exist is refused.
  node::Bytes bad = node::encode(host);
  bad[16] = static_cast<std::uint8_t>(node::kTrafficKinds);
  CHECK_THROWS_AS(node::decode<mpi::HostMessage>(bad), node::WireError);

  node::ContentCounters content{.full_images = 24, .hash_seconds = 0.5, .decompress_seconds = 2, .restore_bytes = 25,
                                 .images = {{3, false, 26, 27, 0.125}}};
  const node::NodeMetrics nm{.executions = 1, .reexecutions = 2, .busy_seconds = 3.5, .lost_seconds = 0.25,
                             .messages_sent = {0, 0, 0, 0, 6}, .bytes_sent = {7}, .duplicates_received = 8,
                             .orphans_dropped = 9, .sends_suppressed = 10, .inputs_missing_at_start = 11,
                             .peak_memory_bytes = 12, .restarts = 13, .checkpoint_store_total = 14,
                             .checkpoint_store_peak = 15, .log_store_total = 16, .log_store_peak = 17,
                             .log_copies_peak = 18, .service_messages = 19, .service_bytes = 20,
                             .counters = {.cp_data_normal_count = 21, .cp_data_cached_size = 22, .named = {0, 23},
                                          .content = content}};
  const std::string zeros(96, '0');  // 48 bytes
  check(nm,
        "010000000000000002000000000000000000000000000c40000000000000d03f00000000000000000000000000000000"
        "000000000000000000000000000000000600000000000000070000000000000000000000000000000000000000000000"
        "00000000000000000000000000000000080000000000000009000000000000000a000000000000000b00000000000000"
        "0c000000000000000d0000000e000000000000000f000000000000001000000000000000110000000000000012000000"
        "000000001300000000000000140000000000000015000000000000000000000000000000000000000000000016000000"
        "000000000000000000000000170000000000000000000000000000000000000000000000000000000000000000000000" +
            zeros + zeros + zeros +
            "000000001800000000000000000000000000000000000000000000000000000000000000000000000000000000000000" +
            zeros +
            "0000000000000000000000001900000000000000000000000000e03f0000000000000000000000000000004001000000"
            "0000000003000000001a000000000000001b00000000000000000000000000c03f",
        0);

  check(node::FailureEffect{"checkpoint 3", 4, 1.25, 2, 5, 600},
        "0c000000000000000000000000000000636865636b706f696e7420330400000000000000000000000000f43f02000000"
        "05000000000000005802000000000000",
        8);

  // A packet is its kind, then its fields.
  mpi::StorageDone done{3, 9, true, false, 12, node::Bytes{5}};
  node::Bytes expected{static_cast<std::uint8_t>(mpi::PacketKind::storage_done)};
  node::WireWriter w(expected);
  w.u32(3);
  w.u64(9);
  w.u8(1);
  w.u8(0);
  w.u64(12);
  w.bytes(node::Bytes{5});
  CHECK(mpi::encode_packet(done) == expected);
  node::WireReader in(expected.data() + 1, expected.size() - 1);
  CHECK(mpi::read_packet<mpi::StorageDone>(in).content == node::Bytes{5});
}

TEST_CASE("codec: a message that is not exactly its fields is an error", "[codec]") {
  namespace m = protocols::uncoordinated::messages;
  m::Line line;
  line.round = 1;
  line.epochs = {1, 2};
  node::Bytes body = node::encode(line);
  node::Bytes truncated(body.begin(), body.end() - 1);
  CHECK_THROWS_AS(node::decode<m::Line>(truncated), node::WireError);
  body.push_back(0);
  CHECK_THROWS_AS(node::decode<m::Line>(body), node::WireError);
  // A count the rest of the message cannot hold is refused before anything is allocated.
  CHECK_THROWS_AS(node::decode<m::Line>(node::Bytes{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}), node::WireError);
}
