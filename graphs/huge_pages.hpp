#pragma once
// Large arrays that the engine reads at random (the per-task arrays of a graph of millions of
// tasks, each node's task table) on 2 MiB transparent huge pages: with 4 KiB pages nearly every
// access to a 9.2 M-task graph misses the TLB as well as the cache. On the Lion 2020 run this
// saves about 5% of the simulation's CPU time, partly paid back in kernel time to clear and
// compact the pages (bench/lion_run.py, docs/benchmarks.md). Debian's default is THP "madvise":
// the range must be advised before its pages are first touched, so arrays are reserved, advised,
// then filled.
// Only a hint: on a kernel without THP, or for arrays under 2 MiB, nothing changes. Arrays read in
// order (the in-edges, the labels, each node's task list) stay on 4 KiB pages: their first touch
// is cheaper there and a sequential read gains nothing from them.
// Huge pages pay back in a long run that reads the arrays at random (ftsim run). A command that
// builds a graph and reads it once (ftsim graph, ftsim volumes) is left with their first touch
// only, which on this machine's virtual machine costs twice that of 4 KiB pages when memory is
// cold (the Lion 2020 graph: 2.4 s against 1.3 s; docs/benchmarks.md): those commands turn the
// advice off. The environment variable FTSIM_HUGE_PAGES=0 or 1 forces it off or on (to measure).
#include <cstddef>
#include <vector>

namespace ftsim::graphs {

// The advice when FTSIM_HUGE_PAGES is not set (on unless a command turns it off).
void set_huge_pages_default(bool wanted);

// Advises the 2 MiB-aligned pages inside [data, data + bytes) for huge pages (no-op if none).
void advise_huge_pages(const void* data, std::size_t bytes);

// v.reserve(n), with the reserved storage advised for huge pages when it is large.
template <class T, class A>
void reserve_on_huge_pages(std::vector<T, A>& v, std::size_t n) {
  v.reserve(n);
  advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

}  // namespace ftsim::graphs
