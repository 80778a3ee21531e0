#pragma once
// Point-to-point packets between MPI ranks with non-blocking MPI: Isend (the buffer is kept until
// MPI releases it) and Iprobe + Recv. One tag on one communicator: MPI's non-overtaking rule
// then makes every ordered pair of ranks a FIFO channel. Only the main thread calls MPI.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "sim/node/wire.hpp"

namespace ftsim::mpi {

class Transport {
public:
  explicit Transport(MPI_Comm comm);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Sends a packet; when MPI releases it, `release_token` (if not 0) is returned by progress().
  void send(int to, node::Bytes packet, std::uint64_t release_token = 0);
  // The next packet that arrived, if any.
  bool receive(int& from, node::Bytes& packet);
  // Completes what MPI has finished sending; appends the tokens of released packets.
  void progress(std::vector<std::uint64_t>& released);
  bool sending() const { return !pending_.empty(); }
  // The end of a run on every rank: completes this rank's sends while receiving (and dropping)
  // whatever still arrives, until every rank has completed its sends (a non-blocking barrier),
  // so that no rank waits for a receiver that has stopped.
  void finish();
  void barrier() { MPI_Barrier(comm_); }

private:
  struct Pending {
    MPI_Request request;
    node::Bytes packet;
    std::uint64_t token;
  };
  static constexpr int kTag = 7;
  MPI_Comm comm_;
  int rank_ = 0, size_ = 0;
  std::vector<Pending> pending_;
};

}  // namespace ftsim::mpi
