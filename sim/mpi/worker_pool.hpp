#pragma once
// The cores of a rank: worker threads that run real kernels on real buffers. The main thread
// (the only one that calls MPI and touches the node host) submits jobs and collects finished
// ones; a job's buffers belong to it until it is collected.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "graphs/ids.hpp"
#include "sim/node/content.hpp"
#include "graphs/apps/kernels/kernels.hpp"

namespace ftsim::mpi {

struct KernelJob {
  graphs::TaskId task = 0;
  std::uint32_t incarnation = 0;  // of the host that started it: a dead host's job is ignored
  std::uint32_t generation = 0;   // of the start: a cancelled execution's result is ignored
  double seconds = 0;
  std::vector<node::ContentRef> inputs;               // kept alive while the kernel reads them
  std::vector<std::shared_ptr<node::Content>> outputs;  // per access; null for reads
  std::vector<std::span<std::uint8_t>> data;          // per access, what the kernel sees
  std::string error;                                  // the kernel failed (a KernelError)
};

class WorkerPool {
public:
  WorkerPool(unsigned threads, const graphs::kernels::KernelSet& kernels);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void submit(std::unique_ptr<KernelJob> job);
  // Moves the finished jobs out; returns how many.
  std::size_t collect(std::vector<std::unique_ptr<KernelJob>>& finished);
  // Waits until a job is finished (or the timeout).
  void wait_for_finished(std::chrono::microseconds timeout);
  // Jobs submitted and not collected yet.
  std::size_t busy() const { return busy_; }

private:
  void work();

  const graphs::kernels::KernelSet& kernels_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable finished_ready_;
  std::deque<std::unique_ptr<KernelJob>> queue_;
  std::vector<std::unique_ptr<KernelJob>> finished_;
  std::size_t busy_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace ftsim::mpi
