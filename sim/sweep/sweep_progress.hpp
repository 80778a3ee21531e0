#pragma once
// Progress of a sweep on stderr: on a terminal, one line redrawn in place (a bar, points done of
// the total, failures, elapsed time and ETA); otherwise (a log file, a batch job) one plain line per
// finished point. The ETA weighs the points left by their expected cost (sweep_eta.hpp).
#include <chrono>
#include <cstddef>
#include <string>

#include "sim/sweep/sweep_eta.hpp"
#include "sim/sweep/sweep_row.hpp"

namespace ftsim::sweep {

class Progress {
public:
  // `total`: the points this sweep has to finish; `already`: those of them with a row at the start;
  // `eta`: the points left (by index), `jobs` of them at once.
  Progress(std::size_t total, std::size_t already, bool terminal, EtaEstimator eta, std::size_t jobs);
  // A point finished: `description` is its varied values.
  void finished(const Row& row, const std::string& description);
  // On a terminal, redraws the line (elapsed time, ETA) at most twice a second.
  void tick();
  // Ends the line on a terminal.
  void close();

private:
  void draw();
  std::string eta() const;

  std::size_t total_, done_, unsuccessful_ = 0;
  bool terminal_;
  EtaEstimator eta_;
  std::size_t jobs_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_, last_finish_;
};

// A duration as "42 s", "3 min 05 s" or "2 h 07 min".
std::string format_duration(double seconds);

}  // namespace ftsim::sweep
