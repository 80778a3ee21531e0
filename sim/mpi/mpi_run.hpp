#pragma once
// Running a config for real on MPI ranks: one rank per node (rank n runs node n's host) and one
// more, the last, for the coordinator's host and the world driver (failure injection, failure
// notices, replacements, stable storage, termination detection, results). Every rank calls
// run_on_ranks with the same spec; the driver rank gets the results.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "graphs/cost_model.hpp"
#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"
#include "sim/node/protocol.hpp"
#include "sim/node/run_metrics.hpp"
#include "graphs/apps/kernels/kernels.hpp"

namespace ftsim::mpi {

struct MpiRunSpec {
  const config::Config& config;
  const graphs::TaskGraph& graph;
  const graphs::CostModel& cost;
  const graphs::kernels::KernelSet& kernels;
  node::ProtocolFactory factory;
  bool inject_failures = true;  // false for the failure-free reference run
  bool progress = false;        // progress lines on stderr (driver rank)
  std::vector<node::MetricDefinition> protocol_metrics;  // the protocol's named metrics
};

// Wall times of the phases of one run, measured on the driver rank.
struct PhaseTimes {
  double start = 0;    // hosts created, initial data generated, until the common start
  double run = 0;      // from the common start to the detected end
  double gather = 0;   // results and final buffers gathered
};

struct MpiRunResult {  // filled on the driver rank only
  node::RunMetrics metrics;
  std::vector<graphs::kernels::Buffer> finals;    // per handle: its final version's content (empty: missing)
  std::vector<std::uint64_t> checksums;           // per handle: checksum of finals[h] (0 if missing)
  PhaseTimes phases;
};

// The driver's rank (the last) and the number of ranks a graph needs.
inline int driver_rank(const graphs::TaskGraph& graph) { return static_cast<int>(graph.node_count()); }
inline int ranks_needed(const graphs::TaskGraph& graph) { return static_cast<int>(graph.node_count()) + 1; }

// One run on the ranks of `comm` (a communicator of its own: nothing of another run can be
// received by this one).
MpiRunResult run_on_ranks(const MpiRunSpec& spec, MPI_Comm comm);

}  // namespace ftsim::mpi
