#include "protocols/buddy/buddy_messages.hpp"

namespace ftsim::protocols::buddy_messages {

using core::WireReader;
using core::WireWriter;

void SavedVersion::write(WireWriter& out) const {
  out.u32(version);
  out.u64(digest);
  out.content(content.get());
}

SavedVersion SavedVersion::read(WireReader& in) {
  SavedVersion saved;
  saved.version = in.u32();
  saved.digest = in.u64();
  saved.content = in.content();
  return saved;
}

Bytes SavedVersion::encode() const {
  Bytes out;
  WireWriter writer(out);
  write(writer);
  return out;
}

SavedVersion SavedVersion::decode(const Bytes& entry) {
  WireReader in(entry);
  SavedVersion saved = read(in);
  in.expect_done();
  return saved;
}

template <MessageType Type> Bytes CheckpointNumber<Type>::encode() const {
  Bytes out;
  WireWriter(out).u32(checkpoint);
  return out;
}

template <MessageType Type> CheckpointNumber<Type> CheckpointNumber<Type>::decode(const core::Message& m) {
  WireReader in(m.body);
  CheckpointNumber message;
  message.checkpoint = in.u32();
  in.expect_done();
  return message;
}

template struct CheckpointNumber<MessageType::ack>;
template struct CheckpointNumber<MessageType::validate>;
template struct CheckpointNumber<MessageType::log_release>;
template struct CheckpointNumber<MessageType::value_entries>;

Bytes SavedCopy::encode() const {
  Bytes out;
  WireWriter writer(out);
  writer.u32(handle);
  saved.write(writer);
  return out;
}

SavedCopy SavedCopy::decode(const core::Message& m) {
  WireReader in(m.body);
  SavedCopy copy;
  copy.handle = in.u32();
  copy.saved = SavedVersion::read(in);
  in.expect_done();
  return copy;
}

Bytes InfoRequest::encode() const {
  Bytes out;
  WireWriter(out).u32(round);
  return out;
}

InfoRequest InfoRequest::decode(const core::Message& m) {
  WireReader in(m.body);
  InfoRequest request;
  request.round = in.u32();
  in.expect_done();
  return request;
}

Bytes RecoveryInfo::encode() const {
  Bytes out;
  WireWriter writer(out);
  writer.u32(requester_incarnation);
  writer.u32(round);
  writer.u32(bound);
  writer.u32(newest);
  writer.u32(older);
  writer.u8(buddy ? 1 : 0);
  writer.u8(lost ? 1 : 0);
  writer.u8(released ? 1 : 0);
  return out;
}

RecoveryInfo RecoveryInfo::decode(const core::Message& m) {
  WireReader in(m.body);
  RecoveryInfo info;
  info.requester_incarnation = in.u32();
  info.round = in.u32();
  info.bound = in.u32();
  info.newest = in.u32();
  info.older = in.u32();
  info.buddy = in.u8() != 0;
  info.lost = in.u8() != 0;
  info.released = in.u8() != 0;
  in.expect_done();
  return info;
}

Bytes RestartFrom::encode() const {
  Bytes out;
  WireWriter writer(out);
  writer.u32(failed_incarnation);
  writer.u32(checkpoint);
  writer.u32(source);
  writer.u32(cause_node);
  writer.u8(alive ? 1 : 0);
  return out;
}

RestartFrom RestartFrom::decode(const core::Message& m) {
  WireReader in(m.body);
  RestartFrom restart;
  restart.failed_incarnation = in.u32();
  restart.checkpoint = in.u32();
  restart.source = in.u32();
  restart.cause_node = in.u32();
  restart.alive = in.u8() != 0;
  in.expect_done();
  return restart;
}

void RestoreData::add(HandleId handle, const Bytes& store_entry) {
  WireWriter list(entries);
  list.u32(handle);
  list.bytes(store_entry);
  ++count;
}

Bytes RestoreData::encode() const {
  Bytes out;
  WireWriter writer(out);
  writer.u32(checkpoint);
  writer.u64(count);
  writer.bytes(entries);
  return out;
}

RestoreData RestoreData::decode(const core::Message& m) {
  WireReader in(m.body);
  RestoreData data;
  data.checkpoint = in.u32();
  data.count = in.u64();
  data.entries = in.bytes();
  in.expect_done();
  return data;
}

std::uint32_t RestoreData::checkpoint_of(const core::Message& m) {
  return m.body.size() < sizeof(std::uint32_t) ? 0 : WireReader(m.body).u32();
}

Bytes ReplayRequest::encode() const {
  Bytes out;
  WireWriter writer(out);
  writer.u64(keys.size());
  for (std::uint64_t key : keys) writer.u64(key);
  return out;
}

ReplayRequest ReplayRequest::decode(const core::Message& m) {
  WireReader in(m.body);
  ReplayRequest request;
  request.keys.resize(in.count(sizeof(std::uint64_t)));
  for (std::uint64_t& key : request.keys) key = in.u64();
  in.expect_done();
  return request;
}

void Reprotect::add(std::uint32_t entry_checkpoint, HandleId handle, const SavedVersion& saved) {
  WireWriter list(entries);
  list.u32(entry_checkpoint);
  list.u32(handle);
  saved.write(list);
  ++count;
}

Bytes Reprotect::encode() const {
  Bytes out;
  WireWriter writer(out);
  writer.u32(checkpoint);
  writer.u64(count);
  writer.bytes(entries);
  return out;
}

Reprotect Reprotect::decode(const core::Message& m) {
  WireReader in(m.body);
  Reprotect reprotect;
  reprotect.checkpoint = in.u32();
  reprotect.count = in.u64();
  reprotect.entries = in.bytes();
  in.expect_done();
  return reprotect;
}

}  // namespace ftsim::protocols::buddy_messages
