#include "graphs/huge_pages.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace ftsim::graphs {

namespace {
std::atomic<bool> default_wanted{true};

bool huge_pages_wanted() {
  // FTSIM_HUGE_PAGES=0 or 1 overrides the command's choice: bench/lion_run.py measures what it gains.
  static const char* forced = std::getenv("FTSIM_HUGE_PAGES");
  if (forced != nullptr) return std::string_view(forced) != "0";
  return default_wanted.load(std::memory_order_relaxed);
}
}  // namespace

void set_huge_pages_default(bool wanted) { default_wanted.store(wanted, std::memory_order_relaxed); }

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
