#include "graphs/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>

namespace ftsim::graphs {

void advise_huge_pages(const void* data, std::size_t bytes) {
  constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
  if (data == nullptr || bytes < kHuge) return;
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kHuge - 1);
  if (end <= begin) return;
  // A failure (no THP in this kernel) leaves ordinary pages: nothing to report.
  (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace ftsim::graphs
