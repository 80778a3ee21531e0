#pragma once
// splitmix64 (Steele, Lea, Flood 2014): a small, well-mixed pseudo-random stream for seeded,
// reproducible choices (failure times, node mappings). Not for cryptography.
#include <cstdint>

namespace ftsim::config {

// The next value of the stream whose state is `state` (advanced).
inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace ftsim::config
