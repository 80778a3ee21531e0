#include "sim/mpi/transport.hpp"

#include <chrono>
#include <stdexcept>
#include <thread>

namespace ftsim::mpi {

Transport::Transport(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

Transport::~Transport() {
  for (Pending& p : pending_) MPI_Request_free(&p.request);
}

void Transport::send(int to, node::Bytes packet, std::uint64_t release_token) {
  if (packet.size() > std::size_t(INT32_MAX)) throw std::runtime_error("MPI packet larger than 2 GiB");
  pending_.push_back({MPI_REQUEST_NULL, std::move(packet), release_token});
  Pending& p = pending_.back();  // the vector's element owns the buffer until MPI releases it
  MPI_Isend(p.packet.data(), static_cast<int>(p.packet.size()), MPI_BYTE, to, kTag, comm_, &p.request);
}

bool Transport::receive(int& from, node::Bytes& packet) {
  int arrived = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, kTag, comm_, &arrived, &status);
  if (!arrived) return false;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  packet.assign(static_cast<std::size_t>(count), 0);
  packet.content_bytes = 0;
  from = status.MPI_SOURCE;
  // The probed message itself: same source and tag, and non-overtaking keeps it first.
  MPI_Recv(packet.data(), count, MPI_BYTE, from, kTag, comm_, MPI_STATUS_IGNORE);
  return true;
}

void Transport::progress(std::vector<std::uint64_t>& released) {
  for (std::size_t i = 0; i < pending_.size();) {
    int done = 0;
    MPI_Test(&pending_[i].request, &done, MPI_STATUS_IGNORE);
    if (!done) {
      ++i;
      continue;
    }
    if (pending_[i].token != 0) released.push_back(pending_[i].token);
    // Keep the order of the others: moving a pending buffer is fine (MPI holds its data pointer,
    // which a move of the vector does not change).
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

void Transport::finish() {
  MPI_Request barrier = MPI_REQUEST_NULL;
  bool entered = false;
  std::vector<std::uint64_t> released;
  node::Bytes dropped;
  while (true) {
    int from = 0;
    while (receive(from, dropped)) {
    }
    progress(released);
    if (!entered && pending_.empty()) {
      MPI_Ibarrier(comm_, &barrier);
      entered = true;
    }
    if (entered) {
      int done = 0;
      MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
      if (done) return;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

}  // namespace ftsim::mpi
