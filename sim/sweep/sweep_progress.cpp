#include "sim/sweep/sweep_progress.hpp"

#include <algorithm>
#include <iostream>

#include <fmt/format.h>

namespace ftsim::sweep {

namespace {
double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

std::string format_duration(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, (s % 3600) / 60);
}

Progress::Progress(std::size_t total, std::size_t already, bool terminal, EtaEstimator eta, std::size_t jobs)
    : total_(total), done_(already), terminal_(terminal), eta_(std::move(eta)), jobs_(jobs), start_(std::chrono::steady_clock::now()),
      last_draw_(start_), last_finish_(start_) {
  if (terminal_) draw();
}

std::string Progress::eta() const {
  if (done_ >= total_) return "done";
  // Counted down between two finished points, from the estimate made at the last one.
  const auto left = eta_.seconds_left(jobs_);
  return left ? "ETA " + format_duration(std::max(0.0, *left - since(last_finish_))) : "ETA --";
}

void Progress::finished(const Row& row, const std::string& description) {
  ++done_;
  eta_.finished(row["point"].get<std::size_t>(), row["wall_seconds"].get<double>());
  last_finish_ = std::chrono::steady_clock::now();
  const std::string status = row["status"].get<std::string>();
  if (status != "ok") ++unsuccessful_;
  if (terminal_) {
    if (status != "ok") {  // a failure stays on screen, above the bar
      std::cerr << "\r\x1b[K" << fmt::format("[ftsim sweep] point {} {}: {} ({})\n", row["point"].get<std::size_t>(), status,
                                           row["reason"].is_string() ? row["reason"].get<std::string>() : "", description);
    }
    draw();
    return;
  }
  std::string line = fmt::format("[ftsim sweep] {}/{} point {} {} in {:.1f} s ({})", done_, total_, row["point"].get<std::size_t>(), status,
                                 row["wall_seconds"].get<double>(), description);
  if (status != "ok" && row["reason"].is_string()) line += ": " + row["reason"].get<std::string>();
  if (unsuccessful_) line += fmt::format("; {} not ok", unsuccessful_);
  std::cerr << line << "; " << eta() << "\n";
}

void Progress::tick() {
  if (terminal_ && since(last_draw_) >= 0.5) draw();
}

void Progress::draw() {
  constexpr std::size_t width = 30;
  const std::size_t filled = total_ ? done_ * width / total_ : width;
  std::string bar(filled, '#');
  bar += std::string(width - filled, '.');
  std::cerr << "\r\x1b[K"
            << fmt::format("[ftsim sweep] [{}] {}/{} points, {} not ok, {} elapsed, {}", bar, done_, total_, unsuccessful_,
                           format_duration(since(start_)), eta())
            << std::flush;
  drawn_ = true;
  last_draw_ = std::chrono::steady_clock::now();
}

void Progress::close() {
  if (terminal_ && drawn_) {
    draw();
    std::cerr << "\n";
    drawn_ = false;
  }
}

}  // namespace ftsim::sweep
