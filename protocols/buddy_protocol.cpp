#include "protocols/buddy_protocol.hpp"

#include <algorithm>
#include <string>

#include "graphs/cut_selection.hpp"
#include "sim/config/config_error.hpp"

namespace ftsim::protocols {

using core::Bytes;
using core::NodeId;
using core::WireReader;
using core::WireWriter;
using graphs::HandleId;
using graphs::Version;

namespace {

enum ControlType : std::uint32_t { kAck = 1, kValidate = 2 };

std::uint64_t version_key(HandleId h, Version v) { return (std::uint64_t(h) << 32) | v; }
std::uint64_t origin_checkpoint(NodeId origin, std::uint32_t c) { return (std::uint64_t(origin) << 32) | c; }
std::uint64_t origin_handle(NodeId origin, HandleId h) { return (std::uint64_t(origin) << 32) | h; }
// A stored save in the checkpoint store: origin (16 bits), checkpoint (16 bits), handle (32 bits).
std::uint64_t entry_key(NodeId origin, std::uint32_t c, HandleId h) {
  return (std::uint64_t(origin) << 48) | (std::uint64_t(c) << 32) | h;
}
constexpr std::uint32_t kLimit = 1u << 16;

Bytes checkpoint_body(std::uint32_t checkpoint) {
  Bytes body;
  WireWriter(body).u32(checkpoint);
  return body;
}

const config::CheckpointConfig& the_placement(const config::Config& config) { return config.checkpoints.front(); }

}  // namespace

void check_buddy_options(const config::Config& config, config::JsonReader block) {
  block.expect_object();
  block.at("type").as_string();
  if (config.checkpoints.empty()) {
    block.fail("the buddy protocol checkpoints at graph cuts: add /checkpoints (which cuts, e.g. {\"count\": 4, \"buddy\": \"next\"})");
  }
  if (config.checkpoints.size() > 1) {
    config::JsonReader(config.document, config.file).at("checkpoints").fail(
        "the buddy protocol takes one checkpoint placement, got " + std::to_string(config.checkpoints.size()));
  }
  if (config.platform.nodes < 2) block.fail("the buddy protocol needs at least 2 nodes (a node cannot be its own buddy)");
  if (config.platform.nodes >= kLimit) block.fail("the buddy protocol supports up to 65535 nodes");
  block.finish();
}

BuddyOptions::BuddyOptions(const config::Config& config, const graphs::TaskGraph& graph)
    : buddies(the_placement(config).buddy, config.distribution, graph.node_count()),
      saves(graph, graphs::CutSelection(the_placement(config), graph, config.file), buddies) {
  if (saves.checkpoints() >= kLimit) {
    throw config::ConfigError(config.file, "/checkpoints", "the buddy protocol supports up to 65535 checkpoints");
  }
}

BuddyProtocol::BuddyProtocol(std::shared_ptr<const BuddyOptions> options, bool coordinator)
    : options_(std::move(options)), coordinator_(coordinator) {}

// ----------------------------------------------------------------------------- the plan

void BuddyProtocol::on_start(core::ProtocolContext& ctx) {
  if (coordinator_) return;
  const NodeId me = ctx.node();
  const auto& saves = options_->saves;
  local_.assign(saves.checkpoints(), Local{});
  std::vector<NodeId> counted;
  for (std::uint32_t c = 1; c <= saves.checkpoints(); ++c) {
    counted.clear();
    for (const graphs::CheckpointSave& s : saves.of(c)) {
      if (s.from == me) {
        // Free when the buddy receives the version for its computation, whenever (Lion 2020 §IV-A:
        // "only one transfer is required"; the runtime sends it as soon as it is produced).
        own_saves_[version_key(s.handle, s.version)].push_back({c, s.buddy, s.transferred});
        if (std::find(counted.begin(), counted.end(), s.buddy) == counted.end()) {
          counted.push_back(s.buddy);
          ++local_[c - 1].acks_expected;
        }
      }
      if (s.buddy == me) {
        held_saves_[version_key(s.handle, s.version)].push_back({s.from, c, s.transferred});
        ++expected_[origin_checkpoint(s.from, c)];
      }
    }
  }
}

// ----------------------------------------------------------------------------- origin

void BuddyProtocol::on_task_completed(core::ProtocolContext& ctx, core::TaskId task, bool first_execution) {
  if (coordinator_) return;
  if (first_execution) {
    for (const graphs::Access& a : ctx.graph().accesses(task)) {
      if (graphs::writes(a.mode)) save_version(ctx, a.handle, a.version);
    }
  }
  try_validate(ctx);
}

void BuddyProtocol::save_version(core::ProtocolContext& ctx, HandleId h, Version v) {
  auto it = own_saves_.find(version_key(h, v));
  if (it == own_saves_.end()) return;
  const std::uint64_t bytes = ctx.graph().bytes(h);
  for (const OwnSave& save : it->second) {
    Local& local = local_[save.checkpoint - 1];
    if (local.first_save < 0) local.first_save = ctx.now();
    local.last_save = ctx.now();
    if (save.cached) {
      // The buddy receives this version for its own computation: the save costs nothing.
      ++ctx.counters().cp_data_cached_count;
      ctx.counters().cp_data_cached_size += bytes;
      continue;
    }
    // Sent at once, through the runtime: a later writer of h waits until it has left.
    ctx.runtime().subscribe(h, v, save.buddy, core::Traffic::checkpoint);
    ++ctx.counters().cp_data_normal_count;
    ctx.counters().cp_data_normal_total_size += bytes;
    local.bytes += bytes;
  }
}

void BuddyProtocol::try_validate(core::ProtocolContext& ctx) {
  const auto& saves = options_->saves;
  while (next_to_validate_ <= saves.checkpoints()) {
    const std::uint32_t c = next_to_validate_;
    Local& local = local_[c - 1];
    if (local.acks < local.acks_expected || !ctx.runtime().done_before(saves.position(c))) return;
    local.valid = true;
    ++next_to_validate_;
    for (NodeId buddy : options_->buddies.buddies(ctx.node())) {
      ctx.send_control(buddy, kValidate, checkpoint_body(c));
    }
    const double start = local.first_save >= 0 ? local.first_save : ctx.now();
    if (ctx.recording()) {
      ctx.record_span("checkpoint " + std::to_string(c), "checkpoint", start);
      ctx.note("checkpoint " + std::to_string(c) + " valid: first save at " + std::to_string(local.first_save) +
               " s, last save at " + std::to_string(local.last_save) + " s", "checkpoint");
    }
    core::CheckpointRecord record;
    record.id = c;
    record.started = start;
    record.saved = local.last_save >= 0 ? local.last_save : ctx.now();
    record.committed = ctx.now();
    record.bytes = local.bytes;
    record.partial = true;  // this node's share: the world merges the nodes' records
    ctx.record_checkpoint(record);
  }
}

// ----------------------------------------------------------------------------- buddy

core::ReceiveVerdict BuddyProtocol::on_receive(core::ProtocolContext& ctx, const core::Message& m) {
  if (coordinator_ || m.traffic != core::Traffic::checkpoint) return core::ReceiveVerdict::accept;
  auto it = held_saves_.find(version_key(m.handle, m.version));
  if (it != held_saves_.end()) {
    for (const HeldSave& save : it->second) {
      if (save.origin == m.source && !save.cached) store(ctx, m, save);
    }
  }
  return core::ReceiveVerdict::consumed;  // checkpoint data: the protocol's, not the runtime's
}

void BuddyProtocol::on_stored(core::ProtocolContext& ctx, const core::Message& m) {
  if (coordinator_ || m.traffic != core::Traffic::application) return;
  auto it = held_saves_.find(version_key(m.handle, m.version));
  if (it == held_saves_.end()) return;
  for (const HeldSave& save : it->second) {
    // A cached save: the application transfer brought the version; the buddy keeps a copy.
    if (save.origin == m.source && save.cached) store(ctx, m, save);
  }
}

void BuddyProtocol::store(core::ProtocolContext& ctx, const core::Message& m, const HeldSave& save) {
  const std::uint64_t key = entry_key(save.origin, save.checkpoint, m.handle);
  if (ctx.checkpoint_store().find(key)) return;  // already held (a duplicate)
  Bytes entry;
  WireWriter out(entry);
  out.u32(m.version);
  out.u64(m.digest);
  out.content(m.content.get());
  ctx.checkpoint_store().put(key, std::move(entry), ctx.graph().bytes(m.handle));
  stored_[origin_handle(save.origin, m.handle)].push_back(save.checkpoint);
  auto expected = expected_.find(origin_checkpoint(save.origin, save.checkpoint));
  if (expected != expected_.end() && expected->second > 0 && --expected->second == 0) {
    // Every entry of (origin, checkpoint) is here.
    ctx.send_control(save.origin, kAck, checkpoint_body(save.checkpoint));
  }
}

void BuddyProtocol::collect_garbage(core::ProtocolContext& ctx, NodeId origin, std::uint32_t valid) {
  // Checkpoint `valid` of origin is complete: of each datum, only the newest version saved at or
  // before it is needed (differential checkpoints refer to older entries for unmodified data).
  for (auto& [key, checkpoints] : stored_) {
    if (static_cast<NodeId>(key >> 32) != origin || checkpoints.size() < 2) continue;
    const HandleId h = static_cast<HandleId>(key & 0xffffffffu);
    std::uint32_t newest = 0;
    for (std::uint32_t c : checkpoints) {
      if (c <= valid) newest = std::max(newest, c);
    }
    std::erase_if(checkpoints, [&](std::uint32_t c) {
      if (c >= newest) return false;
      ctx.checkpoint_store().erase(entry_key(origin, c, h));
      return true;
    });
  }
}

void BuddyProtocol::on_control(core::ProtocolContext& ctx, const core::Message& m) {
  WireReader in(m.body);
  const std::uint32_t c = in.u32();
  in.expect_done();
  if (c == 0 || c > options_->saves.checkpoints()) throw core::WireError("buddy: checkpoint id out of range");
  switch (m.control_type) {
    case kAck:
      ++local_[c - 1].acks;
      try_validate(ctx);
      return;
    case kValidate: collect_garbage(ctx, m.source, c); return;
    default: throw core::WireError("buddy: unknown control message type " + std::to_string(m.control_type));
  }
}

// ----------------------------------------------------------------------------- failures

void BuddyProtocol::on_failure_notice(core::ProtocolContext& ctx, const core::FailureNotice& notice) {
  ctx.fail_run("node " + std::to_string(notice.node) +
               " failed: the buddy protocol's local restart (message logging and replay, Lion 2022 §3) is not built "
               "yet, so a failure ends the run");
}

void BuddyProtocol::on_restart(core::ProtocolContext& ctx, const core::RestartInfo&) {
  ctx.fail_run("the buddy protocol's local restart is not built yet: a replacement cannot recover");
}

bool BuddyProtocol::finished(core::ProtocolContext&) {
  return coordinator_ || next_to_validate_ > options_->saves.checkpoints();
}

}  // namespace ftsim::protocols
