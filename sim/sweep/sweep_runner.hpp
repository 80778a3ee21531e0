#pragma once
// Runs the points of a sweep, each as a child process `ftsim run POINT/config.json -o POINT`, up
// to `jobs` at once (POINT/command.txt has the command, to run a point again by hand). A child is isolated: its crash, its failed run or its bad input becomes its
// row (status, exit code, reason) and the sweep goes on. The children get a process group of their
// own, so that a Ctrl-C reaches the sweep only; the sweep then stops them itself (stop()).
#include <chrono>
#include <cstddef>
#include <deque>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <sys/types.h>

#include "sim/sweep/sweep_plan.hpp"
#include "sim/sweep/sweep_row.hpp"

namespace ftsim::sweep {

struct RunnerOptions {
  std::string ftsim;                   // the ftsim executable that runs a point
  std::filesystem::path points_dir;    // a directory per point id: config.json, results.json, stdout.txt, stderr.txt
  std::size_t jobs = 1;                // children at once
  bool plain_environment = false;      // drop the MPI launcher's variables (OMPI_*, PMIX_*, PMI_*) from the children's
  std::string runner;                  // who runs the points, written to POINT/command.txt: "" or "rank 1 of 3 on HOST"
};

class PointRunner {
public:
  // `todo`: indices into plan.points(), in the order to start them.
  PointRunner(const SweepPlan& plan, std::vector<std::size_t> todo, RunnerOptions options);
  ~PointRunner();  // stops the children left
  PointRunner(const PointRunner&) = delete;
  PointRunner& operator=(const PointRunner&) = delete;

  // Starts points while fewer than `jobs` run (none once a stop was requested) and returns the
  // rows of the points that finished since the last call. Never blocks.
  std::vector<Row> step();
  // Every point has run, or a stop was requested and no child is left.
  bool done() const;
  std::size_t running() const { return children_.size(); }
  // Sends SIGTERM to every child (SIGKILL to those still running 10 s later) and waits for them;
  // their points get no row.
  void stop();

private:
  struct Child {
    std::size_t point;
    std::filesystem::path dir;
    std::chrono::steady_clock::time_point started;
  };
  Row start_failed(std::size_t point, const std::string& why) const;
  Row finished(const Child& child, int status) const;

  const SweepPlan& plan_;
  std::deque<std::size_t> todo_;
  RunnerOptions options_;
  std::map<pid_t, Child> children_;
  std::vector<std::string> environment_;
};

// SIGINT and SIGTERM only ask the sweep to stop (ftsim::stop_requested()).
void install_stop_handlers();

}  // namespace ftsim::sweep
