// The data profiles of the built-in applications (applications.hpp): measured on their real
// kernels by bench/content_profile on bench/profiles/*.json (8 KiB blocks, zstd level 3;
// docs/checkpoint-data.md gives the run and its output).
#include <string_view>

#include "graphs/apps/applications.hpp"

namespace ftsim::graphs {

namespace {

struct MeasuredProfile {
  config::ApplicationType type;
  bool box;  // cg: the box matrix (/application/matrix), else the 5-point Laplacian
  std::string_view family;
  config::DataProfile profile;  // zero fraction, changed fraction per write, zstd ratio
};

// build/bench/ftsim_content_profile bench/profiles/{cholesky,stencil,cg,cg-box,spmd}.json
constexpr MeasuredProfile kMeasured[] = {
    {config::ApplicationType::cholesky, false, "A", {0.0000, 1.0000, 1.070}},
    {config::ApplicationType::stencil, false, "block", {0.0000, 1.0000, 1.082}},
    {config::ApplicationType::stencil, false, "halo", {0.0000, 1.0000, 1.055}},
    {config::ApplicationType::cg, false, "A", {0.0000, 1.0000, 7.603}},
    {config::ApplicationType::cg, false, "alpha", {0.0476, 1.0000, 1.000}},
    {config::ApplicationType::cg, false, "beta", {0.0476, 1.0000, 1.000}},
    {config::ApplicationType::cg, false, "p", {0.0455, 1.0000, 1.081}},
    {config::ApplicationType::cg, false, "pq_part", {0.0476, 1.0000, 1.000}},
    {config::ApplicationType::cg, false, "q", {0.0476, 1.0000, 1.053}},
    {config::ApplicationType::cg, false, "r", {0.0000, 1.0000, 1.039}},
    {config::ApplicationType::cg, false, "rr", {0.0455, 1.0000, 1.000}},
    {config::ApplicationType::cg, false, "rr_part", {0.0455, 1.0000, 1.000}},
    {config::ApplicationType::cg, false, "x", {0.0476, 1.0000, 1.091}},
    {config::ApplicationType::cg, true, "A", {0.0000, 1.0000, 195.554}},
    {config::ApplicationType::cg, true, "alpha", {0.0909, 1.0000, 1.000}},
    {config::ApplicationType::cg, true, "beta", {0.0909, 1.0000, 1.000}},
    {config::ApplicationType::cg, true, "p", {0.0833, 1.0000, 1.057}},
    {config::ApplicationType::cg, true, "pq_part", {0.0909, 1.0000, 1.000}},
    {config::ApplicationType::cg, true, "q", {0.0909, 1.0000, 1.046}},
    {config::ApplicationType::cg, true, "r", {0.0000, 1.0000, 1.049}},
    {config::ApplicationType::cg, true, "rr", {0.0833, 1.0000, 1.000}},
    {config::ApplicationType::cg, true, "rr_part", {0.0833, 1.0000, 1.000}},
    {config::ApplicationType::cg, true, "x", {0.0909, 1.0000, 1.088}},
    {config::ApplicationType::spmd, false, "msg", {0.0000, 1.0000, 1.000}},
    {config::ApplicationType::spmd, false, "state", {0.0000, 1.0000, 1.000}},
};

}  // namespace

config::DataProfile default_data_profile(const config::ApplicationConfig& application, const std::string& family) {
  const bool box = application.type == config::ApplicationType::cg && application.cg.box_radius > 0;
  for (const MeasuredProfile& m : kMeasured) {
    if (m.type == application.type && m.box == box && m.family == family) return m.profile;
  }
  return {};
}

}  // namespace ftsim::graphs
