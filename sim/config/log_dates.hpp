#pragma once
// Dates of failure logs, as seconds since the Unix epoch (UTC; the logs give no time zone, so
// every date of one run is read the same way and only differences matter).
#include <optional>
#include <string_view>

namespace ftsim::config {

// "YYYY-MM-DD", "YYYY-MM-DD HH:MM" or "YYYY-MM-DD HH:MM:SS" (also with a "T" for the space), or
// epoch seconds written as a plain number ("1104537600"). nullopt if it is none of these.
std::optional<double> parse_iso_date(std::string_view text);

// The LANL data's "M/D/YYYY H:MM" (also "M/D/YYYY", "M/D/YYYY H:MM:SS"). Two-digit years are
// refused: they are ambiguous.
std::optional<double> parse_us_date(std::string_view text);

}  // namespace ftsim::config
