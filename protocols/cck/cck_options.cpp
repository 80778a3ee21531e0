#include "protocols/cck/cck_options.hpp"

#include <algorithm>
#include <limits>

#include "graphs/cut_selection.hpp"
#include "protocols/coordinated_schedule.hpp"

namespace ftsim::protocols::cck {

CckConfig read_cck_options(const config::Config& config, config::JsonReader block) {
  CckConfig options;
  block.expect_object();
  block.at("type").as_string();
  const CoordinatedSchedule schedule = read_coordinated_schedule(config, block, "cck");
  options.at_cuts = schedule.at_cuts;
  options.period = schedule.period;
  if (config.platform.storage.hosts == 0) {
    block.fail("the cck protocol saves every checkpoint to the checkpoint servers: set /platform/storage/hosts to 1 or more");
  }
  if (auto flush = block.find("flush")) options.flush_all = flush->as_choice({"neighbours", "all"}) == "all";
  if (auto coordinator = block.find("coordinator")) {
    if (coordinator->is_string()) {
      coordinator->as_choice({"dedicated"});
    } else {
      const std::int64_t last = std::int64_t(config.platform.nodes) - 1;
      if (!coordinator->is_number()) coordinator->fail_expected("\"dedicated\" or a node from 0 to " + std::to_string(last));
      options.coordinator_node = static_cast<NodeId>(coordinator->as_int(0, last));
    }
  }
  if (auto reexecution = block.find("reexecution")) {
    reexecution->expect_object();
    if (auto keep = reexecution->find("keep_in_memory")) options.keep_in_memory = keep->as_bool();
    if (auto reorder = reexecution->find("reorder")) options.reorder = reorder->as_bool();
    reexecution->finish();
  }
  if (auto spread = block.find("spread")) {
    // §3.6's redistribution of the re-execution sub-graph over the survivors: a survivor would run
    // tasks of another node, which ftsim's runtime (owner computes) cannot do. Refused rather than
    // silently ignored (docs/protocols.md, "CCK: what is not built").
    if (spread->as_bool()) {
      spread->fail("\"spread\": true (the re-executions spread over the survivors, Besseron 2006 §3.6) is not built: "
                   "ftsim runs a task only on the node that owns it; leave it out or set it to false");
    }
  }
  block.finish();
  return options;
}

// ----------------------------------------------------------------------------- transfers

TransferLookup::TransferLookup(const graphs::TaskGraph& graph) : graph_(&graph) {
  const auto& plan = graph.transfers();
  sorted_.resize(plan.size());
  for (std::uint32_t i = 0; i < sorted_.size(); ++i) sorted_[i] = i;
  auto key = [&](std::uint32_t id) {
    const graphs::Transfer& x = plan[id];
    return std::tuple(x.handle, x.version, x.destination);
  };
  std::sort(sorted_.begin(), sorted_.end(), [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
}

std::uint32_t TransferLookup::find(HandleId h, Version v, NodeId destination) const {
  const auto& plan = graph_->transfers();
  const auto wanted = std::tuple(h, v, destination);
  auto it = std::lower_bound(sorted_.begin(), sorted_.end(), wanted, [&](std::uint32_t id, const auto& w) {
    const graphs::Transfer& x = plan[id];
    return std::tuple(x.handle, x.version, x.destination) < w;
  });
  if (it == sorted_.end()) return graphs::kNone;
  const graphs::Transfer& x = plan[*it];
  return std::tuple(x.handle, x.version, x.destination) == wanted ? *it : graphs::kNone;
}

// ----------------------------------------------------------------------------- reordering

std::vector<std::int32_t> send_first_priorities(const graphs::TaskGraph& graph) {
  // Level of a task: 0 if its outputs leave its node, else 1 + the smallest level of its
  // successors on the same node (submission order is a topological order: walk it backwards).
  constexpr std::uint32_t kLevels = 8;
  constexpr std::uint32_t kUnreached = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint8_t> sends(graph.task_count(), 0);
  for (const graphs::Transfer& x : graph.transfers()) {
    if (x.version > 0) sends[graph.writer(x.handle, x.version)] = 1;
  }
  std::vector<std::uint32_t> level(graph.task_count(), kUnreached);
  std::vector<std::int32_t> priority(graph.task_count());
  for (TaskId t = static_cast<TaskId>(graph.task_count()); t-- > 0;) {
    if (sends[t]) {
      level[t] = 0;
    } else {
      for (TaskId s : graph.successors(t)) {
        if (graph.node(s) == graph.node(t) && level[s] != kUnreached) level[t] = std::min(level[t], level[s] + 1);
      }
    }
    const std::uint32_t boost = level[t] == kUnreached ? 0 : kLevels - std::min(level[t], kLevels);
    // The application's priority breaks ties within a level (clamped to 20 bits).
    const std::int32_t base = std::clamp(graph.priority(t), -(1 << 19), (1 << 19) - 1);
    priority[t] = static_cast<std::int32_t>(boost << 20) + base;
  }
  return priority;
}

CckOptions::CckOptions(const config::Config& config, const graphs::TaskGraph& graph)
    : CckConfig(read_cck_options(config, config::JsonReader(config.protocol.block, config.file, "/protocol"))),
      transfers(graph) {
  content = content::make_settings(config, graph);
  if (at_cuts) {
    const graphs::CutSelection cuts(config.checkpoints.front(), graph, config.file);
    for (graphs::CutId cut : cuts.cuts()) cut_positions.push_back(graph.cut_position(cut));
  }
  if (reorder) priorities = send_first_priorities(graph);
  final_handles.resize(graph.node_count());
  for (HandleId h = 0; h < graph.handle_count(); ++h) {
    final_handles[graph.version_node(h, graph.final_version(h))].push_back(h);
  }
  envelope = config.platform.network.envelope;
  servers = std::max<std::uint32_t>(1, config.platform.storage.hosts);
}

}  // namespace ftsim::protocols::cck
