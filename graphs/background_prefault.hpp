#pragma once
// BackgroundPrefault: the first touch of large arrays, done on the second core while their owner
// fills them. A page's first touch costs a fault and the clearing of the page, and on a virtual
// machine that hands free memory back to its host (free page reporting, as on this project's
// machines) much more: 2.2-2.8 s per GB of huge pages when memory is cold, against 0.5-0.6 s on
// 4 KiB pages (docs/benchmarks.md). Two cores fault about twice as fast, and the owner finds its
// pages ready.
// A thread faults the queued ranges with MADV_POPULATE_WRITE, 2 MiB at a time, from each range's
// end backwards (the owner fills from the start), and stops when the object is destroyed: what it
// has not reached is faulted by the owner's own writes. Only the kernel writes (it maps zeroed
// pages and leaves present ones as they are), so the owner may fill a range meanwhile.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace ftsim::graphs {

class BackgroundPrefault {
public:
  BackgroundPrefault() = default;
  BackgroundPrefault(const BackgroundPrefault&) = delete;
  BackgroundPrefault& operator=(const BackgroundPrefault&) = delete;
  ~BackgroundPrefault();

  // Queues the whole pages inside [data, data + bytes) (ranges under 2 MiB are left to the owner).
  void add(const void* data, std::size_t bytes);

  // Queues a vector's reserved storage (call it after reserve()).
  template <class T, class A>
  void add(const std::vector<T, A>& v) {
    add(v.data(), v.capacity() * sizeof(T));
  }

private:
  void work();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges_;  // [begin, end) left to fault
  bool closing_ = false;
  bool unsupported_ = false;  // the kernel does not know MADV_POPULATE_WRITE
  std::thread thread_;
};

}  // namespace ftsim::graphs
