// SPMD iterations, standing in for message-passing codes such as the NAS kernels: one rank per
// node; each iteration a rank computes on its state with the messages it received, then packs
// its outgoing messages. Message m(s -> d) of iteration t is read by d's COMPUTE of t + 1.
#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include "graphs/apps/applications.hpp"

namespace ftsim::graphs {

namespace {

// The most square P x Q process grid of the halo2d pattern.
std::pair<std::uint32_t, std::uint32_t> halo_grid(std::uint32_t ranks) {
  std::uint32_t p = static_cast<std::uint32_t>(std::sqrt(double(ranks)));
  while (p > 1 && ranks % p != 0) --p;
  return {p, ranks / p};
}

// NPB MG's px x py x pz grid (mg.f, setup): for 2^k ranks, px = 2^(k/3), py = 2^((k - k/3)/2), pz
// the rest (integer divisions): 64 = 4 x 4 x 4, 128 = 4 x 4 x 8, 256 = 4 x 8 x 8, rank x + px (y +
// py z). Which ranks are consecutive decides which clusters blocks of consecutive ranks make
// (Guermouche 2011's, /protocol/clustering: "blocks"). Other counts: the most cubic grid with
// px <= py <= pz.
std::array<std::uint32_t, 3> cube_grid(std::uint32_t ranks) {
  if (ranks > 0 && (ranks & (ranks - 1)) == 0) {
    const unsigned k = static_cast<unsigned>(std::log2(double(ranks)) + 0.5);
    const unsigned dx = k / 3, dy = (k - dx) / 2;
    return {1u << dx, 1u << dy, ranks >> (dx + dy)};
  }
  std::array<std::uint32_t, 3> best{1, 1, ranks};
  for (std::uint32_t x = 1; x * x * x <= ranks; ++x) {
    if (ranks % x != 0) continue;
    const auto [y, z] = halo_grid(ranks / x);
    if (y >= x) best = {x, y, z};
  }
  return best;
}

void add_unique(std::vector<std::uint32_t>& out, std::uint32_t self, std::uint32_t d) {
  if (d != self && std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
}

// Packing copies the outgoing bytes: one operation per 8 bytes.
double pack_flops(std::uint64_t message_bytes, double messages) { return double(message_bytes) / 8.0 * messages; }

// Destinations of each rank under a pattern.
std::vector<std::vector<std::uint32_t>> pattern_edges(config::SpmdPattern pattern, std::uint32_t ranks) {
  std::vector<std::vector<std::uint32_t>> out(ranks);
  if (ranks < 2) return out;
  switch (pattern) {
    case config::SpmdPattern::ring:
      for (std::uint32_t r = 0; r < ranks; ++r) out[r].push_back((r + 1) % ranks);
      break;
    case config::SpmdPattern::halo2d: {
      // The most square P x Q process grid, 4 neighbours, not periodic.
      const auto [p, q] = halo_grid(ranks);
      for (std::uint32_t r = 0; r < ranks; ++r) {
        const std::uint32_t i = r / q, j = r % q;
        if (i > 0) out[r].push_back(r - q);
        if (i + 1 < p) out[r].push_back(r + q);
        if (j > 0) out[r].push_back(r - 1);
        if (j + 1 < q) out[r].push_back(r + 1);
      }
      break;
    }
    case config::SpmdPattern::alltoall:
      for (std::uint32_t r = 0; r < ranks; ++r) {
        for (std::uint32_t d = 0; d < ranks; ++d) {
          if (d != r) out[r].push_back(d);
        }
      }
      break;
    case config::SpmdPattern::tree:
      // Binary tree: each rank exchanges with its parent and its children (reduce + broadcast).
      for (std::uint32_t r = 0; r < ranks; ++r) {
        if (r > 0) out[r].push_back((r - 1) / 2);
        for (std::uint32_t child : {2 * r + 1, 2 * r + 2}) {
          if (child < ranks) out[r].push_back(child);
        }
      }
      break;
    // The NAS kernels of Guermouche 2011 §V-E (Table I), as their reference MPI implementation
    // (NPB 3.x, NASA Ames; Bailey et al., "The NAS Parallel Benchmarks", RNR-94-007) lays out the
    // ranks; patterns as surveyed by Riesen ("Communication Patterns", CAC 2006, the paper's [16]).
    // One message per destination and iteration (CG: three to each row partner), of
    // /application/message_size bytes: who talks to whom, and how often, is what clustering,
    // logging and rollbacks depend on.
    case config::SpmdPattern::nas_mg: {
      // MG (mg.f, comm3/give3/take3): the ranks on a periodic px x py x pz grid; every level of
      // the V-cycle exchanges the faces with the two neighbours in each dimension: 6 neighbours.
      const auto [px, py, pz] = cube_grid(ranks);
      for (std::uint32_t r = 0; r < ranks; ++r) {
        const std::uint32_t x = r % px, y = (r / px) % py, z = r / (px * py);
        const auto at = [&](std::uint32_t i, std::uint32_t j, std::uint32_t k) { return i + px * (j + py * k); };
        add_unique(out[r], r, at((x + 1) % px, y, z));
        add_unique(out[r], r, at((x + px - 1) % px, y, z));
        add_unique(out[r], r, at(x, (y + 1) % py, z));
        add_unique(out[r], r, at(x, (y + py - 1) % py, z));
        add_unique(out[r], r, at(x, y, (z + 1) % pz));
        add_unique(out[r], r, at(x, y, (z + pz - 1) % pz));
      }
      break;
    }
    case config::SpmdPattern::nas_lu: {
      // LU (exchange_1.f, exchange_3.f): a P x Q grid, not periodic; the SSOR sweeps pipeline
      // south and east (lower triangle) then north and west (upper), and the faces go to the four
      // neighbours: the halo2d destinations.
      return pattern_edges(config::SpmdPattern::halo2d, ranks);
    }
    case config::SpmdPattern::nas_ft:
      // FT (ft.f, transpose_x_yz / transpose2_global): the 3D FFT transposes with MPI_Alltoall.
      return pattern_edges(config::SpmdPattern::alltoall, ranks);
    case config::SpmdPattern::nas_cg: {
      // CG (cg.f, setup_proc_info and conj_grad): nprows x npcols ranks, npcols = nprows or
      // 2 nprows (64 = 8 x 8, 128 = 8 x 16, 256 = 16 x 16); each iteration reduces along its row
      // by recursive halving (partners me XOR 2^i, i < log2 npcols) three times (the matrix-
      // vector product, then the dot products p.q and r.r), and exchanges once with its transpose
      // partner exch_proc: three messages to each row partner for one to the transpose partner.
      std::uint32_t rows = 1;
      while (rows * rows * 4 <= ranks) rows *= 2;
      const std::uint32_t cols = ranks / rows;
      for (std::uint32_t r = 0; r < ranks; ++r) {
        for (std::uint32_t bit = 1; bit < cols; bit *= 2) {
          for (int reduction = 0; reduction < 3; ++reduction) out[r].push_back(r ^ bit);
        }
        const std::uint32_t exchange = cols == rows ? (r % rows) * rows + r / rows
                                                    : 2 * (((r / 2) % rows) * rows + (r / 2) / rows) + r % 2;
        if (exchange < ranks) add_unique(out[r], r, exchange);
      }
      break;
    }
    case config::SpmdPattern::nas_bt: {
      // BT (make_set.f, copy_faces.f, x/y/z_solve.f): the multi-partition on a p x q cell grid
      // (p = q = sqrt(ranks) for a square count; the most square grid otherwise); the faces and
      // the line solves go to the successor and predecessor in each of the three directions: east
      // and west, south and north, and the two diagonal cells for z (periodic): 6 neighbours.
      const auto [p, q] = halo_grid(ranks);
      for (std::uint32_t r = 0; r < ranks; ++r) {
        const std::uint32_t i = r / q, j = r % q;
        const auto at = [&](std::uint32_t a, std::uint32_t b) { return (a % p) * q + (b % q); };
        add_unique(out[r], r, at(i, j + 1));
        add_unique(out[r], r, at(i, j + q - 1));
        add_unique(out[r], r, at(i + 1, j));
        add_unique(out[r], r, at(i + p - 1, j));
        add_unique(out[r], r, at(i + 1, j + 1));
        add_unique(out[r], r, at(i + p - 1, j + q - 1));
      }
      break;
    }
  }
  return out;
}

}  // namespace

GraphEstimate estimate_spmd(const config::SpmdConfig& spmd, std::uint32_t nodes) {
  const double ranks = nodes, iterations = spmd.iterations;
  double messages = 0, out_degree = 0;  // all messages of an iteration; the most of one rank
  if (nodes >= 2) {
    switch (spmd.pattern) {
      case config::SpmdPattern::ring: messages = ranks, out_degree = 1; break;
      case config::SpmdPattern::halo2d: {
        const auto [p, q] = halo_grid(nodes);
        messages = 2.0 * ((p - 1.0) * q + p * (q - 1.0)), out_degree = 4;
        break;
      }
      case config::SpmdPattern::alltoall: messages = ranks * (ranks - 1), out_degree = ranks - 1; break;
      case config::SpmdPattern::tree: messages = 2 * (ranks - 1), out_degree = 3; break;
      case config::SpmdPattern::nas_ft: messages = ranks * (ranks - 1), out_degree = ranks - 1; break;
      case config::SpmdPattern::nas_lu: {
        const auto [p, q] = halo_grid(nodes);
        messages = 2.0 * ((p - 1.0) * q + p * (q - 1.0)), out_degree = 4;
        break;
      }
      case config::SpmdPattern::nas_mg:
      case config::SpmdPattern::nas_cg:
      case config::SpmdPattern::nas_bt: {
        // At most 6 (MG, BT) or log2(cols) + 1 (CG) destinations per rank: count them.
        for (const auto& d : pattern_edges(spmd.pattern, nodes)) {
          messages += double(d.size());
          out_degree = std::max(out_degree, double(d.size()));
        }
        break;
      }
    }
  }
  GraphEstimate e;
  e.tasks = iterations * (messages > 0 ? 2 * ranks : ranks);
  e.accesses = iterations * (messages > 0 ? 2 : 1) * (ranks + messages);
  e.edges = 1.5 * e.accesses;
  e.handles = ranks + messages;
  e.transfers = iterations * messages;  // one rank per node: every message crosses
  e.cuts = iterations;
  e.largest_handle = double(std::max(spmd.state_bytes, spmd.message_bytes));
  e.data_bytes = ranks * double(spmd.state_bytes) + messages * double(spmd.message_bytes);
  e.kernels = {{"COMPUTE", spmd.flops, "/application/flops"}, {"PACK", pack_flops(spmd.message_bytes, out_degree)}};
  return e;
}

void submit_spmd(const config::SpmdConfig& spmd, const Distribution& distribution, StfBuilder& builder) {
  const std::uint32_t ranks = distribution.nodes();
  const auto out = pattern_edges(spmd.pattern, ranks);

  const KernelId compute = builder.kernel("COMPUTE", spmd.flops);
  const KernelId pack = builder.kernel("PACK", 0);  // each task gives its own flops

  std::vector<NodeId> node(ranks);
  std::vector<HandleId> state(ranks);
  std::vector<std::vector<HandleId>> message(ranks);   // per source, in out[] order
  std::vector<std::vector<HandleId>> incoming(ranks);  // per destination
  for (std::uint32_t r = 0; r < ranks; ++r) {
    node[r] = distribution.owner(std::uint64_t(r), std::uint64_t(ranks));
    state[r] = builder.data(spmd.state_bytes, node[r], "state", {static_cast<std::int32_t>(r)});
  }
  for (std::uint32_t r = 0; r < ranks; ++r) {
    std::int32_t k = 0;  // a pattern lists several messages to one destination side by side
    for (std::size_t i = 0; i < out[r].size(); ++i) {
      const std::uint32_t d = out[r][i];
      // NPB CG's three reductions: the k-th message to d in an iteration is its own datum.
      k = i > 0 && out[r][i - 1] == d ? k + 1 : 0;
      HandleId m = k == 0 ? builder.data(spmd.message_bytes, node[r], "msg",
                                         {static_cast<std::int32_t>(r), static_cast<std::int32_t>(d)})
                          : builder.data(spmd.message_bytes, node[r], "msg",
                                         {static_cast<std::int32_t>(r), static_cast<std::int32_t>(d), k});
      message[r].push_back(m);
      incoming[d].push_back(m);
    }
  }

  std::vector<AccessSpec> accesses;
  for (std::uint32_t t = 0; t < spmd.iterations; ++t) {
    const auto st = static_cast<std::int32_t>(t);
    for (std::uint32_t r = 0; r < ranks; ++r) {
      accesses.assign({RW(state[r])});
      for (HandleId m : incoming[r]) accesses.push_back(R(m));
      builder.task(compute, accesses, node[r], 0, {static_cast<std::int32_t>(r), st});
    }
    for (std::uint32_t r = 0; r < ranks; ++r) {
      if (message[r].empty()) continue;
      accesses.assign({R(state[r])});
      for (HandleId m : message[r]) accesses.push_back(W(m));
      builder.task(pack, accesses, node[r], 1, {static_cast<std::int32_t>(r), st},
                   pack_flops(spmd.message_bytes, double(message[r].size())));
    }
    builder.checkpoint();
  }
}

}  // namespace ftsim::graphs
