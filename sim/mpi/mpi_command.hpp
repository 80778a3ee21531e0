#pragma once
// `ftsim run --backend mpi`: the same config, executed for real on MPI ranks, verified against
// a failure-free MPI run (bit-exact, per handle) and against sequential computations (numeric).
#include <optional>

#include <nlohmann/json.hpp>

#include "graphs/cost_model.hpp"
#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"
#include "sim/node/run_metrics.hpp"

namespace ftsim::mpi {

// MPI for the lifetime of the object (workers never call MPI: MPI_THREAD_FUNNELED).
class MpiSession {
public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

private:
  int rank_ = 0, size_ = 1;
};

struct MpiOptions {
  bool verify = true;    // run a failure-free reference first and compare every final buffer
  bool progress = true;  // progress lines on stderr
};

struct MpiOutcome {
  bool reporter = false;  // this rank (the driver) reports; the others stay silent
  node::RunMetrics metrics;
  std::optional<node::RunMetrics> reference;  // the failure-free MPI run (verify)
  double wall_seconds = 0, reference_wall_seconds = 0;
  bool verified = true;   // bit-exact and numerically right (or not asked)
  nlohmann::json details;  // the "mpi" section of results.json
};

// Every rank of MPI_COMM_WORLD calls it. Throws config::ConfigError (the same on every rank) for
// a config that cannot run for real, or when the job has the wrong number of ranks.
MpiOutcome run_mpi(const config::Config& config, const graphs::TaskGraph& graph, const graphs::CostModel& cost,
                   const MpiOptions& options);

// Every rank leaves with the driver's exit code.
int agree_exit_code(int code, const graphs::TaskGraph& graph);

}  // namespace ftsim::mpi
