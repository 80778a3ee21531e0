#include "analysis/trace_input.hpp"

#include <fstream>
#include <optional>
#include <stdexcept>

#include "analysis/checkpoint_placement.hpp"
#include "analysis/smpi_trace_reader.hpp"
#include "analysis/trace_json_reader.hpp"

namespace ftsim::analysis {

namespace {

// JSON starts with '{' (after spaces or a byte order mark); anything else is read as SMPI.
bool starts_like_json(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  char c = 0;
  while (file.get(c)) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '\xEF') continue;  // a UTF-8 byte order mark: EF BB BF
    if (c == '\xBB' || c == '\xBF') continue;
    return c == '{';
  }
  return true;  // empty or unreadable: let the JSON reader say why
}

Trace with_options(Trace trace, bool is_smpi, const TraceInputOptions& options) {
  std::optional<CheckpointPolicy> policy;
  if (!options.checkpoints.empty()) policy = parse_checkpoint_policy(options.checkpoints);
  if (is_smpi && !policy) {
    throw std::invalid_argument(
        "an SMPI trace has no checkpoints: give a placement (--checkpoints periodic:EVENTS, random:SEED:RATE or "
        "clusters:FILE)");
  }
  Logging logging = Logging::keep;
  if (!options.logging.empty()) {
    logging = parse_logging(options.logging);
  } else if (is_smpi) {
    logging = Logging::epochs;
  }
  if (!policy && logging == Logging::keep) return trace;
  return place_checkpoints(trace, policy, logging);
}

}  // namespace

Trace load_trace(const std::string& path, const TraceInputOptions& options) {
  bool is_smpi;
  if (options.format == "json") {
    is_smpi = false;
  } else if (options.format == "smpi") {
    is_smpi = true;
  } else if (options.format == "auto") {
    is_smpi = !starts_like_json(path);
  } else {
    throw std::invalid_argument("format \"" + options.format + "\": expected auto, json or smpi");
  }
  return with_options(is_smpi ? read_smpi_trace(path) : read_trace_json(path), is_smpi, options);
}

Trace load_trace_text(const std::string& text, const std::string& origin, const TraceInputOptions& options) {
  return with_options(parse_trace_json(text, origin), false, options);
}

}  // namespace ftsim::analysis
