#pragma once
// `ftsim sweep` under mpirun (ftsim execs ftsim-mpi sweep in every rank): the points left are
// dealt out to the ranks in turn; each rank runs its own as child `ftsim run` processes (up to -j
// at once) and sends each row to rank 0, the only one to read and write the rows files.
#include "sim/sweep/sweep_options.hpp"

namespace ftsim::mpi {

// Every rank of MPI_COMM_WORLD calls it (MPI initialized); every rank returns the sweep's exit code.
int run_sweep_on_ranks(const sweep::SweepOptions& options, int rank, int size);

}  // namespace ftsim::mpi
