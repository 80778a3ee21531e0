#pragma once
// The built-in applications. Each submits its tasks to a StfBuilder in STF order, owner
// computes, and calls checkpoint() after every outer iteration (the candidate cuts from which
// a checkpoint placement picks). Each also estimates its graph from its parameters alone, in
// floating point, so that a graph too large to build is refused before anything is allocated.
#include "graphs/distribution.hpp"
#include "graphs/graph_estimate.hpp"
#include "graphs/stf_builder.hpp"
#include "sim/config/config.hpp"

namespace ftsim::graphs {

// Tiled Cholesky (Lion & Thibault 2020, Algorithms 1 and 2): POTRF, TRSM, SYRK, GEMM on the
// lower triangle of NT x NT tiles; one outer iteration per column (column order) or per step k
// (triangle order).
void submit_cholesky(const config::CholeskyConfig& cholesky, const Distribution& distribution,
                     StfBuilder& builder);
GraphEstimate estimate_cholesky(const config::CholeskyConfig& cholesky, std::uint32_t nodes);

// 2D Jacobi on a tile grid with a 5-point halo: per iteration a JACOBI task per tile (reads the
// neighbours' halo strips) then a HALO task per tile (extracts its strips for the next one).
void submit_stencil(const config::StencilConfig& stencil, const Distribution& distribution,
                    StfBuilder& builder);
GraphEstimate estimate_stencil(const config::StencilConfig& stencil);

// Conjugate gradient on the 2D Poisson matrix (5-point Laplacian on a grid x grid mesh), split in
// block rows: SpMV with the neighbour blocks, dot products reduced on node 0, axpy updates.
void submit_cg(const config::CgConfig& cg, const Distribution& distribution, StfBuilder& builder);
GraphEstimate estimate_cg(const config::CgConfig& cg, std::uint32_t nodes);

// SPMD iterations on one rank per node: COMPUTE on the rank's state with the messages of the
// previous iteration, then PACK of the messages of a pattern (ring, halo2d, alltoall, tree).
void submit_spmd(const config::SpmdConfig& spmd, const Distribution& distribution,
                 StfBuilder& builder);
GraphEstimate estimate_spmd(const config::SpmdConfig& spmd, std::uint32_t nodes);

// What each application's data looks like to a block-based checkpoint (/checkpoint_data): per
// family of data handles, the share of zero blocks, the share of blocks a write changes and the
// zstd ratio, measured on the real kernels (graphs/apps/kernels) by bench/content_profile with 8 KiB
// blocks (docs/checkpoint-data.md gives the measurement). A family not measured, and the graphs
// read from files, get {0 zero, all changed, ratio 1}: data like random bytes.
// (cg's matrix family "A" has one profile for the 5-point Laplacian and one for the box matrix.)
config::DataProfile default_data_profile(const config::ApplicationConfig& application, const std::string& family);

}  // namespace ftsim::graphs
