#pragma once
// The 95% confidence interval of a mean over a few seeds, on a scale that keeps it inside the
// quantity's range: Student's t on log(x) for a positive quantity (a makespan), on log(1 + x) for
// a ratio above -1 (an overhead: makespan / reference - 1), back-transformed. A plain t interval
// on three seeds' overheads easily reaches below -100%, which no run can cost.
#include <cstddef>
#include <vector>

namespace ftsim::sweep {

enum class Scale {
  linear,  // any value: mean ± t s / sqrt(n)
  log,     // positive values
  log1p,   // values above -1
};

struct Interval {
  double mean = 0;            // the mean on the scale, back-transformed (a geometric mean for log)
  double low = 0, high = 0;   // equal to mean when n < 2
  std::size_t n = 0;
};

// The interval of `values` (at least one) on `scale`; a value outside the scale's domain makes it
// linear (the result then says so: `scale`).
Interval interval95(const std::vector<double>& values, Scale& scale);

// The 0.975 quantile of Student's t with `df` degrees of freedom (df >= 1).
double student_t975(std::size_t df);

}  // namespace ftsim::sweep
