// SimGrid 3.32 (Debian 12's) registers every host-to-host communication with maestro when it is
// created (CommImpl::detach: `maestro->activities_.emplace_back(this)`, a std::list) and takes it
// out when it ends (CommImpl::finish: `activities_.remove(this)`, a scan of that whole list). With
// n communications in flight each completion costs O(n): 97-98% of a 256-node run with thousands of
// concurrent control messages (docs/benchmarks.md). SimGrid 3.34 made the list a set.
//
// ftsim's communications are all host-to-host Comms started by maestro (no mailbox, no actor,
// compat.hpp's start_transfer), for which the registration does nothing else: nothing waits on
// them through the list, their buffers are empty (no clean-up function), and the backend holds a
// reference to each until its completion is reported (SimgridBackend::bury). So this file defines
// CommImpl::detach as "do nothing" and the dynamic linker binds SimGrid's own calls to it (they go
// through its PLT; the executable's definition comes first, and a shared object such as the Python
// module exports it). CommImpl is not in SimGrid's installed headers: the function is declared
// with its mangled name. Only for SimGrid releases with the list (up to 3.33).
#include <simgrid/config.h>
#include <simgrid/version.h>

#include <atomic>
#include <cstdint>

#include "sim/simgrid/comm_detach_shim.hpp"

namespace ftsim::simgrid_compat {
namespace {
std::atomic<std::uint64_t> detach_calls{0};
}

bool comm_detach_shim_compiled() {
#if SIMGRID_VERSION_MAJOR == 3 && SIMGRID_VERSION_MINOR <= 33
  return true;
#else
  return false;
#endif
}

std::uint64_t comm_detach_shim_calls() { return detach_calls.load(std::memory_order_relaxed); }

}  // namespace ftsim::simgrid_compat

#if SIMGRID_VERSION_MAJOR == 3 && SIMGRID_VERSION_MINOR <= 33
// simgrid::kernel::activity::CommImpl& simgrid::kernel::activity::CommImpl::detach(): `self` is
// `this`, returned as the reference (the same register under the x86-64 and AArch64 ABIs).
extern "C" __attribute__((visibility("default"), used)) void* ftsim_comm_impl_detach(void* self) __asm__(
    "_ZN7simgrid6kernel8activity8CommImpl6detachEv");
extern "C" void* ftsim_comm_impl_detach(void* self) {
  ftsim::simgrid_compat::detach_calls.fetch_add(1, std::memory_order_relaxed);
  return self;
}
#endif
