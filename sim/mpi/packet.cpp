#include "sim/mpi/packet.hpp"

namespace ftsim::mpi {

using core::WireReader;
using core::WireWriter;

void encode_message(WireWriter& out, const core::Message& m) {
  out.u32(m.source);
  out.u32(m.destination);
  out.u64(m.bytes);
  out.u8(static_cast<std::uint8_t>(m.traffic));
  out.u8(m.is_data ? 1 : 0);
  out.u32(m.handle);
  out.u32(m.version);
  out.u64(m.digest);
  out.u32(m.section);
  out.content(m.content.get());
  out.u32(m.control_type);
  out.bytes(m.body);
  out.u64(m.parts.size());
  for (const core::SharedBytes& part : m.parts) out.bytes(*part);
  out.u32(m.header_words);
  for (std::uint32_t word = 0; word < m.header_words; ++word) out.u32(m.header_word(word));
  out.u32(m.source_incarnation);
  out.u32(m.destination_incarnation);
  out.u32(m.epoch);
  out.f64(m.sent_at);
  out.u64(m.sequence);
}

core::Message decode_message(WireReader& in) {
  core::Message m;
  m.source = in.u32();
  m.destination = in.u32();
  m.bytes = in.u64();
  const std::uint8_t traffic = in.u8();
  if (traffic >= core::kTrafficKinds) throw core::WireError("packet: unknown traffic kind");
  m.traffic = static_cast<core::Traffic>(traffic);
  m.is_data = in.u8() != 0;
  m.handle = in.u32();
  m.version = in.u32();
  m.digest = in.u64();
  m.section = in.u32();
  m.content = in.content();
  m.control_type = in.u32();
  m.body = in.bytes();
  m.parts.resize(in.count(16));
  for (core::SharedBytes& part : m.parts) part = std::make_shared<const core::Bytes>(in.bytes());
  const std::uint32_t words = in.u32();
  for (std::uint32_t word = 0; word < words; ++word) m.set_header(word, in.u32());
  m.source_incarnation = in.u32();
  m.destination_incarnation = in.u32();
  m.epoch = in.u32();
  m.sent_at = in.f64();
  m.sequence = in.u64();
  return m;
}

void encode_metrics(WireWriter& out, const core::NodeMetrics& m) {
  out.u64(m.executions);
  out.u64(m.reexecutions);
  out.f64(m.busy_seconds);
  out.f64(m.lost_seconds);
  for (std::uint64_t v : m.messages_sent) out.u64(v);
  for (std::uint64_t v : m.bytes_sent) out.u64(v);
  out.u64(m.duplicates_received);
  out.u64(m.orphans_dropped);
  out.u64(m.sends_suppressed);
  out.u64(m.inputs_missing_at_start);
  out.u64(m.peak_memory_bytes);
  out.u32(m.restarts);
  out.u64(m.checkpoint_store_total);
  out.u64(m.checkpoint_store_peak);
  out.u64(m.log_store_total);
  out.u64(m.log_store_peak);
  out.u64(m.log_copies_peak);
  out.u64(m.service_messages);
  out.u64(m.service_bytes);
  out.u64(m.counters.cp_data_normal_count);
  out.u64(m.counters.cp_data_normal_total_size);
  out.u64(m.counters.cp_data_cached_count);
  out.u64(m.counters.cp_data_cached_size);
  for (std::uint64_t v : m.counters.named) out.u64(v);  // the protocol's named metrics
  const core::ContentCounters& c = m.counters.content;  // /checkpoint_data
  for (std::uint64_t v : {c.full_images, c.incremental_images, c.full_logical_bytes, c.full_stored_bytes,
                          c.incremental_logical_bytes, c.incremental_stored_bytes, c.uncompressed_bytes, c.blocks,
                          c.zero_blocks, c.unchanged_blocks, c.stored_blocks, c.restores, c.restore_images,
                          c.restore_bytes}) {
    out.u64(v);
  }
  out.f64(c.hash_seconds);
  out.f64(c.compress_seconds);
  out.f64(c.decompress_seconds);
  out.u64(c.images.size());
  for (const core::ContentImageRecord& image : c.images) {
    out.u32(image.checkpoint);
    out.u8(image.full ? 1 : 0);
    out.u64(image.logical_bytes);
    out.u64(image.stored_bytes);
    out.f64(image.seconds);
  }
}

core::NodeMetrics decode_metrics(WireReader& in) {
  core::NodeMetrics m;
  m.executions = in.u64();
  m.reexecutions = in.u64();
  m.busy_seconds = in.f64();
  m.lost_seconds = in.f64();
  for (std::uint64_t& v : m.messages_sent) v = in.u64();
  for (std::uint64_t& v : m.bytes_sent) v = in.u64();
  m.duplicates_received = in.u64();
  m.orphans_dropped = in.u64();
  m.sends_suppressed = in.u64();
  m.inputs_missing_at_start = in.u64();
  m.peak_memory_bytes = in.u64();
  m.restarts = in.u32();
  m.checkpoint_store_total = in.u64();
  m.checkpoint_store_peak = in.u64();
  m.log_store_total = in.u64();
  m.log_store_peak = in.u64();
  m.log_copies_peak = in.u64();
  m.service_messages = in.u64();
  m.service_bytes = in.u64();
  m.counters.cp_data_normal_count = in.u64();
  m.counters.cp_data_normal_total_size = in.u64();
  m.counters.cp_data_cached_count = in.u64();
  m.counters.cp_data_cached_size = in.u64();
  for (std::uint64_t& v : m.counters.named) v = in.u64();
  core::ContentCounters& c = m.counters.content;
  for (std::uint64_t* v : {&c.full_images, &c.incremental_images, &c.full_logical_bytes, &c.full_stored_bytes,
                           &c.incremental_logical_bytes, &c.incremental_stored_bytes, &c.uncompressed_bytes, &c.blocks,
                           &c.zero_blocks, &c.unchanged_blocks, &c.stored_blocks, &c.restores, &c.restore_images,
                           &c.restore_bytes}) {
    *v = in.u64();
  }
  c.hash_seconds = in.f64();
  c.compress_seconds = in.f64();
  c.decompress_seconds = in.f64();
  c.images.resize(in.count(29));
  for (core::ContentImageRecord& image : c.images) {
    image.checkpoint = in.u32();
    image.full = in.u8() != 0;
    image.logical_bytes = in.u64();
    image.stored_bytes = in.u64();
    image.seconds = in.f64();
  }
  return m;
}

void encode_effect(WireWriter& out, const core::FailureEffect& e) {
  encode_string(out, e.restart_point);
  out.u64(e.tasks_reexecuted);
  out.f64(e.work_lost_seconds);
  out.u32(e.processes_rolled_back);
  out.u64(e.messages_replayed);
  out.u64(e.bytes_replayed);
}

core::FailureEffect decode_effect(WireReader& in) {
  core::FailureEffect e;
  e.restart_point = decode_string(in);
  e.tasks_reexecuted = in.u64();
  e.work_lost_seconds = in.f64();
  e.processes_rolled_back = in.u32();
  e.messages_replayed = in.u64();
  e.bytes_replayed = in.u64();
  return e;
}

void encode_string(WireWriter& out, const std::string& text) {
  core::Bytes bytes(text.begin(), text.end());
  out.bytes(bytes);
}

std::string decode_string(WireReader& in) {
  const core::Bytes bytes = in.bytes();
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace ftsim::mpi
