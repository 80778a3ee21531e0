#pragma once
// Quantities with units, as users write them in configs: sizes ("320KiB"), durations ("1us",
// "2h") and bandwidths ("40Gbps", "5GB/s"). Plain numbers are in the base unit (bytes,
// seconds, bytes per second). Parsers return std::nullopt on malformed text so that the caller
// can report the JSON path.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ftsim::config {

std::optional<double> parse_size_bytes(std::string_view text);
std::optional<double> parse_duration_seconds(std::string_view text);
std::optional<double> parse_bandwidth_bytes_per_second(std::string_view text);

// The accepted unit spellings, for error messages.
extern const char* const kSizeUnitsHelp;
extern const char* const kDurationUnitsHelp;
extern const char* const kBandwidthUnitsHelp;

// Human-readable forms for summaries ("1.18 GB", "22.5 s", "40 Gbps").
std::string format_bytes(double bytes);
std::string format_seconds(double seconds);

}  // namespace ftsim::config
