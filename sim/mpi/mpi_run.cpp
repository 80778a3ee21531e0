#include "sim/mpi/mpi_run.hpp"

#include "sim/mpi/rank_process.hpp"
#include "sim/mpi/transport.hpp"

namespace ftsim::mpi {

MpiRunResult run_on_ranks(const MpiRunSpec& spec, MPI_Comm comm) {
  MPI_Comm own;
  MPI_Comm_dup(comm, &own);
  MpiRunResult result;
  {
    Transport transport(own);
    {
      RankProcess process(spec, transport);
      result = process.run();
    }  // workers joined: what they still ran belongs to no one
    transport.finish();
  }
  MPI_Comm_free(&own);
  return result;
}

}  // namespace ftsim::mpi
