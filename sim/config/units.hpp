#pragma once
// Quantities with units, as users write them in configs: sizes ("320KiB"), durations ("1us",
// "2h") and bandwidths ("40Gbps", "5GB/s"). Plain numbers are in the base unit (bytes,
// seconds, bytes per second). Parsers return std::nullopt on malformed text so that the caller
// can report the JSON path. A finite number times its unit may still overflow ("1e308d" is +inf
// seconds): every caller checks the result against its range below, which rejects +inf.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ftsim::config {

// Every simulated time (a duration in a config, a failure time, a task's duration) is at most
// 1e15 s, about 32 million years: sums of millions of them stay finite and exact to the
// microsecond well past any real run.
inline constexpr double kMaxSeconds = 1e15;
// Bandwidths from 1 KB/s to 1 EB/s. Below about 1 B/s SimGrid's max-min solver rounds a
// transfer's share to 0 and aborts ("The Impossible Did Happen"); 1 KB/s keeps a margin for
// long routes and large latencies. 1 EB/s is far above any link.
inline constexpr double kMinBandwidth = 1e3;
inline constexpr double kMaxBandwidth = 1e18;

std::optional<double> parse_size_bytes(std::string_view text);
std::optional<double> parse_duration_seconds(std::string_view text);
std::optional<double> parse_bandwidth_bytes_per_second(std::string_view text);
// Whether a quantity's text names its unit ("5s" does, "5" does not). A string in a config must:
// its unit is what makes it a string (a bare number is written as a JSON number). Text formats
// (failure trace files) take bare numbers in their base unit.
bool names_a_unit(std::string_view text);

// The accepted unit spellings, for error messages.
extern const char* const kSizeUnitsHelp;
extern const char* const kDurationUnitsHelp;
extern const char* const kBandwidthUnitsHelp;

// Human-readable forms for summaries ("1.18 GB", "22.5 s", "40 Gbps").
std::string format_bytes(double bytes);
std::string format_seconds(double seconds);
// A number as printf's %g writes it ("1e+15", "0.1"), for limits in messages.
std::string format_number(double value);

}  // namespace ftsim::config
