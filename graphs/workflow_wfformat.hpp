#pragma once
// WfCommons workflow instances (WfFormat JSON, schema 1.4 to 1.6) as a WorkflowDag
// (docs/inputs.md#wfformat). Errors are ConfigError naming the file and the JSON pointer.
#include <string>

#include "graphs/workflow_dag.hpp"
#include "sim/config/json_reader.hpp"

namespace ftsim::graphs {

// A task's cost in flops is its runtimeInSeconds x reference_gflops x 1e9.
WorkflowDag read_wfformat(const std::string& path, double reference_gflops);
WorkflowDag wfformat_from_json(const config::Json& document, const std::string& origin, double reference_gflops);

}  // namespace ftsim::graphs
