#pragma once
// How many threads the start-up of a run uses: decided here, once, from the machine. The start-up
// (building the graph and its indexes, the hosts' ready queues, the oracle's expected digests) has
// passes over millions of tasks that touch disjoint state; they run on up to this many threads,
// and one after the other when it is 1. The results never depend on it.
//   startup_threads(): the machine's hardware threads (at least 1), or FTSIM_STARTUP_THREADS if
//   set (1 runs every start-up pass on the calling thread: to measure, or on a shared machine).
#include <algorithm>
#include <cstddef>
#include <future>
#include <utility>
#include <vector>

namespace ftsim::graphs {

unsigned startup_threads();

// first() and second(), on two threads when the machine has them (first on the calling thread),
// else one after the other. If first() throws, second() is waited for before the exception leaves.
template <class First, class Second>
void run_both(First&& first, Second&& second) {
  if (startup_threads() < 2) {
    first();
    second();
    return;
  }
  auto other = std::async(std::launch::async, std::forward<Second>(second));
  first();
  other.get();
}

// work(k, n) for k = 0 ... n - 1, n = min(startup_threads(), limit): each call takes the items
// k, k + n, k + 2n, ... of a list (the caller's stride), call 0 on the calling thread.
template <class Work>
void run_strided(std::size_t limit, Work&& work) {
  const std::size_t n = std::max<std::size_t>(1, std::min<std::size_t>(startup_threads(), limit));
  std::vector<std::future<void>> others;
  for (std::size_t k = 1; k < n; ++k) others.push_back(std::async(std::launch::async, work, k, n));
  work(std::size_t(0), n);
  for (auto& other : others) other.get();
}

// A result only the end of the run reads (e.g. the oracle's expected digests): computed on another
// thread meanwhile when the machine has one, else when first asked for.
template <class Function>
auto run_meanwhile(Function&& function) {
  return std::async(startup_threads() < 2 ? std::launch::deferred : std::launch::async, std::forward<Function>(function));
}

}  // namespace ftsim::graphs
