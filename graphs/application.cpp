#include "graphs/application.hpp"

#include "graphs/apps/applications.hpp"
#include "graphs/graph_json.hpp"
#include "graphs/size_check.hpp"
#include "graphs/workflow_dag.hpp"
#include "graphs/workflow_dot.hpp"
#include "graphs/workflow_wfformat.hpp"

namespace ftsim::graphs {

TaskGraph build_application(const config::Config& config) {
  check_application_size(config);
  const auto& app = config.application;
  if (app.type == config::ApplicationType::json) {
    return load_graph_json(app.json.file, config.platform.nodes);
  }
  if (app.type == config::ApplicationType::wfformat || app.type == config::ApplicationType::dot) {
    const Distribution distribution(config.distribution, config.platform.nodes);
    const WorkflowDag dag = app.type == config::ApplicationType::wfformat
                                ? read_wfformat(app.workflow.path, app.workflow.reference_gflops)
                                : read_dot(app.workflow.path);
    return build_workflow(dag, {app.workflow.placement, &distribution, app.workflow.cut_levels, config.platform.nodes});
  }
  const Distribution distribution(config.distribution, config.platform.nodes);
  StfBuilder builder(config.platform.nodes);
  switch (app.type) {
    case config::ApplicationType::cholesky: submit_cholesky(app.cholesky, distribution, builder); break;
    case config::ApplicationType::stencil: submit_stencil(app.stencil, distribution, builder); break;
    case config::ApplicationType::cg: submit_cg(app.cg, distribution, builder); break;
    case config::ApplicationType::spmd: submit_spmd(app.spmd, distribution, builder); break;
    case config::ApplicationType::json:
    case config::ApplicationType::wfformat:
    case config::ApplicationType::dot: break;
  }
  return builder.finish();
}

}  // namespace ftsim::graphs
