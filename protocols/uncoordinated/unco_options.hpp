#pragma once
// The options of the uncoordinated protocol (Guermouche et al. 2011), read from its /protocol
// block and derived once per run, shared read-only by every process:
//   {"type": "uncoordinated",
//    "logging": "send-deterministic" | "none" | "all",   (default send-deterministic)
//    "schedule": "random" | "periodic" | "clusters",      (default periodic)
//    "period": DURATION,                                  (required: time between a node's checkpoints)
//    "offsets": "spread" | [DURATION per node],           (periodic, clusters: when each node's first
//                                                           checkpoint comes; default spread over a period,
//                                                           per node, or per cluster)
//    "clusters": [[node, ...], ...] | COUNT}              (clusters only: node lists, or a number of
//                                                           clusters METIS computes from the graph's
//                                                           communication matrix)
// Stable storage (/platform/storage/hosts >= 1) holds the checkpoints (Fig. 3, line 42).
#include <cstdint>
#include <memory>
#include <vector>

#include "protocols/checkpoint_content.hpp"
#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"
#include "sim/config/json_reader.hpp"

namespace ftsim::protocols::uncoordinated {

enum class Logging : std::uint8_t {
  send_deterministic,  // the paper: log the messages sent from a smaller epoch to a larger one (send rule)
  none,                // classic uncoordinated checkpointing: orphans roll their receivers back (piecewise rule)
  all,                 // pessimistic sender-based logging of every message (send rule, all logged)
};
enum class Schedule : std::uint8_t { random, periodic, clusters };

const char* to_string(Logging logging);
const char* to_string(Schedule schedule);

struct Options {
  Logging logging = Logging::send_deterministic;
  Schedule schedule = Schedule::periodic;
  double period = 0;
  std::uint64_t seed = 1;               // the run's /seed (random schedules)
  std::vector<double> offsets;          // per node: its first checkpoint (periodic, clusters)
  std::vector<std::uint32_t> cluster;   // per node: its cluster (clusters), else 0
  std::vector<std::uint32_t> first_epoch;  // per node: 1, or 1 + 2 x (its cluster) with clusters (§V-E.3)
  std::uint32_t cluster_count = 1;
  // Per node: for each version it receives, the node that sends it (the transfer plan), by
  // version key (handle << 32 | version). A restarted node asks these nodes for what it lacks.
  std::vector<std::vector<std::pair<std::uint64_t, graphs::NodeId>>> sources;
  // /checkpoint_data: checkpoints are images of protocols/checkpoint_content.hpp (null: as they are).
  std::shared_ptr<const content::Settings> content;

  bool send_rule() const { return logging != Logging::none; }
  // Header words piggybacked on each data message: date, epoch and phase (send-deterministic);
  // date and epoch otherwise (the classic protocols have no phases).
  std::uint32_t header_words() const { return logging == Logging::send_deterministic ? 3 : 2; }
};

// Checks the block (throws config::ConfigError with its JSON pointer).
void check_options(const config::Config& config, config::JsonReader block);
std::shared_ptr<const Options> make_options(const config::Config& config, const graphs::TaskGraph& graph);

// The node x node matrix of application bytes the graph's transfer plan sends (row: source).
std::vector<std::vector<std::uint64_t>> communication_matrix(const graphs::TaskGraph& graph);
// `parts` clusters of the nodes that maximise the bytes sent inside clusters (METIS k-way
// partitioning of the symmetrised matrix, minimising the edge cut, balanced node counts).
std::vector<std::uint32_t> metis_clusters(const std::vector<std::vector<std::uint64_t>>& matrix, std::uint32_t parts);

}  // namespace ftsim::protocols::uncoordinated
