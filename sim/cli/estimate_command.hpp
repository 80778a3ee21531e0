#pragma once
// ftsim estimate, callable by other verbs (ftsim advise runs one per candidate): options, and the
// run that writes OUTPUT/estimate.json (docs/advise.md).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ftsim::cli {

struct EstimateOptions {
  std::string config;
  std::string output_dir;  // default: out/<config name>-estimate/
  std::string json;        // also write the estimate here
  std::size_t samples = 100;
  std::string method = "conditioned";
  std::size_t jobs = 1;
  std::uint64_t seed_base = 0;  // the samples' seeds are seed_base + 1 ... seed_base + samples
  std::vector<std::string> sets, cfgs;
  bool long_job = false;        // estimate from a few periods (long_job.hpp)
  std::size_t periods = 6;      // of the short job
  std::size_t check = 8;        // --long-job: runs of the whole job with one failure, against the short job's cost (0: none)
  double reference_makespan = 0;  // none's failure-free makespan when the caller knows it (> 0): not simulated again
  bool quiet = false;           // no table on stdout (a caller prints its own); progress still on stderr
};

// Runs the estimate of options.config; its exit code (0, or 1 with wrong results or errors among the
// samples). Throws config::ConfigError on bad input.
int run_estimate(const EstimateOptions& options);

}  // namespace ftsim::cli
