#include "graphs/background_prefault.hpp"
#include "graphs/startup_threads.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>

namespace ftsim::graphs {

namespace {
constexpr std::uintptr_t kPage = 4096, kHuge = std::uintptr_t(2) << 20;
}  // namespace

void BackgroundPrefault::add(const void* data, std::size_t bytes) {
  // Whole 4 KiB pages (huge or not: the kernel populates what the range is advised for).
  if (data == nullptr || bytes < kHuge || startup_threads() < 2) return;  // one thread: the owner faults
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kPage - 1);
  std::lock_guard lock(mutex_);
  if (unsupported_) return;
  ranges_.emplace_back(begin, end);
  if (!thread_.joinable()) thread_ = std::thread([this] { work(); });
  wake_.notify_one();
}

void BackgroundPrefault::work() {
  // One huge page per range in turn, from each range's end: the owner fills them all at once
  // from their starts (the graph's per-task arrays grow together).
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return closing_ || !ranges_.empty(); });
    if (closing_) return;
    for (std::size_t i = 0; i < ranges_.size() && !closing_;) {
      auto& [begin, end] = ranges_[i];
      // Down to the 2 MiB boundary below `end` (a huge page whole), or to `begin`.
      const std::uintptr_t chunk = std::max(begin, (end - 1) & ~(kHuge - 1));
      const std::size_t length = end - chunk;
      end = chunk;
      if (end == begin) {
        ranges_[i] = ranges_.back();
        ranges_.pop_back();
      } else {
        ++i;
      }
      lock.unlock();
      // A kernel before Linux 5.14 does not know the advice: then the owner faults its pages.
      const bool unknown = madvise(reinterpret_cast<void*>(chunk), length, MADV_POPULATE_WRITE) != 0 && errno == EINVAL;
      lock.lock();
      if (unknown) {
        unsupported_ = true;
        ranges_.clear();
      }
    }
  }
}

BackgroundPrefault::~BackgroundPrefault() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

}  // namespace ftsim::graphs
