#include "log_dates.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace ftsim::config {

namespace {

// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

bool valid_day(int y, int m, int d) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= kDays[m - 1] + (m == 2 && leap(y) ? 1 : 0);
}

// Reads an unsigned number of 1 to `max_digits` digits at `pos`, advancing it.
bool read_int(std::string_view text, std::size_t& pos, int max_digits, int& out) {
  const std::size_t begin = pos;
  while (pos < text.size() && pos - begin < std::size_t(max_digits) && text[pos] >= '0' && text[pos] <= '9') ++pos;
  if (pos == begin) return false;
  std::from_chars(text.data() + begin, text.data() + pos, out);
  return true;
}

bool expect(std::string_view text, std::size_t& pos, char c) {
  if (pos >= text.size() || text[pos] != c) return false;
  ++pos;
  return true;
}

// " H:MM" or " H:MM:SS" (or nothing) from `pos` to the end; seconds of the day.
std::optional<int> read_time_of_day(std::string_view text, std::size_t pos, bool allow_t) {
  if (pos == text.size()) return 0;
  if (!(text[pos] == ' ' || (allow_t && text[pos] == 'T'))) return std::nullopt;
  ++pos;
  int h = 0, m = 0, s = 0;
  if (!read_int(text, pos, 2, h) || !expect(text, pos, ':') || !read_int(text, pos, 2, m)) return std::nullopt;
  if (pos < text.size() && (!expect(text, pos, ':') || !read_int(text, pos, 2, s))) return std::nullopt;
  if (pos != text.size() || h > 23 || m > 59 || s > 59) return std::nullopt;
  return h * 3600 + m * 60 + s;
}

}  // namespace

std::optional<double> parse_iso_date(std::string_view text) {
  double epoch = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), epoch);
  if (ec == std::errc() && end == text.data() + text.size()) {
    if (!std::isfinite(epoch) || epoch < 0) return std::nullopt;
    return epoch;
  }
  std::size_t pos = 0;
  int y = 0, m = 0, d = 0;
  if (!read_int(text, pos, 4, y) || pos != 4 || !expect(text, pos, '-') || !read_int(text, pos, 2, m) ||
      !expect(text, pos, '-') || !read_int(text, pos, 2, d) || !valid_day(y, m, d)) {
    return std::nullopt;
  }
  auto day_seconds = read_time_of_day(text, pos, true);
  if (!day_seconds) return std::nullopt;
  return double(days_from_civil(y, unsigned(m), unsigned(d))) * 86400 + *day_seconds;
}

std::optional<double> parse_us_date(std::string_view text) {
  std::size_t pos = 0;
  int y = 0, m = 0, d = 0;
  if (!read_int(text, pos, 2, m) || !expect(text, pos, '/') || !read_int(text, pos, 2, d) || !expect(text, pos, '/')) {
    return std::nullopt;
  }
  const std::size_t year_begin = pos;
  if (!read_int(text, pos, 4, y) || pos - year_begin != 4 || !valid_day(y, m, d)) return std::nullopt;
  auto day_seconds = read_time_of_day(text, pos, false);
  if (!day_seconds) return std::nullopt;
  return double(days_from_civil(y, unsigned(m), unsigned(d))) * 86400 + *day_seconds;
}

}  // namespace ftsim::config
