#pragma once
// Data digests for the oracle: every version of every handle carries a 64-bit digest of how it
// was computed, hash(kernel, task, digests of the versions the task read). A run is right when
// every handle's final digest equals the failure-free one: a task fed a wrong or stale version
// yields another digest, and that difference flows down to the final results. (The MPI backend
// will put a checksum of the real buffer in the same field.)
#include <cstdint>

#include "graphs/ids.hpp"

namespace ftsim::node {

using Digest = std::uint64_t;

// What a task reads when the version it expects is not in memory at all.
inline constexpr Digest kMissingDigest = 0x6d697373696e6721ULL;

// splitmix64's finalizer: cheap, well mixed, no allocation.
inline Digest mix_digest(Digest x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline Digest combine_digest(Digest seed, Digest value) { return mix_digest(seed ^ mix_digest(value)); }

// The initial value of a handle (the job's input).
inline Digest initial_digest(graphs::HandleId h) { return combine_digest(0x696e697469616cULL, h); }

// A task's outputs start from hash(kernel, task); each input digest read is folded in, in
// access order; each written handle then gets its own digest.
inline Digest task_seed(graphs::KernelId kernel, graphs::TaskId task) {
  return combine_digest(combine_digest(0x7461736bULL, kernel), task);
}
inline Digest output_digest(Digest task_digest, graphs::HandleId h) { return combine_digest(task_digest, h); }

}  // namespace ftsim::node
