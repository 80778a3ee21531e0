#pragma once
// CCK's options: its /protocol block, read and checked by the protocol itself (errors name the
// file and the JSON pointer), and what they imply on the task graph, computed once per run and
// shared read-only by every process.
//
//   {"type": "cck", "period": DURATION | "at": "cuts",
//    "flush": "neighbours" | "all", "coordinator": "dedicated" | NODE,
//    "reexecution": {"keep_in_memory": BOOL, "reorder": BOOL}, "spread": false}
// ("spread": true, §3.6's redistribution of the re-executions over the survivors, is refused: not built.)
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "graphs/task_graph.hpp"
#include "protocols/checkpoint_content.hpp"
#include "sim/config/config.hpp"
#include "sim/config/json_reader.hpp"

namespace ftsim::protocols::cck {

using graphs::HandleId;
using graphs::NodeId;
using graphs::TaskId;
using graphs::Version;

struct CckConfig {
  bool at_cuts = false;   // checkpoints at the graph cuts of /checkpoints instead of a period
  double period = 0;      // seconds between the end of a checkpoint (or a recovery) and the next request
  bool flush_all = false; // "flush": "all": the standard protocol's flush with every node (O(N²) messages)
  std::optional<NodeId> coordinator_node;  // the coordinator runs on this node (default: its own host)
  bool keep_in_memory = false;  // §3.7.1: a version still in memory is not produced again
  bool reorder = false;         // §3.7.2: local reordering, tasks leading to a send first
};
CckConfig read_cck_options(const config::Config& config, config::JsonReader block);

// (handle, version, destination) -> the transfer of the transfer plan that moves it there.
class TransferLookup {
public:
  explicit TransferLookup(const graphs::TaskGraph& graph);
  // The transfer id, or graphs::kNone if the plan has no such transfer.
  std::uint32_t find(HandleId h, Version v, NodeId destination) const;

private:
  const graphs::TaskGraph* graph_;
  std::vector<std::uint32_t> sorted_;  // transfer ids by (handle, version, destination)
};

struct CckOptions : CckConfig {
  CckOptions(const config::Config& config, const graphs::TaskGraph& graph);

  std::vector<TaskId> cut_positions;    // at_cuts: the first task after checkpoint c's cut at [c - 1]
  TransferLookup transfers;
  std::vector<std::int32_t> priorities; // reorder: the priority of every task (send-first levels)
  std::vector<std::vector<HandleId>> final_handles;  // per node: handles whose final version it keeps
  std::uint64_t envelope = 32;          // bytes added to every message (/platform/network/envelope)
  std::uint32_t servers = 1;            // /platform/storage/hosts
  // /checkpoint_data: checkpoints are images of protocols/checkpoint_content.hpp (null: as they are).
  std::shared_ptr<const content::Settings> content;
};

// §3.7.2: a task's priority under local reordering. Levels count the tasks of its own node that
// separate it from the nearest task whose output leaves the node (0: it sends itself); nearer
// levels go first, and the application's priority orders tasks of one level.
std::vector<std::int32_t> send_first_priorities(const graphs::TaskGraph& graph);

}  // namespace ftsim::protocols::cck
