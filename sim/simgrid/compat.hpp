#pragma once
// Every SimGrid version difference ftsim depends on, in one place. Debian 12 ships 3.32; the
// names below changed in later releases (see papers/notes/anchors-simgrid-starpu-peers.md §2.5).
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u.hpp>
#include <simgrid/version.h>

namespace ftsim::simgrid_compat {

namespace sg4 = simgrid::s4u;

// SimGrid 4.0 replaced sg4::create_*_zone by NetZone::add_netzone_*.
inline sg4::NetZone* create_star_zone(const std::string& name) {
#if SIMGRID_VERSION_MAJOR >= 4
  return sg4::Engine::get_instance()->get_netzone_root()->add_netzone_star(name);
#else
  return sg4::create_star_zone(name);
#endif
}

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

}  // namespace ftsim::simgrid_compat
