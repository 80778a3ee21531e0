#include "platform_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include "config.hpp"
#include "input_file.hpp"
#include "units.hpp"

namespace ftsim::config {

namespace {

using Tree = boost::property_tree::ptree;

class PlatformFileCheck {
public:
  PlatformFileCheck(const JsonReader& key, std::string path) : key_(key), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& message) const { key_.fail("platform file \"" + path_ + "\": " + message); }

  // The deepest nesting of elements, scanning tags only (comments, declarations and quoted
  // attribute values skipped), so that the recursive parser never sees more than kMaxXmlDepth.
  void check_depth(const std::string& text) const {
    int depth = 0;
    std::size_t line = 1;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') ++line;
      if (text[i] != '<') continue;
      if (text.compare(i, 4, "<!--") == 0) {
        const std::size_t end = text.find("-->", i);
        if (end == std::string::npos) return;  // the parser reports it
        line += static_cast<std::size_t>(std::count(text.begin() + long(i), text.begin() + long(end), '\n'));
        i = end + 2;
        continue;
      }
      const bool closing = i + 1 < text.size() && text[i + 1] == '/';
      const bool declaration = i + 1 < text.size() && (text[i + 1] == '!' || text[i + 1] == '?');
      char quote = 0;
      std::size_t j = i + 1;
      for (; j < text.size() && (quote || text[j] != '>'); ++j) {
        if (text[j] == '\n') ++line;
        if (quote && text[j] == quote) {
          quote = 0;
        } else if (!quote && (text[j] == '"' || text[j] == '\'')) {
          quote = text[j];
        }
      }
      const bool empty_element = j < text.size() && text[j - 1] == '/';
      if (closing) {
        --depth;
      } else if (!declaration && !empty_element && ++depth > kMaxXmlDepth) {
        fail("line " + std::to_string(line) + ": expected at most " + std::to_string(kMaxXmlDepth) +
             " levels of nested elements, got more");
      }
      i = j;
    }
  }

  // A SimGrid quantity "<number><unit>": strtod, then the unit (none means the default unit).
  std::optional<double> quantity(const std::string& text, const std::vector<std::pair<std::string, double>>& units) const {
    const char* start = text.c_str();
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(start, &end);
    if (end == start || errno == ERANGE) return std::nullopt;
    const std::string unit(end);
    for (const auto& [name, factor] : units) {
      if (unit == name) return value * factor;
    }
    return std::nullopt;
  }

  static std::vector<std::pair<std::string, double>> bandwidth_units() {
    std::vector<std::pair<std::string, double>> units{{"", 1.0}};
    const char* const decimal[] = {"", "k", "M", "G", "T", "P", "E", "Z", "Y"};
    const char* const binary[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"};
    double factor = 1;
    for (const char* prefix : decimal) {
      units.push_back({std::string(prefix) + "Bps", factor});
      units.push_back({std::string(prefix) + "bps", factor / 8});
      factor *= 1000;
    }
    factor = 1024;
    for (const char* prefix : binary) {
      units.push_back({std::string(prefix) + "Bps", factor});
      units.push_back({std::string(prefix) + "bps", factor / 8});
      factor *= 1024;
    }
    return units;
  }

  void check_bandwidth(const std::string& element, const std::string& id, const std::string& attribute,
                       const std::string& text) const {
    static const auto units = bandwidth_units();
    std::stringstream list(text);  // a Wi-Fi link lists one bandwidth per station
    std::string item;
    while (std::getline(list, item, text.find(';') != std::string::npos ? ';' : ',')) {
      const auto bandwidth = quantity(item, units);
      if (!bandwidth) fail(element + " \"" + id + "\": expected a bandwidth such as \"10Gbps\" in " + attribute + ", got \"" + text + "\"");
      if (!(*bandwidth >= kMinBandwidth && *bandwidth <= kMaxBandwidth)) {
        fail(element + " \"" + id + "\": expected a " + attribute + " from 1 KB/s to 1 EB/s (SimGrid aborts below), got \"" + text + "\"");
      }
    }
  }

  void check_latency(const std::string& element, const std::string& id, const std::string& attribute,
                     const std::string& text) const {
    static const std::vector<std::pair<std::string, double>> units{
        {"", 1.0}, {"w", 604800.0}, {"d", 86400.0}, {"h", 3600.0}, {"m", 60.0}, {"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6},
        {"ns", 1e-9}, {"ps", 1e-12}};
    const auto latency = quantity(text, units);
    if (!latency) fail(element + " \"" + id + "\": expected a duration such as \"1us\" in " + attribute + ", got \"" + text + "\"");
    if (!(*latency >= 0 && *latency <= kMaxSeconds)) {
      fail(element + " \"" + id + "\": expected a " + attribute + " in [0, " + format_number(kMaxSeconds) + "] s, got \"" + text + "\"");
    }
  }

  void check_cores(const std::string& element, const std::string& id, const std::string& text) const {
    char* end = nullptr;
    const long cores = std::strtol(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != '\0' || cores < 1 || cores > long(kMaxCoresPerNode)) {
      fail(element + " \"" + id + "\": expected a core count in [1, " + std::to_string(kMaxCoresPerNode) + "], got \"" + text + "\"");
    }
  }

  // Visits an element and its children (the depth is bounded by check_depth).
  void visit(const std::string& element, const Tree& node) {
    const Tree empty;
    const Tree& attributes = node.get_child("<xmlattr>", empty);
    const std::string id = attributes.get<std::string>("id", "");
    auto attribute = [&](const char* name) { return attributes.get_optional<std::string>(name); };
    // SimGrid profiles change speeds, bandwidths and states over time from files SimGrid reads
    // itself: a state profile would fail hosts behind the runtime's back (ftsim injects failures
    // from /failures), a bandwidth profile could drop to 0, and the file could be a FIFO.
    if (element == "trace" || element == "trace_connect") fail("<" + element + ">: SimGrid profiles are not supported; give failures in /failures");
    for (const char* name : {"speed_file", "availability_file", "state_file", "bandwidth_file", "latency_file"}) {
      if (auto file = attribute(name); file && !file->empty()) {
        fail(element + " \"" + id + "\": " + name + ": SimGrid profiles are not supported; give failures in /failures");
      }
    }
    if (element == "link" || element == "backbone") {
      links_.insert(id);
      if (auto bandwidth = attribute("bandwidth")) check_bandwidth(element, id, "bandwidth", *bandwidth);
      if (auto latency = attribute("latency")) check_latency(element, id, "latency", *latency);
    } else if (element == "cluster" || element == "cabinet") {
      has_generated_hosts_ = true;
      for (const char* name : {"bw", "bb_bw", "loopback_bw"}) {
        if (auto value = attribute(name); value && !value->empty()) check_bandwidth(element, id, name, *value);
      }
      for (const char* name : {"lat", "bb_lat", "loopback_lat"}) {
        if (auto value = attribute(name); value && !value->empty()) check_latency(element, id, name, *value);
      }
      if (auto cores = attribute("core")) check_cores(element, id, *cores);
    } else if (element == "peer") {
      has_generated_hosts_ = true;
      for (const char* name : {"bw_in", "bw_out"}) {
        if (auto value = attribute(name)) check_bandwidth(element, id, name, *value);
      }
      if (auto latency = attribute("lat")) check_latency(element, id, "lat", *latency);
    } else if (element == "host") {
      if (!hosts_.insert(id).second) fail("host \"" + id + "\" is defined twice");
      if (auto cores = attribute("core")) check_cores(element, id, *cores);
    } else if (element == "router") {
      routers_.insert(id);
    } else if (element == "route" || element == "bypassRoute") {
      routes_.push_back({attributes.get<std::string>("src", ""), attributes.get<std::string>("dst", "")});
    } else if (element == "link_ctn") {
      link_uses_.insert(id);
    } else if (element == "zone" || element == "AS") {
      static const std::set<std::string> routings{"Full", "Floyd", "Dijkstra", "DijkstraCache", "None", "Vivaldi", "Cluster",
                                                  "ClusterTorus", "ClusterFatTree", "ClusterDragonfly", "Star", "Wifi"};
      const std::string routing = attributes.get<std::string>("routing", "");
      if (!routings.count(routing)) {
        std::string list;
        for (const auto& name : routings) list += (list.empty() ? "" : ", ") + name;
        fail(element + " \"" + id + "\": unknown routing \"" + routing + "\" (SimGrid aborts); expected one of " + list);
      }
      if (routing == "Full" || routing == "Floyd" || routing == "Dijkstra" || routing == "DijkstraCache") routed_zones_.push_back(&node);
    }
    for (const auto& [child, subtree] : node) {
      if (child != "<xmlattr>" && child != "<xmlcomment>") visit(child, subtree);
    }
  }

  // Within a zone, SimGrid routes only along the routes given (both ways unless
  // symmetrical="NO"): with Full routing each pair needs its own route; with Floyd and Dijkstra a
  // path of routes through hosts and routers. Every two of ftsim's hosts in the zone need one:
  // SimGrid aborts on the first message between them (Dijkstra crashes on a host of no route).
  void check_zone_routes(const Tree& zone, const std::vector<std::string>& run_hosts) const {
    const std::string routing = zone.get<std::string>("<xmlattr>.routing", "");
    std::map<std::string, std::size_t> index;  // hosts and routers of the zone
    std::vector<std::pair<std::size_t, std::size_t>> edges;
    for (const auto& [child, subtree] : zone) {
      if (child == "host" || child == "router") index.emplace(subtree.get<std::string>("<xmlattr>.id", ""), index.size());
    }
    for (const auto& [child, subtree] : zone) {
      if (child != "route" || (routing == "Full" && subtree.count("link_ctn") == 0)) continue;
      const auto src = index.find(subtree.get<std::string>("<xmlattr>.src", ""));
      const auto dst = index.find(subtree.get<std::string>("<xmlattr>.dst", ""));
      if (src == index.end() || dst == index.end()) continue;
      edges.push_back({src->second, dst->second});
      const std::string symmetrical = subtree.get<std::string>("<xmlattr>.symmetrical", "YES");
      if (symmetrical == "YES" || symmetrical == "yes") edges.push_back({dst->second, src->second});
    }
    std::vector<std::pair<std::string, std::size_t>> present;  // ftsim's hosts in this zone
    for (const auto& host : run_hosts) {
      if (auto found = index.find(host); found != index.end()) present.push_back(*found);
    }
    if (present.size() < 2) return;
    auto missing = [&](const std::string& from, const std::string& to) {
      fail("no route from \"" + from + "\" to \"" + to + "\" in zone \"" + zone.get<std::string>("<xmlattr>.id", "") +
           "\" (every host of the run must reach every other)");
    };
    if (routing == "Full") {
      const std::set<std::pair<std::size_t, std::size_t>> direct(edges.begin(), edges.end());
      for (const auto& [from, i] : present) {
        for (const auto& [to, j] : present) {
          if (i != j && !direct.count({i, j})) missing(from, to);
        }
      }
    } else {
      // Every host reaches the first and is reached from it: all in one strongly connected part.
      auto reachable = [&](bool forward) {
        std::vector<std::vector<std::size_t>> next(index.size());
        for (const auto& [a, b] : edges) (forward ? next[a] : next[b]).push_back(forward ? b : a);
        std::vector<bool> seen(index.size(), false);
        std::vector<std::size_t> stack{present.front().second};
        seen[present.front().second] = true;
        while (!stack.empty()) {
          const std::size_t node = stack.back();
          stack.pop_back();
          for (std::size_t n : next[node]) {
            if (!seen[n]) seen[n] = true, stack.push_back(n);
          }
        }
        return seen;
      };
      const auto from_first = reachable(true), to_first = reachable(false);
      for (const auto& [host, i] : present) {
        if (!from_first[i]) missing(present.front().first, host);
        if (!to_first[i]) missing(host, present.front().first);
      }
    }
  }

  void run(const PlatformConfig& platform) {
    if (auto problem = input_file_problem(path_, kMaxPlatformFileBytes)) fail(*problem);
    const std::string text = read_input_file(path_, kMaxPlatformFileBytes);
    check_depth(text);
    // SimGrid's parser (FleXML) requires the document type declaration before the root.
    const std::size_t doctype = text.find("<!DOCTYPE platform"), root_start = text.find("<platform");
    if (doctype == std::string::npos || doctype > root_start) {
      fail("expected <!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\"> before <platform> (SimGrid's parser needs it)");
    }
    Tree document;
    try {
      std::istringstream stream(text);
      boost::property_tree::read_xml(stream, document);
    } catch (const boost::property_tree::xml_parser_error& error) {
      fail("line " + std::to_string(error.line()) + ": invalid XML: " + error.message());
    }
    const auto root = document.get_child_optional("platform");
    if (!root) fail("expected a SimGrid platform (a <platform> element), got none");
    const std::string version = root->get<std::string>("<xmlattr>.version", "");
    char* end = nullptr;
    if (const double number = std::strtod(version.c_str(), &end); end == version.c_str() || *end != '\0' || number < 4) {
      fail("expected <platform version=\"4.1\"> (SimGrid's format since 3.16), got version \"" + version + "\"");
    }
    visit("platform", *root);

    std::vector<std::string> run_hosts;
    for (std::uint32_t n = 0; n < platform.nodes; ++n) run_hosts.push_back("node-" + std::to_string(n));
    for (std::uint32_t s = 0; s < (platform.unlimited_spares ? 0 : platform.spares); ++s) run_hosts.push_back("spare-" + std::to_string(s));
    for (std::uint32_t s = 0; s < platform.storage.hosts; ++s) run_hosts.push_back("storage-" + std::to_string(s));
    run_hosts.push_back("manager");
    if (!has_generated_hosts_) {
      // Only <host>, <router> and <link> elements name hosts, routers and links: every name used
      // must be declared (clusters, cabinets and peers make names of their own).
      for (const auto& link : link_uses_) {
        if (!links_.count(link)) fail("a route uses link \"" + link + "\", which no <link> or <backbone> defines");
      }
      for (const auto& [src, dst] : routes_) {
        for (const std::string& end_point : {src, dst}) {
          if (!hosts_.count(end_point) && !routers_.count(end_point)) {
            fail("a route goes from \"" + src + "\" to \"" + dst + "\", but no host or router is named \"" + end_point + "\"");
          }
        }
      }
      for (const auto& host : run_hosts) {
        if (!hosts_.count(host)) {
          fail("no host named \"" + host + "\" (expected node-0 ... node-" + std::to_string(platform.nodes - 1) +
               ", spare-*, storage-*, manager)");
        }
      }
    }
    for (const Tree* zone : routed_zones_) check_zone_routes(*zone, run_hosts);
  }

private:
  const JsonReader& key_;
  std::string path_;
  std::set<std::string> hosts_, routers_, links_, link_uses_;
  std::vector<std::pair<std::string, std::string>> routes_;  // <route> and <bypassRoute> ends
  bool has_generated_hosts_ = false;  // clusters, cabinets and peers name their hosts themselves
  std::vector<const Tree*> routed_zones_;  // zones of Full, Floyd or Dijkstra routing
};

}  // namespace

void check_platform_file(const JsonReader& xml_key, const std::string& path, const PlatformConfig& platform) {
  PlatformFileCheck(xml_key, path).run(platform);
}

}  // namespace ftsim::config
