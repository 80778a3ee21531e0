#pragma once
// Checks a SimGrid platform file (/platform/xml) before SimGrid reads it. SimGrid reports syntax
// errors as exceptions but aborts the whole process on some values it accepts while parsing (a
// host of 0 cores, an unknown routing) and, later, on the first message over a link of 0 bandwidth
// or between two hosts without a route. ftsim validate does not load the platform in SimGrid: this
// check is what it can see; ftsim run also checks the loaded platform (sim/simgrid/platform.cpp).
#include <string>

#include "json_reader.hpp"

namespace ftsim::config {

struct PlatformConfig;

// Nesting deeper than this is refused before parsing (the XML parser recurses).
inline constexpr int kMaxXmlDepth = 64;

// Checks the file named by `xml_key` (already resolved to `path`): a regular file of at most
// kMaxPlatformFileBytes, well-formed XML with a <platform> root, link bandwidths within
// [kMinBandwidth, kMaxBandwidth] and latencies within [0, kMaxSeconds] (SimGrid's units), core
// counts >= 1, known routings, no SimGrid profile (*_file attributes, <trace>, <trace_connect>:
// ftsim injects failures itself); when the hosts are all given by <host> elements, that ftsim's hosts
// exist; within a zone of Full, Floyd or Dijkstra routing, a route (or a path of routes) between
// every two of ftsim's hosts. Throws ConfigError at the key, naming the file.
void check_platform_file(const JsonReader& xml_key, const std::string& path, const PlatformConfig& platform);

}  // namespace ftsim::config
