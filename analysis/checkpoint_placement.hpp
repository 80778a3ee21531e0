#pragma once
// Where checkpoints would be and which messages would be logged, for a trace that has no
// checkpoints of its own (an SMPI trace) or to ask "what if" of one that has (docs/analysis.md):
//
//   periodic:EVENTS      each process checkpoints after every EVENTS of its sends and receives
//   random:SEED:RATE     after each of its sends and receives, a process checkpoints with
//                        probability RATE (seeded per process: the same trace and seed give the
//                        same checkpoints)
//   clusters:FILE        processes of a cluster checkpoint together, at one moment of a causal
//                        order of the run, each time the cluster's processes have made `period`
//                        events each on average (Guermouche et al. 2011's clustering). FILE:
//                          period 200       # events per process between two checkpoints
//                          0-3              # a cluster per line: ranks and ranges
//                          4 5 6 7
//
// Logging: none, all, or epochs — Guermouche's rule: a message is logged when it goes from a
// past epoch to a future one (the sender's checkpoint count at the send is smaller than the
// receiver's at the receive); with clusters, cluster i (in file order) starts at epoch 2i, so
// messages from an earlier-listed cluster to a later one are logged.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/trace.hpp"

namespace ftsim::analysis {

struct CheckpointPolicy {
  enum class Kind { periodic, random, clusters };
  Kind kind = Kind::periodic;
  std::uint64_t events = 0;  // periodic; clusters: the period
  std::uint64_t seed = 0;    // random
  double rate = 0;           // random
  std::string clusters_file;
  std::vector<std::vector<ProcessId>> clusters;  // clusters, as read from the file
  std::vector<std::size_t> cluster_lines;        // the line of each cluster, for messages
};

// Throws std::invalid_argument for a bad policy text and TraceError (file, line) for a bad
// cluster file.
CheckpointPolicy parse_checkpoint_policy(const std::string& text);

enum class Logging { keep, none, all, epochs };
// "none", "all", "epochs" (and "keep": the trace's own flags); throws std::invalid_argument.
Logging parse_logging(const std::string& text);

// The trace with the policy's checkpoints instead of its own (none: keep its own) and the
// logging's flags. Throws TraceError if the clusters do not cover the trace's processes exactly.
Trace place_checkpoints(const Trace& trace, const std::optional<CheckpointPolicy>& policy, Logging logging);

}  // namespace ftsim::analysis
