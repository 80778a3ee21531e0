#pragma once
// Every SimGrid version difference ftsim depends on, in one place. Debian 12 ships 3.32; the
// names below changed in later releases (see papers/notes/anchors-simgrid-starpu-peers.md §2.5).
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u.hpp>
#include <simgrid/version.h>

namespace ftsim::simgrid_compat {

namespace sg4 = simgrid::s4u;

#if SIMGRID_VERSION_MAJOR > 3 || (SIMGRID_VERSION_MAJOR == 3 && SIMGRID_VERSION_MINOR >= 36)
#define FTSIM_SIMGRID_NETZONE_METHODS 1  // 4.0 moved create_*_zone to NetZone::add_netzone_*
#endif

inline sg4::NetZone* create_star_zone(const std::string& name) { return sg4::create_star_zone(name); }
inline sg4::NetZone* create_full_zone(const std::string& name) { return sg4::create_full_zone(name); }

// A kernel timer: runs `callback` in maestro at simulated time `date` (no actor needed).
template <class F>
simgrid::kernel::timer::Timer* set_timer(double date, F callback) {
  return simgrid::kernel::timer::Timer::set(date, std::move(callback));
}

// Host-to-host communication of `bytes`, started by maestro (no mailbox, no actor).
inline sg4::CommPtr start_transfer(sg4::Host* from, sg4::Host* to, std::uint64_t bytes) {
  sg4::CommPtr comm = sg4::Comm::sendto_init(from, to);
  comm->set_payload_size(bytes);
  comm->start();
  return comm;
}

// An execution of `flops` on one core of `host`, started by maestro.
inline sg4::ExecPtr start_exec(sg4::Host* host, double flops) {
  sg4::ExecPtr exec = sg4::Exec::init();
  exec->set_flops_amount(flops);
  exec->set_host(host);
  exec->start();
  return exec;
}

}  // namespace ftsim::simgrid_compat
