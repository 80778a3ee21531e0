#pragma once
// ftsim and ftsim-mpi are built and installed side by side: each finds the other beside itself.
// (SimGrid's library defines MPI symbols of its own, SMPI's, so MPI work happens in ftsim-mpi, a
// process that does not load SimGrid, and simulations in ftsim.)
#include <string>
#include <vector>

namespace ftsim::sweep {

// The path of the running executable.
std::string self_executable();
// The path of the executable `name` in the directory of the running one.
std::string sibling_executable(const std::string& name);

// Replaces this process by the sibling `name`, given `arguments` (arguments[0] is replaced by its
// path). Returns only if it cannot: exit code 1, after a message on stderr.
int exec_sibling(const std::string& name, const std::vector<std::string>& arguments, const std::string& why);

}  // namespace ftsim::sweep
