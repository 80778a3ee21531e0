#pragma once
// SimGrid 3.32's linear-time removal of finished communications, avoided (comm_detach_shim.cpp).
#include <cstdint>

namespace ftsim::simgrid_compat {

// Whether this build replaces SimGrid's CommImpl::detach (SimGrid up to 3.33).
bool comm_detach_shim_compiled();
// How many times SimGrid called the replacement: more than 0 once a Comm was created means the
// dynamic linker bound SimGrid's calls to it (the backend reports it; a test checks it).
std::uint64_t comm_detach_shim_calls();

}  // namespace ftsim::simgrid_compat
