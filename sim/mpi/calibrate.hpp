#pragma once
// `ftsim calibrate --backend mpi`: what a user with a real cluster measures first (issue 41, item 5).
// On the job shape of a run (one rank per node plus the driver's):
//  1. every node rank times each kernel of the config's graph on one core, all at once: the
//     kernels' relative speeds;
//  2. the config runs three times failure-free (protocol none) on the ranks: the median core time
//     its kernels took there, with the run's threads and ranks sharing the cores, sets the rates' level (the
//     micro-benchmark's rates times predicted / measured core time), as StarPU's performance
//     models are measured in the runs themselves;
//  3. ranks 0 and 1 time a ping-pong from 8 B to 8 MiB: latency and bandwidth.
// The result is the config with its platform measured: every kernel's GFlop/s per core, and a
// network whose links give the measured latency and bandwidth under SimGrid's CM02 model (no
// factors). docs/mpi.md#calibration.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"

namespace ftsim::mpi {

struct KernelTiming {
  graphs::KernelId id = 0;
  std::string kernel;
  graphs::TaskId sample = 0;       // the task timed (the kernel's first in submission order)
  double flops = 0;                // its flops (the graph's cost model)
  std::vector<double> seconds;     // per rank: the median of its repetitions
  int repetitions = 0;             // on rank 0
  double mean_seconds() const;     // over the ranks
  double gflops() const;           // flops / mean_seconds()
};

struct PingPoint {
  std::uint64_t bytes = 0;
  double one_way = 0;  // half the median round trip, seconds
};

struct Calibration {
  int ranks = 0;
  double run_scale = 1;        // measured-in-run rates / micro-benchmark rates (step 2)
  double run_busy_seconds = 0;  // the failure-free run's kernel core time, measured
  double run_makespan = 0;      // and its makespan (for the record: the simulation predicts it)
  bool synthetic = false;  // spmd / graph files: the kernels run the config's own speeds
  std::vector<KernelTiming> kernels;
  std::vector<PingPoint> ping;
  double latency = 0;    // one way, seconds (the smallest message)
  double bandwidth = 0;  // bytes/s (the slope between the two largest messages)
};

// Collective over MPI_COMM_WORLD, which must have the ranks of a run (nodes + 1). Throws
// config::ConfigError for what cannot be measured (a kernel failing on the initial data).
Calibration calibrate(const config::Config& config, const graphs::TaskGraph& graph);

// The config document with /platform/core_gflops and /platform/network replaced by the measures
// (a config `ftsim run` takes as it is).
nlohmann::json calibrated_config(const config::Config& config, const Calibration& calibration);
// The raw figures: per kernel and rank, the ping-pong points, the method.
nlohmann::json calibration_json(const Calibration& calibration);

}  // namespace ftsim::mpi
