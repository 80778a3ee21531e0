#include "analysis/multilevel_period.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ftsim::analysis {

namespace {

constexpr std::uint64_t kMaxCount = std::uint64_t(1) << 40;  // a pattern's count of one level, at most

void check(const std::vector<CheckpointLevel>& levels) {
  if (levels.empty()) throw std::invalid_argument("multi-level checkpointing needs at least one level");
  if (levels.size() > 16) throw std::invalid_argument("multi-level checkpointing: at most 16 levels");
  double total_rate = 0;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const CheckpointLevel& level = levels[i];
    const std::string name = "level " + std::to_string(i + 1);
    if (!(level.checkpoint > 0) || !std::isfinite(level.checkpoint))
      throw std::invalid_argument(name + ": the checkpoint time must be positive");
    if (!(level.failure_rate >= 0) || !std::isfinite(level.failure_rate))
      throw std::invalid_argument(name + ": the failure rate must be >= 0");
    if (!(level.recovery >= 0) || !std::isfinite(level.recovery))
      throw std::invalid_argument(name + ": the recovery time must be >= 0");
    total_rate += level.failure_rate;
  }
  if (!(total_rate > 0)) throw std::invalid_argument("multi-level checkpointing: no level has failures");
}

// The levels used with the failure rate each takes (its own and those of the unused levels below it).
struct Merged {
  std::vector<double> checkpoint, rate;
  double recovery_rate = 0;  // Σ rate × recovery: the part of H that no count moves
};

Merged merge(const std::vector<CheckpointLevel>& levels, const std::vector<std::uint32_t>& used) {
  if (used.empty() || used.back() != levels.size() - 1)
    throw std::invalid_argument("multi-level checkpointing: the last level must be used");
  Merged merged;
  std::uint32_t next = 0;
  for (std::size_t j = 0; j < used.size(); ++j) {
    if (used[j] < next || used[j] >= levels.size())
      throw std::invalid_argument("multi-level checkpointing: the levels used must increase");
    double rate = 0;
    for (; next <= used[j]; ++next) rate += levels[next].failure_rate;
    merged.checkpoint.push_back(levels[used[j]].checkpoint);
    merged.rate.push_back(rate);
    merged.recovery_rate += rate * levels[used[j]].recovery;
  }
  return merged;
}

// Σ n C and Σ λ / n: H at the best W is √(2 · cost · loss) plus the recoveries.
struct Sums {
  double cost = 0, loss = 0;
};

Sums sums(const Merged& merged, const std::vector<std::uint64_t>& counts) {
  Sums s;
  for (std::size_t j = 0; j < counts.size(); ++j) {
    s.cost += double(counts[j]) * merged.checkpoint[j];
    s.loss += merged.rate[j] / double(counts[j]);
  }
  return s;
}

double best_overhead(const Merged& merged, const std::vector<std::uint64_t>& counts) {
  const Sums s = sums(merged, counts);
  return std::sqrt(2 * s.cost * s.loss) + merged.recovery_rate;
}

// Counts from ratios r_j = n_j / n_{j+1} (the last count 1); empty if one overflows.
std::vector<std::uint64_t> counts_of(const std::vector<std::uint64_t>& ratios) {
  std::vector<std::uint64_t> counts(ratios.size() + 1, 1);
  for (std::size_t j = ratios.size(); j-- > 0;) {
    if (counts[j + 1] > kMaxCount / ratios[j]) return {};
    counts[j] = counts[j + 1] * ratios[j];
  }
  return counts;
}

// The best nested whole counts for the levels used: start from the real optimum's ratios
// (spacing √(2 C / λ) per level), then move one ratio at a time (±1, ×2, ÷2) while H falls.
std::vector<std::uint64_t> best_counts(const Merged& merged) {
  const std::size_t m = merged.checkpoint.size();
  std::vector<std::uint64_t> ratios(m - 1, 1);
  for (std::size_t j = 0; j + 1 < m; ++j) {
    // x = n / W = √(λ / 2C); the ratio of two neighbours' x.
    const double x = std::sqrt(merged.rate[j] / (2 * merged.checkpoint[j]));
    const double above = std::sqrt(merged.rate[j + 1] / (2 * merged.checkpoint[j + 1]));
    const double ratio = above > 0 ? x / above : double(kMaxCount);
    ratios[j] = std::uint64_t(std::clamp(std::round(ratio), 1.0, double(1u << 20)));
  }
  std::vector<std::uint64_t> counts = counts_of(ratios);
  double best = best_overhead(merged, counts);
  for (bool improved = true; improved;) {
    improved = false;
    for (std::size_t j = 0; j + 1 < m; ++j) {
      const std::uint64_t r = ratios[j];
      for (const std::uint64_t candidate : {r + 1, r - 1, 2 * r, r / 2}) {
        if (candidate < 1 || candidate == r) continue;
        ratios[j] = candidate;
        const std::vector<std::uint64_t> trial = counts_of(ratios);
        const double h = trial.empty() ? std::numeric_limits<double>::infinity() : best_overhead(merged, trial);
        if (h < best * (1 - 1e-15)) {
          best = h;
          counts = trial;
          improved = true;
          break;
        }
        ratios[j] = r;
      }
    }
  }
  return counts;
}

}  // namespace

double multilevel_bound(const std::vector<CheckpointLevel>& levels) {
  check(levels);
  double h = 0;
  for (const CheckpointLevel& level : levels)
    h += std::sqrt(2 * level.failure_rate * level.checkpoint) + level.failure_rate * level.recovery;
  return h;
}

double multilevel_overhead(const std::vector<CheckpointLevel>& levels, const std::vector<std::uint32_t>& used,
                           const std::vector<std::uint64_t>& counts, double work) {
  check(levels);
  const Merged merged = merge(levels, used);
  if (counts.size() != used.size() || counts.back() != 1)
    throw std::invalid_argument("multi-level checkpointing: one count per level used, the last 1");
  for (std::size_t j = 0; j + 1 < counts.size(); ++j)
    if (counts[j] == 0 || counts[j] % counts[j + 1] != 0)
      throw std::invalid_argument("multi-level checkpointing: each count must be a multiple of the next");
  if (!(work > 0) || !std::isfinite(work)) throw std::invalid_argument("multi-level checkpointing: work must be positive");
  const Sums s = sums(merged, counts);
  return s.cost / work + s.loss * work / 2 + merged.recovery_rate;
}

MultilevelPattern best_multilevel_pattern(const std::vector<CheckpointLevel>& levels,
                                          const std::vector<std::uint32_t>& used) {
  check(levels);
  const Merged merged = merge(levels, used);
  if (!(merged.rate.back() > 0) && used.size() == 1)
    throw std::invalid_argument("multi-level checkpointing: no failure needs the levels used");
  MultilevelPattern p;
  p.levels = used;
  p.counts = best_counts(merged);
  const Sums s = sums(merged, p.counts);
  p.work = std::sqrt(2 * s.cost / s.loss);
  p.overhead = best_overhead(merged, p.counts);
  return p;
}

MultilevelPattern optimal_multilevel_pattern(const std::vector<CheckpointLevel>& levels) {
  check(levels);
  const std::uint32_t k = static_cast<std::uint32_t>(levels.size());
  MultilevelPattern best;
  best.overhead = std::numeric_limits<double>::infinity();
  // Every subset of the levels below the last (bit i: level i used), the last always.
  for (std::uint32_t subset = 0; subset < (1u << (k - 1)); ++subset) {
    std::vector<std::uint32_t> used;
    for (std::uint32_t i = 0; i + 1 < k; ++i)
      if (subset & (1u << i)) used.push_back(i);
    used.push_back(k - 1);
    if (levels.back().failure_rate == 0 && used.size() == 1) {
      // Only the last level: nothing fails unless a level below it is left out with its failures.
      double rate = 0;
      for (const CheckpointLevel& level : levels) rate += level.failure_rate;
      if (rate == 0) continue;
    }
    const MultilevelPattern p = best_multilevel_pattern(levels, used);
    if (p.overhead < best.overhead) best = p;
  }
  return best;
}

}  // namespace ftsim::analysis
