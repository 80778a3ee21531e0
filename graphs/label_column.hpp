#pragma once
// The labels of a graph's tasks, one per task. A label is only read to name a task, but there is
// one per task: stored as three 16-bit indices while every index fits (the 9.2 M tasks of the
// Lion 2020 graph take 55 MB instead of 110, memory the build would otherwise have to fault in),
// and widened to Label the first time one does not.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "graphs/ids.hpp"

namespace ftsim::graphs {

class LabelColumn {
public:
  void reserve(std::size_t n) {
    reserved_ = n;
    narrow_.reserve(n);  // written once, read by exports only: 4 KiB pages (huge_pages.hpp)
  }
  void push_back(const Label& label) {
    if (wide_.empty() && fits(label)) {
      narrow_.push_back({static_cast<std::int16_t>(label.a), static_cast<std::int16_t>(label.b),
                         static_cast<std::int16_t>(label.c)});
      return;
    }
    if (wide_.empty()) widen();
    wide_.push_back(label);
  }
  Label operator[](std::size_t i) const {
    if (!wide_.empty()) return wide_[i];
    const Narrow& n = narrow_[i];
    return {n.a, n.b, n.c};
  }

private:
  struct Narrow {
    std::int16_t a, b, c;
  };
  static bool fits(const Label& label) {
    constexpr std::int32_t low = std::numeric_limits<std::int16_t>::min();
    constexpr std::int32_t high = std::numeric_limits<std::int16_t>::max();
    return label.a >= low && label.a <= high && label.b >= low && label.b <= high && label.c >= low && label.c <= high;
  }
  void widen() {
    wide_.reserve(std::max(reserved_, narrow_.size() + 1));
    for (const Narrow& n : narrow_) wide_.push_back({n.a, n.b, n.c});
    std::vector<Narrow>().swap(narrow_);
  }
  std::size_t reserved_ = 0;
  std::vector<Narrow> narrow_;
  std::vector<Label> wide_;
};

}  // namespace ftsim::graphs
