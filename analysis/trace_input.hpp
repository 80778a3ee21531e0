#pragma once
// A trace as `ftsim analyze` and ftsim.analyze() take it: an ftsim-trace JSON file or an SMPI
// time-independent trace (recognised by its content), then optionally checkpoints placed by a
// policy and messages logged by a rule (checkpoint_placement.hpp). An SMPI trace has no
// checkpoints: it needs a policy; its messages are logged by epochs unless told otherwise.
#include <string>

#include "analysis/trace.hpp"

namespace ftsim::analysis {

struct TraceInputOptions {
  std::string format = "auto";  // auto, json, smpi
  std::string checkpoints;      // a policy (periodic:EVENTS, random:SEED:RATE, clusters:FILE) or empty
  std::string logging;          // none, all, epochs; empty: the trace's own flags (SMPI: epochs)
};

// Throws TraceError for bad traces and cluster files, std::invalid_argument for bad options.
Trace load_trace(const std::string& path, const TraceInputOptions& options);
// An ftsim-trace JSON text (e.g. from a Python dict); `origin` names it in messages.
Trace load_trace_text(const std::string& text, const std::string& origin, const TraceInputOptions& options);

}  // namespace ftsim::analysis
