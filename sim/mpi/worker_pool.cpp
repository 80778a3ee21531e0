#include "sim/mpi/worker_pool.hpp"

namespace ftsim::mpi {

WorkerPool::WorkerPool(unsigned threads, const graphs::kernels::KernelSet& kernels) : kernels_(kernels) {
  for (unsigned i = 0; i < std::max(1u, threads); ++i) threads_.emplace_back([this] { work(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void WorkerPool::submit(std::unique_ptr<KernelJob> job) {
  ++busy_;
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(job));
  }
  wake_.notify_one();
}

std::size_t WorkerPool::collect(std::vector<std::unique_ptr<KernelJob>>& finished) {
  std::lock_guard lock(mutex_);
  const std::size_t n = finished_.size();
  for (auto& job : finished_) finished.push_back(std::move(job));
  finished_.clear();
  busy_ -= n;
  return n;
}

void WorkerPool::wait_for_finished(std::chrono::microseconds timeout) {
  std::unique_lock lock(mutex_);
  finished_ready_.wait_for(lock, timeout, [this] { return !finished_.empty(); });
}

void WorkerPool::work() {
  while (true) {
    std::unique_ptr<KernelJob> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      kernels_.execute(job->task, job->data, job->seconds);
    } catch (const std::exception& e) {
      job->error = e.what();
    }
    {
      std::lock_guard lock(mutex_);
      finished_.push_back(std::move(job));
    }
    finished_ready_.notify_one();
  }
}

}  // namespace ftsim::mpi
