#include "sim/mpi/mpi_command.hpp"

#include <mpi.h>

#include <chrono>

#include "protocols/registry.hpp"
#include "sim/config/config_error.hpp"
#include "sim/mpi/mpi_run.hpp"

namespace ftsim::mpi {

MpiSession::MpiSession(int* argc, char*** argv) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

namespace {

struct Timed {
  MpiRunResult result;
  double wall = 0;
};

Timed timed_run(const MpiRunSpec& spec) {
  const auto start = std::chrono::steady_clock::now();
  Timed t;
  t.result = run_on_ranks(spec, MPI_COMM_WORLD);
  t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return t;
}

nlohmann::json phases_json(const PhaseTimes& p) {
  return {{"start_seconds", p.start}, {"run_seconds", p.run}, {"gather_seconds", p.gather}};
}

}  // namespace

MpiOutcome run_mpi(const config::Config& config, const graphs::TaskGraph& graph, const graphs::CostModel& cost,
                   const MpiOptions& options) {
  int size = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (size != ranks_needed(graph)) {
    throw config::ConfigError(config.file, "/platform/nodes",
                              "the MPI backend runs one rank per node plus one for the coordinator and driver: " +
                                  std::to_string(graph.node_count()) + " nodes need mpirun -np " +
                                  std::to_string(ranks_needed(graph)) + ", this job has " + std::to_string(size) +
                                  " ranks");
  }
  if (config.platform.shrink_on_no_spare) {
    // An MPI rank cannot be restarted inside another rank's process, and the emulated fail-stop
    // restarts a rank as its own replacement: a shrink needs ULFM's shrink (docs/shrink.md).
    throw config::ConfigError(config.file, "/platform/on_no_spare",
                              "\"shrink\" is not supported by the MPI backend (a failed rank restarts as its own "
                              "replacement there; use the simgrid backend)");
  }
  if (config.platform.ranks_per_machine > 1) {
    // Each rank is an MPI process of its own; the emulated fail-stop kills one process, not a machine.
    throw config::ConfigError(config.file, "/platform/ranks_per_machine",
                              "several ranks per machine are not supported by the MPI backend (each rank is its own "
                              "MPI process and fails alone; use the simgrid backend)");
  }

  std::unique_ptr<graphs::kernels::KernelSet> kernel_set;
  try {
    kernel_set = graphs::kernels::KernelSet::make(config, graph);
  } catch (const graphs::kernels::KernelError& e) {
    throw config::ConfigError(config.file, "/application", e.what());
  }
  MpiOutcome outcome;
  outcome.reporter = rank == driver_rank(graph);

  std::optional<Timed> reference;
  if (options.verify) {
    config::Config failure_free = config;
    failure_free.protocol = config::ProtocolConfig{};
    failure_free.failures = config::FailureConfig{};
    MpiRunSpec spec{failure_free, graph, cost, *kernel_set, protocols::make_protocol_factory(failure_free, graph), false,
                    options.progress && outcome.reporter, {}};
    reference = timed_run(spec);
  }
  MpiRunSpec spec{config, graph, cost, *kernel_set, protocols::make_protocol_factory(config, graph), true,
                  options.progress && outcome.reporter, protocols::protocol_metric_definitions(config)};
  Timed run = timed_run(spec);
  if (!outcome.reporter) return outcome;

  outcome.metrics = run.result.metrics;
  outcome.wall_seconds = run.wall;
  nlohmann::json& d = outcome.details;
  d["ranks"] = size;
  d["driver_rank"] = driver_rank(graph);
  d["worker_threads_per_rank"] = config.platform.cores_per_node;
  d["phases"] = phases_json(run.result.phases);
  d["failure_times"] = "wall-clock seconds from the common start of the ranks";
  if (reference) {
    outcome.reference = reference->result.metrics;
    outcome.reference_wall_seconds = reference->wall;
    d["reference_phases"] = phases_json(reference->result.phases);
    // Bit-exact: every handle's final buffer as in the failure-free run.
    nlohmann::json mismatches = nlohmann::json::array();
    std::size_t mismatch_count = 0;
    const auto& expected = reference->result.checksums;
    const auto& got = run.result.checksums;
    for (graphs::HandleId h = 0; h < graph.handle_count(); ++h) {
      const bool missing = h >= got.size() || run.result.finals[h].empty();
      if (!missing && got[h] == expected[h]) continue;
      if (mismatch_count++ < 20) {
        mismatches.push_back(graph.handle_name(h) + (missing ? ": no final buffer" : ": differs from the failure-free run"));
      }
    }
    const bool bit_exact = mismatch_count == 0 && reference->result.metrics.complete;
    // Numerically right: the final data against an independent sequential computation.
    nlohmann::json checks = nlohmann::json::array();
    bool numeric_ok = true;
    if (run.result.metrics.complete && mismatch_count == 0) {
      for (const auto& c : graphs::kernels::check_numerics(config, graph, run.result.finals)) {
        checks.push_back({{"name", c.name}, {"value", c.value}, {"tolerance", c.tolerance}, {"ok", c.ok}, {"detail", c.detail}});
        numeric_ok = numeric_ok && c.ok;
      }
    } else {
      numeric_ok = false;
    }
    d["verification"] = {{"reference", "a failure-free MPI run of the same config (protocol none), same job"},
                         {"bit_exact", bit_exact},
                         {"handles", graph.handle_count()},
                         {"mismatches", mismatch_count},
                         {"first_mismatches", mismatches},
                         {"numeric_ok", numeric_ok},
                         {"numeric_checks", checks}};
    outcome.verified = bit_exact && numeric_ok;
  } else {
    d["verification"] = nullptr;
  }
  return outcome;
}

int agree_exit_code(int code, const graphs::TaskGraph& graph) {
  MPI_Bcast(&code, 1, MPI_INT, driver_rank(graph), MPI_COMM_WORLD);
  return code;
}

}  // namespace ftsim::mpi
