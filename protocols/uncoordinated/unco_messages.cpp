#include "protocols/uncoordinated/unco_messages.hpp"

namespace ftsim::protocols::uncoordinated::messages {

using core::WireReader;
using core::WireWriter;

namespace {

void put(WireWriter& w, const std::vector<std::uint32_t>& values) {
  w.u32(static_cast<std::uint32_t>(values.size()));
  for (std::uint32_t v : values) w.u32(v);
}
std::vector<std::uint32_t> get(WireReader& r) {
  std::vector<std::uint32_t> values(r.u32());
  for (auto& v : values) v = r.u32();
  return values;
}

}  // namespace

Bytes Ack::encode() const {
  Bytes out;
  WireWriter w(out);
  w.u64(version);
  w.u32(date);
  w.u32(epoch);
  w.u8(duplicate ? 1 : 0);
  return out;
}
Ack Ack::decode(const Bytes& body) {
  WireReader r(body);
  Ack m;
  m.version = r.u64();
  m.date = r.u32();
  m.epoch = r.u32();
  m.duplicate = r.u8() != 0;
  r.expect_done();
  return m;
}

Bytes Checkpointed::encode() const {
  Bytes out;
  WireWriter w(out);
  w.u32(checkpoint);
  w.u32(epoch);
  return out;
}
Checkpointed Checkpointed::decode(const Bytes& body) {
  WireReader r(body);
  Checkpointed m;
  m.checkpoint = r.u32();
  m.epoch = r.u32();
  r.expect_done();
  return m;
}

Bytes Floor::encode() const {
  Bytes out;
  WireWriter w(out);
  w.u32(epoch);
  return out;
}
Floor Floor::decode(const Bytes& body) {
  WireReader r(body);
  Floor m;
  m.epoch = r.u32();
  r.expect_done();
  return m;
}

Bytes Round::encode() const {
  Bytes out;
  WireWriter w(out);
  w.u32(round);
  w.u32(latest);
  return out;
}
Round Round::decode(const Bytes& body) {
  WireReader r(body);
  Round m;
  m.round = r.u32();
  m.latest = r.u32();
  r.expect_done();
  return m;
}

Bytes Report::encode() const {
  Bytes out;
  WireWriter w(out);
  w.reserve(24 + 4 * epoch_dates.size() + 12 * dependencies.size());
  w.u32(round);
  w.u32(incarnation);
  w.u32(restart_epoch);
  w.u32(epoch);
  w.u32(first_epoch);
  put(w, epoch_dates);
  w.u32(static_cast<std::uint32_t>(dependencies.size()));
  for (const Dependency& d : dependencies) {
    w.u32(d.trigger);
    w.u32(d.threshold);
    w.u32(d.epoch);
  }
  return out;
}
Report Report::decode(const Bytes& body) {
  WireReader r(body);
  Report m;
  m.round = r.u32();
  m.incarnation = r.u32();
  m.restart_epoch = r.u32();
  m.epoch = r.u32();
  m.first_epoch = r.u32();
  m.epoch_dates = get(r);
  m.dependencies.resize(r.u32());
  for (Dependency& d : m.dependencies) {
    d.trigger = r.u32();
    d.threshold = r.u32();
    d.epoch = r.u32();
  }
  r.expect_done();
  return m;
}

Bytes Line::encode() const {
  Bytes out;
  WireWriter w(out);
  w.u32(round);
  put(w, epochs);
  put(w, dates);
  return out;
}
Line Line::decode(const Bytes& body) {
  WireReader r(body);
  Line m;
  m.round = r.u32();
  m.epochs = get(r);
  m.dates = get(r);
  r.expect_done();
  return m;
}

Bytes Lists::encode() const {
  Bytes out;
  WireWriter w(out);
  w.u32(round);
  w.u32(static_cast<std::uint32_t>(orphans.size()));
  for (const Orphan& o : orphans) {
    w.u64(o.version);
    w.u32(o.epoch);
    w.u32(o.phase);
  }
  w.u32(static_cast<std::uint32_t>(needed.size()));
  for (std::uint64_t v : needed) w.u64(v);
  return out;
}
Lists Lists::decode(const Bytes& body) {
  WireReader r(body);
  Lists m;
  m.round = r.u32();
  m.orphans.resize(r.u32());
  for (Orphan& o : m.orphans) {
    o.version = r.u64();
    o.epoch = r.u32();
    o.phase = r.u32();
  }
  m.needed.resize(r.u32());
  for (std::uint64_t& v : m.needed) v = r.u64();
  r.expect_done();
  return m;
}

Bytes ListsAck::encode() const {
  Bytes out;
  WireWriter w(out);
  w.u32(round);
  return out;
}
ListsAck ListsAck::decode(const Bytes& body) {
  WireReader r(body);
  ListsAck m;
  m.round = r.u32();
  r.expect_done();
  return m;
}

Bytes Notification::encode() const {
  Bytes out;
  WireWriter w(out);
  w.u32(round);
  w.u8(rolled_back ? 1 : 0);
  w.u32(phase);
  w.u32(epoch);
  put(w, orphan_phases);
  return out;
}
Notification Notification::decode(const Bytes& body) {
  WireReader r(body);
  Notification m;
  m.round = r.u32();
  m.rolled_back = r.u8() != 0;
  m.phase = r.u32();
  m.epoch = r.u32();
  m.orphan_phases = get(r);
  r.expect_done();
  return m;
}

Bytes OrphanSent::encode() const {
  Bytes out;
  WireWriter w(out);
  w.u64(version);
  return out;
}
OrphanSent OrphanSent::decode(const Bytes& body) {
  WireReader r(body);
  OrphanSent m;
  m.version = r.u64();
  r.expect_done();
  return m;
}

Bytes NoOrphanPhase::encode() const {
  Bytes out;
  WireWriter w(out);
  w.u32(round);
  w.u32(phase);
  return out;
}
NoOrphanPhase NoOrphanPhase::decode(const Bytes& body) {
  WireReader r(body);
  NoOrphanPhase m;
  m.round = r.u32();
  m.phase = r.u32();
  r.expect_done();
  return m;
}

Bytes Ready::encode() const {
  Bytes out;
  WireWriter w(out);
  w.u32(round);
  w.u32(phase);
  return out;
}
Ready Ready::decode(const Bytes& body) {
  WireReader r(body);
  Ready m;
  m.round = r.u32();
  m.phase = r.u32();
  r.expect_done();
  return m;
}

}  // namespace ftsim::protocols::uncoordinated::messages
