#pragma once
// The DOT DAG files of SimGrid's DAG loader as a WorkflowDag (docs/inputs.md#dot): a node is a
// task of `size` flops, an edge with a `size` in bytes a data transfer, one without a dependency.
// A small hand-written parser of the DOT subset those files use, so that every error names its
// line (Graphviz's own parser reports through a global callback, and is one more dependency).
#include <string>

#include "graphs/workflow_dag.hpp"

namespace ftsim::graphs {

WorkflowDag read_dot(const std::string& path);
WorkflowDag dot_from_text(const std::string& text, const std::string& origin);

}  // namespace ftsim::graphs
