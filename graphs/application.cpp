#include "graphs/application.hpp"

#include "graphs/apps/applications.hpp"
#include "graphs/graph_json.hpp"
#include "graphs/size_check.hpp"
#include "graphs/workflow_dag.hpp"
#include "graphs/workflow_dot.hpp"
#include "graphs/workflow_wfformat.hpp"
#include "sim/config/config_error.hpp"

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
    // An explicit distribution places the k-th submitted task: one owner per task.
    if (app.workflow.placement == config::WorkflowPlacement::distribution &&
        config.distribution.type == config::DistributionType::explicit_map &&
        config.distribution.owners.size() < dag.tasks.size()) {
      throw config::ConfigError(config.file, "/distribution/owners",
                                "placement \"distribution\" with explicit owners needs one owner per task of " +
                                    app.workflow.path + ": " + std::to_string(dag.tasks.size()) + " tasks, " +
                                    std::to_string(config.distribution.owners.size()) + " owners");
    }
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
