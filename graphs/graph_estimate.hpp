#pragma once
// What the task graph of a built-in application will hold, from its parameters alone and in
// floating point (never overflowing): checked before anything is built (graphs/size_check.hpp).
// Counts are exact or upper bounds within a small factor (edges, transfers).
#include <string>
#include <vector>

namespace ftsim::graphs {

struct KernelFlops {
  std::string name;
  double max_flops = 0;  // the largest flops of one task of this kernel
  std::string flops_pointer = {};  // the config key that gives these flops, if one does
};

struct GraphEstimate {
  double tasks = 0, accesses = 0, edges = 0, handles = 0, transfers = 0, cuts = 0;
  double data_bytes = 0;      // the sizes of all data handles, summed
  double largest_handle = 0;  // bytes of the largest data handle
  std::vector<KernelFlops> kernels;
};

}  // namespace ftsim::graphs
