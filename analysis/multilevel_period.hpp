#pragma once
// The first-order optimum of multi-level checkpointing (Benoit, Cavelan, Le Fèvre, Robert, Sun,
// "Towards Optimal Multi-Level Checkpointing", IEEE TC 66(7), 2017; Di, Robert, Vivien, Cappello,
// IPDPS 2014 optimise the same counts of checkpoints per level). All times in seconds, rates per
// second.
//
// Levels 1 .. k, cheapest first. A failure of level ℓ (rate λ_ℓ) destroys the checkpoints of the
// levels below ℓ and is recovered from the last checkpoint of level ℓ or above (cost R_ℓ). A pattern
// of W seconds of work ends with a checkpoint of every level and holds n_ℓ evenly spaced
// checkpoints of level ℓ, nested: n_k = 1 and n_ℓ a multiple of n_{ℓ+1}; at a level-ℓ position the
// checkpoints of levels 1 .. ℓ are all taken (C_ℓ is the cost of level ℓ's part alone). To first
// order (failures rare against the pattern, none during checkpoints or recoveries) its overhead per
// unit of work is
//     H(W, n) = Σ_ℓ n_ℓ C_ℓ / W  +  Σ_ℓ λ_ℓ (W / (2 n_ℓ) + R_ℓ),
// minimal at W* = √(2 Σ n_ℓ C_ℓ / Σ λ_ℓ / n_ℓ), where H = √(2 (Σ n_ℓ C_ℓ)(Σ λ_ℓ / n_ℓ)) + Σ λ_ℓ R_ℓ.
// With counts free to be real, level ℓ's spacing W / n_ℓ = √(2 C_ℓ / λ_ℓ) and
//     H* = Σ_ℓ √(2 λ_ℓ C_ℓ) + Σ_ℓ λ_ℓ R_ℓ       (the paper's bound; Young/Daly for one level).
// Leaving level ℓ out hands its failures to the next level used above it; the last level is
// always used (it is the one every failure can be recovered from).
#include <cstdint>
#include <vector>

namespace ftsim::analysis {

struct CheckpointLevel {
  double checkpoint = 0;    // C_ℓ: the time its part of a checkpoint takes (> 0)
  double failure_rate = 0;  // λ_ℓ: failures per second that need this level (>= 0)
  double recovery = 0;      // R_ℓ: the time a recovery from it takes (>= 0)
};

struct MultilevelPattern {
  std::vector<std::uint32_t> levels;  // the levels used, 0-based, increasing; always ends with k - 1
  std::vector<std::uint64_t> counts;  // n of each level used in one pattern; the last is 1
  double work = 0;                    // W: work between two checkpoints of the last level
  double overhead = 0;                // H at that W: first-order wasted time per unit of work
  // Work between two checkpoints of levels[i] (W / counts[i]).
  double spacing(std::size_t i) const { return work / double(counts[i]); }
};

// Σ √(2 λ_ℓ C_ℓ) + Σ λ_ℓ R_ℓ over all levels: real counts, every level used.
double multilevel_bound(const std::vector<CheckpointLevel>& levels);

// H(W, n) for a pattern using `used` (increasing, ending with the last level) with counts `counts`
// (nested: each a multiple of the next, the last 1). Failures of a level not used go to the next
// used one above it.
double multilevel_overhead(const std::vector<CheckpointLevel>& levels, const std::vector<std::uint32_t>& used,
                           const std::vector<std::uint64_t>& counts, double work);

// The best whole counts for the levels `used` (increasing, ending with the last level) and the W
// that minimises H for them: a local search from the real optimum's ratios, exact for two levels.
// For a protocol whose checkpoints cannot leave a level out (a level-2 checkpoint of ftsim's
// global with levels also writes the buddies' copy), this is the model to compare with.
MultilevelPattern best_multilevel_pattern(const std::vector<CheckpointLevel>& levels,
                                          const std::vector<std::uint32_t>& used);

// The best pattern with whole counts: every subset of levels that ends with the last one (k <= 16),
// for each the best nested whole counts (a local search from the real optimum's ratios, exact for
// two levels), and the W that minimises H for them.
MultilevelPattern optimal_multilevel_pattern(const std::vector<CheckpointLevel>& levels);

}  // namespace ftsim::analysis
