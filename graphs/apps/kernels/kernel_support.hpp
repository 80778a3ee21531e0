#pragma once
// Internals shared by the kernel sets: seeded values, typed views of byte buffers, handle lookup
// by label, and the factories and checks of each application.
#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "graphs/apps/kernels/kernels.hpp"

namespace ftsim::graphs::kernels::detail {

// SplitMix64 (Steele et al. 2014): a cheap bijective 64-bit mixer, the base of every seeded value.
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) { return splitmix64(h ^ splitmix64(v)); }
inline std::uint64_t mix_string(std::uint64_t h, const std::string& s) {
  return mix(h, checksum({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}));
}
// A double in [0, 1) from the top 53 bits.
inline double unit_value(std::uint64_t h) { return double(h >> 11) * 0x1.0p-53; }

// Fills bytes with a SplitMix64 stream: every byte written, whatever the length.
inline void fill_stream(std::uint64_t state, std::span<std::uint8_t> out) {
  std::size_t i = 0;
  for (; i + 8 <= out.size(); i += 8) {
    const std::uint64_t word = splitmix64(state += 0x632be59bd9b4e019ULL);
    std::memcpy(out.data() + i, &word, 8);
  }
  if (i < out.size()) {
    const std::uint64_t word = splitmix64(state += 0x632be59bd9b4e019ULL);
    std::memcpy(out.data() + i, &word, out.size() - i);
  }
}

// A typed view of a byte buffer (or a prefix of it). Kernels pass these to BLAS, so the buffer
// must be aligned for T; a misaligned or oddly sized buffer is a backend bug, reported loudly.
template <class T, class Byte>
std::span<T> view(std::span<Byte> bytes, std::size_t count, const char* what) {
  if (reinterpret_cast<std::uintptr_t>(bytes.data()) % alignof(T) != 0 || bytes.size() < count * sizeof(T)) {
    throw KernelError(std::string("kernel buffer of ") + what + ": " + std::to_string(bytes.size()) +
                      " bytes, misaligned or smaller than " + std::to_string(count * sizeof(T)));
  }
  return {reinterpret_cast<T*>(bytes.data()), count};
}
template <class T, class Byte>
std::span<T> view_all(std::span<Byte> bytes, const char* what) {
  if (bytes.size() % sizeof(T) != 0) {
    throw KernelError(std::string("kernel buffer of ") + what + ": " + std::to_string(bytes.size()) +
                      " bytes, not a whole number of elements");
  }
  return view<T>(bytes, bytes.size() / sizeof(T), what);
}

// Handles of one family by label (a, b, c); absent labels are -1.
using LabelKey = std::tuple<std::int32_t, std::int32_t, std::int32_t>;
std::map<LabelKey, graphs::HandleId> handles_of(const graphs::TaskGraph& graph, const std::string& family);
graphs::HandleId handle_at(const std::map<LabelKey, graphs::HandleId>& handles, LabelKey key, const char* family);

// Only double precision runs for real; throws KernelError naming /application/precision.
void require_double(config::Precision precision);
// Makes OpenBLAS single-threaded once per process (see kernels.cpp).
void single_threaded_blas();

// Per application: the kernel set and the checks of the final data.
std::unique_ptr<KernelSet> make_cholesky_kernels(const config::Config& config, const graphs::TaskGraph& graph);
std::unique_ptr<KernelSet> make_stencil_kernels(const config::Config& config, const graphs::TaskGraph& graph);
std::unique_ptr<KernelSet> make_cg_kernels(const config::Config& config, const graphs::TaskGraph& graph);
std::unique_ptr<KernelSet> make_synthetic_kernels(const config::Config& config, const graphs::TaskGraph& graph);

std::vector<NumericCheck> check_cholesky(const config::Config& config, const graphs::TaskGraph& graph,
                                         std::span<const Buffer> finals);
std::vector<NumericCheck> check_stencil(const config::Config& config, const graphs::TaskGraph& graph,
                                        std::span<const Buffer> finals);
std::vector<NumericCheck> check_cg(const config::Config& config, const graphs::TaskGraph& graph,
                                   std::span<const Buffer> finals);

// Salts that keep the applications' seeded values apart.
inline constexpr std::uint64_t kCholeskySalt = 0x43686f6c65736b79ULL;
inline constexpr std::uint64_t kStencilSalt = 0x5374656e63696c00ULL;
inline constexpr std::uint64_t kCgSalt = 0x4367000000000000ULL;
inline constexpr std::uint64_t kSyntheticSalt = 0x53796e7468657469ULL;

// The stencil's Dirichlet value outside the global grid: 1, so the iteration moves somewhere
// (the values start in [0, 1) and relax toward 1).
inline constexpr double kStencilBoundary = 1.0;

}  // namespace ftsim::graphs::kernels::detail
