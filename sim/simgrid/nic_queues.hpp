#pragma once
// The "nic" network contention model (/platform/network/contention: "nic"): LogGP-style
// serialisation of messages in each host's network interface, with no link sharing to solve.
//
// LogGP (Alexandrov, Ionkov, Schauser, Scheiman: "LogGP: Incorporating Long Messages into the LogP
// Model", SPAA 1995) prices a message of b bytes as o + (b - 1) G + L + o, with consecutive
// messages of one host separated by its gap g; LogGOPSim (Hoefler, Schneider, Lumsdaine: "LogGOPSim
// - Simulating Large-Scale Applications in the LogGOPS Model", LSAP/HPDC 2010) simulates it at
// scale with one send and one receive queue per host. Here o = g = 0 (the runtime's CPU costs are in
// the task graph), G = 1 / bandwidth and L = the route's latency. A message from host s to host d
// of b bytes, sent at time `now`:
//
//   start        = max(now, send_free[s])                      the sender's NIC is free
//   send_free[s] = start + b / B_s                             it pushes the bytes at its own rate
//   arrival      = max(start + L + b / B,                      the bytes stream at the route's rate
//                      recv_free[d] + b / B_d)                 or, if d's NIC is still receiving, they
//                                                              wait in the network and drain at d's rate
//   recv_free[d] = arrival
//
// with L = L_s + L_d (the sender's up link and the receiver's down link of a star), B_s and B_d the
// hosts' link bandwidths and B = min(B_s, B_d). Latencies and bandwidths are the simulated ones (the
// configured values times the network model's factors, network_model.hpp), so that a lone message
// takes what it takes under "flows". Not modelled: SimGrid's TCP window cap (4 MiB / (2 x route
// latency), below the bandwidth only for routes over 1.7 ms at 10 Gb/s) and its 5% cross-traffic.
//
// Receive queues serve messages in the order their first byte reaches the receiver (at start + L),
// as LogGOPSim does: the backend calls send() when the message is sent and receive() at start + L,
// from a timed event, so that a message held in a busy sender's queue does not block the receiver
// for a message sent later from an idle host. transfer() does both at once (for messages given in
// the order their first bytes arrive).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ftsim::simgrid_backend {

class NicQueues {
public:
  struct Nic {
    double latency = 0;    // seconds of its link (simulated: model factor applied)
    double bandwidth = 1;  // bytes per second of its link (simulated: model factor applied)
  };
  std::size_t add(Nic nic) {
    nics_.push_back(nic);
    send_free_.push_back(0);
    recv_free_.push_back(0);
    return nics_.size() - 1;
  }
  std::size_t size() const { return nics_.size(); }
  const Nic& nic(std::size_t i) const { return nics_[i]; }

  // The sender's part: reserves its send queue; returns when the first byte reaches the receiver.
  double send(std::size_t source, std::size_t destination, double bytes, double now) {
    const double start = std::max(now, send_free_[source]);
    send_free_[source] = start + bytes / nics_[source].bandwidth;
    return start + nics_[source].latency + nics_[destination].latency;
  }
  // The receiver's part, at `head` = send()'s result, in the order of those times: reserves its
  // receive queue; returns the time the last byte has arrived.
  double receive(std::size_t source, std::size_t destination, double bytes, double head) {
    const Nic& d = nics_[destination];
    const double bandwidth = std::min(nics_[source].bandwidth, d.bandwidth);
    const double arrival = std::max(head + bytes / bandwidth, recv_free_[destination] + bytes / d.bandwidth);
    recv_free_[destination] = arrival;
    return arrival;
  }
  // Both at once.
  double transfer(std::size_t source, std::size_t destination, double bytes, double now) {
    return receive(source, destination, bytes, send(source, destination, bytes, now));
  }

  // A host turned off: what it was sending or receiving is lost, its queues are empty from `now`.
  // (The other ends keep the time they reserved for the lost messages.)
  void reset(std::size_t i, double now) {
    send_free_[i] = std::min(send_free_[i], now);
    recv_free_[i] = std::min(recv_free_[i], now);
  }

  double send_free(std::size_t i) const { return send_free_[i]; }
  double recv_free(std::size_t i) const { return recv_free_[i]; }

private:
  std::vector<Nic> nics_;
  std::vector<double> send_free_, recv_free_;
};

}  // namespace ftsim::simgrid_backend
