#pragma once
// Builds the SimGrid platform of a config: one host per node (its cores, 1 GFlop/s per core:
// task durations come from ftsim's cost model), the spare hosts, the stable-storage servers and
// the coordinator's host, connected as /platform/network says (star, cluster with a backbone,
// fat-tree, torus), or loaded from a SimGrid platform file whose hosts are named node-0 ...,
// spare-0 ..., storage-0 ... and manager.
#include <vector>

#include "sim/config/config.hpp"
#include "sim/simgrid/compat.hpp"

namespace ftsim::simgrid_backend {

inline constexpr double kHostSpeed = 1e9;  // flops per second of one core

struct Platform {
  std::vector<simgrid::s4u::Host*> nodes, spares, storage;
  simgrid::s4u::Host* manager = nullptr;
};

Platform build_platform(simgrid::s4u::Engine& engine, const config::Config& config);

}  // namespace ftsim::simgrid_backend
