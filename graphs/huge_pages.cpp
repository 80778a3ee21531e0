#include "graphs/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace ftsim::graphs {

namespace {
// FTSIM_HUGE_PAGES=0 turns the advice off: bench/lion_run.py measures what it gains.
bool huge_pages_wanted() {
  static const bool wanted = [] {
    const char* value = std::getenv("FTSIM_HUGE_PAGES");
    return value == nullptr || std::string_view(value) != "0";
  }();
  return wanted;
}
}  // namespace

void advise_huge_pages(const void* data, std::size_t bytes) {
  constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
  if (data == nullptr || bytes < kHuge || !huge_pages_wanted()) return;
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kHuge - 1);
  if (end <= begin) return;
  // A failure (no THP in this kernel) leaves ordinary pages: nothing to report.
  (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace ftsim::graphs
