#pragma once
// Optimal checkpoint periods of the first-order and Daly models (notes:
// ../shared/papers/notes/anchors-simgrid-starpu-peers.md §5). All times in one unit (seconds).
// C: time to take a checkpoint; M: mean time between failures of the platform; R: restart time.
// The period returned is τ, the compute time between two checkpoints (a cycle lasts τ + C).
namespace ftsim::analysis {

// Young 1974: τ = √(2CM).
double young_period(double checkpoint, double mtbf);

// Daly 2006, higher-order estimate: τ = √(2CM)·[1 + ⅓·√(C/2M) + (C/2M)/9] − C if C < 2M, else M.
double daly_period(double checkpoint, double mtbf);

// The exact optimum of Daly's complete model: τ = M·(1 + W₀(−e^{−C/M − 1})) (Lambert W, principal
// branch). R does not move it.
double optimal_period(double checkpoint, double mtbf);

// Daly's complete model: wall time to do `work` seconds of computation with period τ:
// M·e^{R/M}·(e^{(τ+C)/M} − 1)·work/τ.
double daly_wall_time(double period, double checkpoint, double mtbf, double restart, double work);

}  // namespace ftsim::analysis
