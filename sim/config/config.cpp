#include "config.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "input_file.hpp"
#include "platform_file.hpp"
#include "platform_presets.hpp"

namespace ftsim::config {

namespace {

// A count: "a positive integer" (or >= min) first, so that 0 is not told of a range that the key's
// own limit narrows later (e.g. cores_per_node: at most 65536).
std::uint32_t read_count(JsonReader reader, std::int64_t min = 1) {
  const std::int64_t count = reader.as_int(min, INT64_MAX);
  if (count > UINT32_MAX) reader.fail_expected("at most " + std::to_string(UINT32_MAX));
  return static_cast<std::uint32_t>(count);
}

Precision read_precision(JsonReader& object) {
  auto value = object.find("precision");
  if (!value) return Precision::double_precision;
  return value->as_choice({"single", "double"}) == "single" ? Precision::single_precision
                                                             : Precision::double_precision;
}

// The kernels each built-in application submits (graphs/apps/*), for speed-table checks.
std::vector<std::string> kernels_of(ApplicationType type) {
  switch (type) {
    case ApplicationType::cholesky: return {"POTRF", "TRSM", "SYRK", "GEMM"};
    case ApplicationType::stencil: return {"JACOBI", "HALO"};
    case ApplicationType::cg: return {"COPY", "SPMV", "DOT", "REDUCE", "AXPY", "XPAY"};
    case ApplicationType::spmd: return {"COMPUTE", "PACK"};
    case ApplicationType::json:
    case ApplicationType::wfformat:
    case ApplicationType::dot: return {};
  }
  return {};
}

// Outer iterations of a built-in application: one candidate checkpoint cut after each.
std::optional<std::uint32_t> outer_iterations(const ApplicationConfig& app) {
  switch (app.type) {
    case ApplicationType::cholesky: return app.cholesky.tiles;
    case ApplicationType::stencil: return app.stencil.iterations;
    case ApplicationType::cg: return app.cg.iterations;
    case ApplicationType::spmd: return app.spmd.iterations;
    case ApplicationType::json:
    case ApplicationType::wfformat:
    case ApplicationType::dot: return std::nullopt;
  }
  return std::nullopt;
}

// Data blocks that a distribution maps, in the application's block order.
std::optional<std::uint64_t> distributed_blocks(const ApplicationConfig& app, std::uint32_t nodes) {
  switch (app.type) {
    case ApplicationType::cholesky:
      return std::uint64_t(app.cholesky.tiles) * app.cholesky.tiles;
    case ApplicationType::stencil: return std::uint64_t(app.stencil.tiles_x) * app.stencil.tiles_y;
    case ApplicationType::cg: return app.cg.blocks;
    case ApplicationType::spmd: return nodes;
    case ApplicationType::json:
    case ApplicationType::wfformat:
    case ApplicationType::dot: return std::nullopt;
  }
  return std::nullopt;
}

// wfformat and dot: the file, the placement rule, the reference speed, the cut spacing.
void read_workflow_file(JsonReader& reader, const std::string& config_file, ApplicationType type, WorkflowFileConfig& w) {
  auto path = reader.at("path");
  std::filesystem::path resolved(path.as_string());
  if (resolved.is_relative() && !config_file.empty()) resolved = std::filesystem::path(config_file).parent_path() / resolved;
  if (auto problem = input_file_problem(resolved.string(), kMaxGraphFileBytes)) {
    path.fail("graph file \"" + resolved.string() + "\": " + *problem);
  }
  w.path = resolved.string();
  if (auto placement = reader.find("placement")) {
    const std::string rule = placement->as_choice({"round-robin", "distribution", "file"});
    w.placement = rule == "round-robin"    ? WorkflowPlacement::round_robin
                  : rule == "distribution" ? WorkflowPlacement::distribution
                                           : WorkflowPlacement::file;
  }
  // Only WfFormat has runtimes in seconds; a DOT task gives its flops.
  if (type == ApplicationType::wfformat) {
    if (auto speed = reader.find("reference_gflops")) w.reference_gflops = speed->as_positive_number();
  }
  if (auto levels = reader.find("cut_levels")) w.cut_levels = read_count(levels.value());
}

ApplicationConfig read_application(JsonReader reader, const std::string& config_file) {
  ApplicationConfig app;
  reader.expect_object();
  std::string type = reader.at("type").as_choice({"cholesky", "stencil", "cg", "spmd", "json", "wfformat", "dot"});
  if (type == "cholesky") {
    app.type = ApplicationType::cholesky;
    auto& c = app.cholesky;
    c.tiles = read_count(reader.at("tiles"));
    c.tile_size = read_count(reader.at("tile_size"));
    c.precision = read_precision(reader);
    if (auto order = reader.find("order")) {
      c.order = order->as_choice({"column", "triangle"}) == "column" ? CholeskyOrder::column
                                                                      : CholeskyOrder::triangle;
    }
    if (auto priorities = reader.find("priorities")) {
      c.priorities = priorities->as_choice({"critical-path", "none"}) == "critical-path";
    }
  } else if (type == "stencil") {
    app.type = ApplicationType::stencil;
    auto& s = app.stencil;
    auto tiles = reader.at("tiles");
    if (tiles.is_array()) {
      if (tiles.size() != 2) tiles.fail_expected("[tiles_x, tiles_y]");
      s.tiles_x = read_count(tiles[0]);
      s.tiles_y = read_count(tiles[1]);
    } else {
      s.tiles_x = s.tiles_y = read_count(tiles);
    }
    auto size = reader.at("tile_size");
    if (size.is_array()) {
      if (size.size() != 2) size.fail_expected("[size_x, size_y]");
      s.tile_size_x = read_count(size[0]);
      s.tile_size_y = read_count(size[1]);
    } else {
      s.tile_size_x = s.tile_size_y = read_count(size);
    }
    s.iterations = read_count(reader.at("iterations"));
    s.precision = read_precision(reader);
  } else if (type == "cg") {
    app.type = ApplicationType::cg;
    auto& c = app.cg;
    c.grid = read_count(reader.at("grid"));
    auto blocks = reader.at("blocks");
    c.blocks = read_count(blocks);
    if (c.blocks > c.grid) {
      blocks.fail("expected at most as many blocks as grid rows (" + std::to_string(c.grid) +
                  "), got " + std::to_string(c.blocks));
    }
    c.iterations = read_count(reader.at("iterations"));
    c.precision = read_precision(reader);
    if (auto matrix = reader.find("matrix")) {
      if (matrix->is_string()) {
        matrix->as_choice({"poisson"});
      } else {
        matrix->expect_object();
        matrix->at("type").as_choice({"box"});
        auto radius = matrix->at("radius");
        c.box_radius = static_cast<std::uint32_t>(radius.as_int(1, 1000));
        // SPMV of block row i reads the vector blocks i - 1, i and i + 1 only: the box must not
        // reach further than the shortest block row.
        const std::uint32_t shortest = c.grid / c.blocks;
        if (c.box_radius > shortest) {
          radius.fail("the box reaches " + std::to_string(c.box_radius) + " mesh rows, more than the shortest block row (" +
                      std::to_string(shortest) + " rows of a " + std::to_string(c.grid) + " grid in " +
                      std::to_string(c.blocks) + " blocks): use fewer blocks or a smaller radius");
        }
        matrix->finish();
      }
    }
  } else if (type == "spmd") {
    app.type = ApplicationType::spmd;
    auto& s = app.spmd;
    const std::string pattern = reader.at("pattern").as_choice(
        {"ring", "halo2d", "alltoall", "tree", "nas-mg", "nas-lu", "nas-ft", "nas-cg", "nas-bt"});
    for (SpmdPattern p : {SpmdPattern::ring, SpmdPattern::halo2d, SpmdPattern::alltoall, SpmdPattern::tree,
                          SpmdPattern::nas_mg, SpmdPattern::nas_lu, SpmdPattern::nas_ft, SpmdPattern::nas_cg,
                          SpmdPattern::nas_bt}) {
      if (pattern == to_string(p)) s.pattern = p;
    }
    s.iterations = read_count(reader.at("iterations"));
    s.message_bytes = reader.at("message_size").as_bytes();
    s.state_bytes = reader.at("state_size").as_bytes();
    s.flops = reader.at("flops").as_number(0);
  } else if (type == "wfformat" || type == "dot") {
    app.type = type == "wfformat" ? ApplicationType::wfformat : ApplicationType::dot;
    read_workflow_file(reader, config_file, app.type, app.workflow);
  } else {
    app.type = ApplicationType::json;
    auto file = reader.at("file");
    std::string path = file.as_string();
    std::filesystem::path resolved(path);
    if (resolved.is_relative() && !config_file.empty()) {
      resolved = std::filesystem::path(config_file).parent_path() / resolved;
    }
    if (auto problem = input_file_problem(resolved.string(), kMaxGraphFileBytes)) {
      file.fail("graph file \"" + resolved.string() + "\": " + *problem);
    }
    app.json.file = resolved.string();
  }
  reader.finish();
  return app;
}

// The most square grid P x Q = nodes with P <= Q.
std::pair<std::uint32_t, std::uint32_t> square_grid(std::uint32_t nodes) {
  std::uint32_t p = static_cast<std::uint32_t>(std::sqrt(static_cast<double>(nodes)));
  while (p > 1 && nodes % p != 0) --p;
  return {p, nodes / p};
}

// The documented default of each application (docs/configs.md#distribution).
DistributionConfig default_distribution(const ApplicationConfig& app, std::uint32_t nodes) {
  DistributionConfig d;
  auto [p, q] = square_grid(nodes);
  switch (app.type) {
    case ApplicationType::cholesky:
      d.type = DistributionType::block_cyclic;
      d.P = p;
      d.Q = q;
      break;
    case ApplicationType::stencil:  // 2D block: contiguous sub-grids of tiles
      d.type = DistributionType::block_cyclic;
      d.P = p;
      d.Q = q;
      d.block_rows = (app.stencil.tiles_x + p - 1) / p;
      d.block_cols = (app.stencil.tiles_y + q - 1) / q;
      break;
    case ApplicationType::cg:
    case ApplicationType::spmd:
    case ApplicationType::json:
    case ApplicationType::wfformat:
    case ApplicationType::dot:
      d.type = DistributionType::block;
      break;
  }
  return d;
}

DistributionConfig read_distribution(std::optional<JsonReader> reader, const ApplicationConfig& app,
                                     std::uint32_t nodes) {
  if (!reader) return default_distribution(app, nodes);
  DistributionConfig d;
  d.given = true;
  reader->expect_object();
  if (app.type == ApplicationType::json) {
    reader->fail("a \"json\" application gives the owner of each datum in its graph file; "
                 "remove \"distribution\"");
  }
  if ((app.type == ApplicationType::wfformat || app.type == ApplicationType::dot) &&
      app.workflow.placement != WorkflowPlacement::distribution) {
    reader->fail("a distribution places the tasks of a workflow file only with \"placement\": \"distribution\"");
  }
  std::string type = reader->at("type").as_choice({"block-cyclic", "block", "explicit"});
  if (type == "block-cyclic") {
    d.type = DistributionType::block_cyclic;
    d.P = read_count(reader->at("P"));
    d.Q = read_count(reader->at("Q"));
    if (auto rows = reader->find("block_rows")) d.block_rows = read_count(*rows);
    if (auto cols = reader->find("block_cols")) d.block_cols = read_count(*cols);
    if (std::uint64_t(d.P) * d.Q != nodes) {
      reader->fail("P x Q = " + std::to_string(d.P) + " x " + std::to_string(d.Q) + " = " +
                   std::to_string(std::uint64_t(d.P) * d.Q) + " must equal /platform/nodes = " +
                   std::to_string(nodes));
    }
  } else if (type == "block") {
    d.type = DistributionType::block;
  } else {
    d.type = DistributionType::explicit_map;
    auto owners = reader->at("owners");
    for (std::size_t i = 0; i < owners.size(); ++i) {
      auto entry = owners[i];
      if (entry.is_array()) {  // one row of a 2D map
        for (std::size_t j = 0; j < entry.size(); ++j) {
          d.owners.push_back(static_cast<std::uint32_t>(entry[j].as_int(0, nodes - 1)));
        }
      } else {
        d.owners.push_back(static_cast<std::uint32_t>(entry.as_int(0, nodes - 1)));
      }
    }
    auto blocks = distributed_blocks(app, nodes);
    if (blocks && d.owners.size() != *blocks) {
      owners.fail("expected " + std::to_string(*blocks) + " owners (one per data block of the " +
                  to_string(app.type) + " application, row-major), got " +
                  std::to_string(d.owners.size()));
    }
  }
  reader->finish();
  return d;
}

// /platform/kernel_models: {kernel: {"file", "size", "device"}}, each file read here so that
// ftsim validate reports its errors (the entry is chosen with the graph, in the cost model).
void read_kernel_models(JsonReader models, const ApplicationConfig& app, PlatformConfig& p) {
  models.expect_object();
  const std::vector<std::string> kernels = kernels_of(app.type);
  for (const auto& item : models.json().items()) {
    const std::string& name = item.key();
    auto model = models.at(name);
    if (app.type != ApplicationType::json && std::find(kernels.begin(), kernels.end(), name) == kernels.end()) {
      std::string list;
      for (const auto& k : kernels) list += (list.empty() ? "" : ", ") + k;
      model.fail("unknown kernel \"" + name + "\" for the " + std::string(to_string(app.type)) + " application; expected one of " + list);
    }
    model.expect_object();
    KernelModel m;
    auto file = model.at("file");
    std::filesystem::path path(file.as_string());
    if (path.is_relative() && !models.file().empty()) path = std::filesystem::path(models.file()).parent_path() / path;
    m.file = path.string();
    if (auto problem = input_file_problem(m.file, kMaxTraceFileBytes)) {
      file.fail("cannot open performance model \"" + m.file + "\": " + *problem);
    }
    if (auto size = model.find("size")) m.size = static_cast<std::uint64_t>(size->as_int(1, std::int64_t(1) << 62));
    auto device = PerfmodelDevice::cpu;
    if (auto d = model.find("device")) {
      const std::string text = d->as_choice({"cpu", "cuda", "opencl"});
      device = text == "cpu" ? PerfmodelDevice::cpu : text == "cuda" ? PerfmodelDevice::cuda : PerfmodelDevice::opencl;
    }
    model.finish();
    m.entries = read_perfmodel(m.file, device);
    p.kernel_models[name] = std::move(m);
  }
}

PlatformConfig read_platform(JsonReader reader, const ApplicationConfig& app) {
  PlatformConfig p;
  reader.expect_object();
  auto nodes = reader.at("nodes");
  p.nodes = read_count(nodes);
  if (p.nodes > kMaxNodes) {
    nodes.fail_expected("at most " + std::to_string(kMaxNodes) + " nodes (the largest machines have about 160000)");
  }
  if (auto cores = reader.find("cores_per_node")) {
    p.cores_per_node = read_count(*cores);
    if (p.cores_per_node > kMaxCoresPerNode) {
      cores->fail_expected("at most " + std::to_string(kMaxCoresPerNode) + " cores per node (each core has its runtime state)");
    }
  }
  if (auto network = reader.find("network")) p.network = read_network(*network);
  if (auto storage = reader.find("storage")) p.storage = read_storage(*storage);
  if (auto local = reader.find("local_storage")) p.local_storage = read_local_storage(*local);
  if (auto spares = reader.find("spares")) {
    p.spares = static_cast<std::uint32_t>(spares->as_int(0, 1 << 20));
    p.unlimited_spares = false;
  }
  if (auto on_no_spare = reader.find("on_no_spare")) {
    p.shrink_on_no_spare = on_no_spare->as_choice({"abort", "shrink"}) == "shrink";
    if (p.shrink_on_no_spare && p.unlimited_spares) {
      on_no_spare->fail("\"shrink\" applies once the spares are used up: set /platform/spares (0 for none); "
                        "without it a failed node's host comes back as a fresh machine");
    }
  }
  if (auto per_machine = reader.find("ranks_per_machine")) {
    p.ranks_per_machine = read_count(*per_machine);
    if (p.nodes % p.ranks_per_machine != 0) {
      per_machine->fail_expected("a divisor of /platform/nodes (" + std::to_string(p.nodes) +
                                 " ranks on machines of the same number of ranks), got " +
                                 std::to_string(p.ranks_per_machine));
    }
    if (p.ranks_per_machine > 1 && reader.find("xml")) {
      per_machine->fail("several ranks per machine need the generated platform (a platform file names one host per "
                        "node): remove /platform/xml or set ranks_per_machine to 1");
    }
  }
  if (auto group = reader.find("group_size")) {
    p.group_size = static_cast<std::uint32_t>(group->as_int(1, p.nodes));
    if (p.group_size % p.ranks_per_machine != 0) {
      group->fail_expected("a multiple of /platform/ranks_per_machine (" + std::to_string(p.ranks_per_machine) +
                           ": a group holds whole machines), got " + std::to_string(p.group_size));
    }
  }
  if (auto xml = reader.find("xml")) {
    p.xml = xml->as_string();
    std::filesystem::path path(p.xml);
    if (path.is_relative() && !reader.file().empty()) path = std::filesystem::path(reader.file()).parent_path() / path;
    p.xml = path.string();
    check_platform_file(*xml, p.xml, p);
    if (p.network.contention == Contention::nic) {
      reader.at("network").at("contention").fail(
          "\"nic\" models the links of the generated star or cluster: a platform file's routes may share links, "
          "which only \"flows\" simulates");
    }
  }
  if (auto models = reader.find("kernel_models")) read_kernel_models(*models, app, p);
  if (auto speeds = reader.find("core_gflops")) {
    if (speeds->is_number()) {
      p.default_core_gflops = speeds->as_positive_number();
    } else {
      speeds->expect_object();
      std::vector<std::string> kernels = kernels_of(app.type);
      std::vector<std::string> allowed = kernels;
      allowed.push_back("default");
      for (const auto& item : speeds->json().items()) {
        const std::string& name = item.key();
        bool known = is_graph_file(app.type) ||
                     std::find(allowed.begin(), allowed.end(), name) != allowed.end();
        if (!known) {
          std::string message = "unknown kernel \"" + name + "\" for the " +
                                std::string(to_string(app.type)) + " application";
          if (auto hint = closest_match(name, allowed)) message += " (did you mean \"" + *hint + "\"?)";
          std::string list;
          for (const auto& k : allowed) list += (list.empty() ? "" : ", ") + k;
          throw ConfigError(speeds->file(), speeds->pointer() + "/" + escape_pointer_token(name),
                            message + "; expected one of " + list);
        }
        double gflops = speeds->at(name).as_positive_number();
        if (name == "default") {
          p.default_core_gflops = gflops;
        } else {
          p.core_gflops[name] = gflops;
        }
      }
      if (!p.default_core_gflops) {
        for (const auto& kernel : kernels) {
          if (!p.core_gflops.count(kernel) && !p.kernel_models.count(kernel)) {
            speeds->fail("no speed for kernel \"" + kernel +
                         "\" and no \"default\"; give every kernel a speed or add \"default\"");
          }
        }
      }
    }
  }
  reader.finish();
  return p;
}

// With several ranks per machine (block placement), a rank and its buddy on one machine would
// fail together and lose the only copy of the checkpoint: refused ("next" is built apart).
void check_buddies_apart(JsonReader& reader, const BuddyConfig& b, const PlatformConfig& p, std::uint32_t q) {
  const std::uint32_t k = p.ranks_per_machine;
  if (k == 1 || b.kind == BuddyKind::next) return;
  std::vector<std::uint32_t> buddies;
  for (std::uint32_t n = 0; n < p.nodes; ++n) {
    buddies.clear();
    b.append_buddies(n, p.nodes, q, buddies);
    for (std::uint32_t buddy : buddies) {
      if (buddy / k == n / k) {
        reader.fail("node " + std::to_string(n) + " and its buddy " + std::to_string(buddy) + " run on the same machine " +
                    std::to_string(n / k) + " (/platform/ranks_per_machine = " + std::to_string(k) +
                    ", machine m runs ranks m*k .. m*k+k-1): they would fail together; use \"next\" (the next machine) "
                    "or a list of buddies on other machines");
      }
    }
  }
}

BuddyConfig read_buddy(JsonReader reader, const DistributionConfig& distribution,
                       std::uint32_t nodes) {
  BuddyConfig b;
  if (reader.is_array()) {
    b.kind = BuddyKind::explicit_list;
    if (reader.size() != nodes) {
      reader.fail("expected one buddy entry per node (" + std::to_string(nodes) + "), got " +
                  std::to_string(reader.size()));
    }
    for (std::size_t node = 0; node < reader.size(); ++node) {
      auto entry = reader[node];
      std::vector<std::uint32_t> buddies;
      auto add = [&](JsonReader value) {
        auto buddy = static_cast<std::uint32_t>(value.as_int(0, nodes - 1));
        if (buddy == node) value.fail("node " + std::to_string(node) + " cannot be its own buddy");
        if (std::find(buddies.begin(), buddies.end(), buddy) != buddies.end()) {
          value.fail("buddy " + std::to_string(buddy) + " is listed twice for node " + std::to_string(node));
        }
        buddies.push_back(buddy);
      };
      if (entry.is_array()) {
        if (entry.size() == 0) entry.fail_expected("at least one buddy");
        for (std::size_t j = 0; j < entry.size(); ++j) add(entry[j]);
      } else {
        add(entry);
      }
      b.explicit_buddies.push_back(std::move(buddies));
    }
    return b;
  }
  std::string kind = reader.as_choice({"next", "next-in-row", "next-in-column"});
  if (nodes < 2) reader.fail("a buddy needs at least 2 nodes (a node cannot be its own buddy)");
  if (kind == "next") {
    b.kind = BuddyKind::next;
    return b;
  }
  if (distribution.type != DistributionType::block_cyclic) {
    reader.fail("\"" + kind + "\" follows the P x Q process grid and needs a block-cyclic distribution");
  }
  if (kind == "next-in-row") {
    if (distribution.Q < 2) reader.fail("\"next-in-row\" needs Q >= 2 (rows have a single node)");
    b.kind = BuddyKind::next_in_row;
  } else {
    if (distribution.P < 2) reader.fail("\"next-in-column\" needs P >= 2 (columns have a single node)");
    b.kind = BuddyKind::next_in_column;
  }
  return b;
}

// Fat-tree and torus zones have a fixed number of places: every host must find one, and the
// zone must not be so large that building it exhausts the machine.
void check_topology_size(JsonReader& root, const PlatformConfig& p) {
  if (!p.xml.empty()) return;
  if (p.network.topology != Topology::torus && p.network.topology != Topology::fat_tree) return;
  const std::uint64_t hosts = std::uint64_t(p.machines()) + (p.unlimited_spares ? 0 : p.spares) + p.storage.hosts + 1;
  const bool torus = p.network.topology == Topology::torus;
  JsonReader key = root.at("platform").at("network").at(torus ? "torus" : "fat_tree");
  const TopologySize size = topology_size(p.network, hosts);
  if (size.places < hosts) {
    key.fail("the topology has " + std::to_string(size.places) + " places for " + std::to_string(hosts) +
             " hosts (nodes + spares + storage servers + 1 coordinator)");
  }
  if (size.places > kMaxTopologyPlaces || size.switches > kMaxTopologyPlaces) {
    key.fail("expected at most " + std::to_string(kMaxTopologyPlaces) + " " + (torus ? "places" : "leaves and switches") +
             " (each is a SimGrid object; ftsim needs one place per host, here " + std::to_string(hosts) + "), got " +
             (size.places > kMaxTopologyPlaces ? std::to_string(size.places) + (torus ? " places" : " leaves")
                                               : std::to_string(size.switches) + " switches") +
             (size.places >= (std::uint64_t(1) << 62) || size.switches >= (std::uint64_t(1) << 62) ? " or more" : ""));
  }
}

}  // namespace

std::string count_limit_message(std::uint64_t iterations, std::uint64_t count) {
  return "expected at most " + std::to_string(iterations < 2 ? 0 : iterations - 2) + " checkpoints for " +
         std::to_string(iterations) + " outer iterations (checkpoint i follows iteration floor(i*NT/(C+1)); more would put " +
         "the last one after the final iteration; \"every\": 1 places one after each iteration), got " + std::to_string(count);
}

namespace {

CheckpointConfig read_checkpoint(JsonReader reader, const Config& config) {
  CheckpointConfig c;
  c.pointer = reader.where();
  reader.expect_object();
  std::string placement = reader.one_of({"every", "count"});
  auto iterations = outer_iterations(config.application);
  if (placement == "every") {
    c.placement = CutPlacement::every;
    auto every = reader.at("every");
    c.every = read_count(every);
  } else {
    c.placement = CutPlacement::count;
    auto count = reader.at("count");
    c.count = read_count(count);
    if (iterations && std::uint64_t(c.count) + 2 > *iterations) {
      count.fail(count_limit_message(*iterations, c.count));
    }
  }
  if (auto buddy = reader.find("buddy")) {
    c.buddy = read_buddy(*buddy, config.distribution, config.platform.nodes);
    check_buddies_apart(*buddy, c.buddy, config.platform, config.distribution.Q);
  } else if (config.platform.nodes < 2) {
    reader.fail("a checkpoint buddy needs at least 2 nodes");
  }
  // "next" is the same rank of the next machine: a buddy on the rank's own machine would die with it.
  if (c.buddy.kind == BuddyKind::next) c.buddy.next_stride = config.platform.ranks_per_machine;
  if (c.buddy.kind == BuddyKind::next && config.platform.ranks_per_machine > 1 && config.platform.machines() < 2) {
    reader.fail("a checkpoint buddy needs at least 2 machines (/platform/ranks_per_machine puts every rank on one)");
  }
  reader.finish();
  return c;
}

ReferenceConfig read_reference(JsonReader reader) {
  ReferenceConfig r;
  reader.expect_object();
  r.source = reader.at("source").as_string();
  if (auto app = reader.find("application_bytes_per_node")) r.application_bytes_per_node = double(app->as_bytes());
  if (auto makespan = reader.find("makespan")) r.makespan = makespan->as_positive_seconds();
  if (auto volumes = reader.find("volumes")) {
    for (std::size_t i = 0; i < volumes->size(); ++i) {
      auto row = (*volumes)[i];
      row.expect_object();
      ReferenceVolumes v;
      v.checkpoints = read_count(row.at("checkpoints"));
      if (auto blind = row.find("blind")) v.blind = double(blind->as_bytes());
      if (auto differential = row.find("differential")) v.differential = double(differential->as_bytes());
      if (auto cached = row.find("cached")) v.cached = double(cached->as_bytes());
      row.finish();
      r.volumes.push_back(v);
    }
  }
  reader.finish();
  return r;
}

CheckpointDataConfig::ProfileOverride read_profile_override(JsonReader& reader) {
  CheckpointDataConfig::ProfileOverride o;
  if (auto zero = reader.find("zero_fraction")) o.zero_fraction = zero->as_number(0, 1);
  if (auto changed = reader.find("changed_fraction")) o.changed_fraction = changed->as_number(0, 1);
  if (auto ratio = reader.find("compression_ratio")) o.compression_ratio = ratio->as_number(1, 1e6);
  return o;
}

// /checkpoint_data (docs/configs.md#checkpoint_data): zero-block exclusion, incremental
// checkpoints and zstd compression of what the protocols save (Cores 2015, Ch. 2).
CheckpointDataConfig read_checkpoint_data(JsonReader reader) {
  CheckpointDataConfig c;
  reader.expect_object();
  c.enabled = true;
  if (auto zero = reader.find("zero_blocks")) c.zero_blocks = zero->as_bool();
  std::optional<std::uint64_t> block_size;
  auto check_block_size = [](JsonReader& at) {
    const std::uint64_t size = at.as_bytes();
    if (size < 64 || size > (std::uint64_t(1) << 30) || size % 8 != 0) {
      at.fail_expected("a block size from 64 B to 1 GiB, a multiple of 8 bytes");
    }
    return size;
  };
  if (auto size = reader.find("block_size")) block_size = check_block_size(*size);
  if (auto incremental = reader.find("incremental")) {
    if (incremental->is_object()) {
      c.incremental = true;
      if (auto size = incremental->find("block_size")) {
        const std::uint64_t inner = check_block_size(*size);
        if (block_size && *block_size != inner) {
          size->fail("differs from /checkpoint_data/block_size (" + std::to_string(*block_size) +
                     " B): give the block size once");
        }
        block_size = inner;
      }
      if (auto every = incremental->find("full_every")) c.full_every = static_cast<std::uint32_t>(every->as_int(1, 1000000));
      else c.full_every = 3;
      incremental->finish();
    } else {
      c.incremental = incremental->as_bool();
      if (c.incremental) c.full_every = 3;
    }
  }
  if (block_size) c.block_size = *block_size;
  if (auto compression = reader.find("compression")) c.zstd = compression->as_choice({"none", "zstd"}) == "zstd";
  if (auto level = reader.find("level")) {
    if (!c.zstd) level->fail("a compression level needs \"compression\": \"zstd\"");
    c.level = static_cast<int>(level->as_int(1, 22));
  }
  if (auto profile = reader.find("profile")) {
    profile->expect_object();
    c.profile_pointer = profile->pointer();
    c.profile_all = read_profile_override(*profile);
    if (auto families = profile->find("families")) {
      families->expect_object();
      for (const auto& [name, value] : families->json().items()) {
        JsonReader family = families->at(name);
        family.expect_object();
        c.profile_families[name] = read_profile_override(family);
        family.finish();
      }
      families->finish();
    }
    profile->finish();
  }
  if (auto throughput = reader.find("throughput")) {
    throughput->expect_object();
    if (auto hash = throughput->find("hash")) c.hash_throughput = hash->as_bandwidth();
    if (auto compress = throughput->find("compress")) c.compress_throughput = compress->as_bandwidth();
    if (auto decompress = throughput->find("decompress")) c.decompress_throughput = decompress->as_bandwidth();
    throughput->finish();
  }
  if (!c.zero_blocks && !c.incremental && !c.zstd) {
    reader.fail("nothing to do: set \"zero_blocks\": true, \"incremental\" or \"compression\": \"zstd\" (or remove the section)");
  }
  reader.finish();
  return c;
}

}  // namespace

Config load_config_json(const Json& document, const std::string& origin) {
  Config config;
  config.file = origin;
  // Presets stand for their keys (platform_presets.hpp); the document is echoed as written.
  const Json expanded = with_platform_presets(document, origin);
  JsonReader root(expanded, origin);
  root.expect_object();
  // A sweep config is many configs: each of its points is one (sim/sweep/sweep_plan.cpp).
  if (auto sweep = root.find("sweep")) {
    sweep->fail("a config with a sweep section is run by `ftsim sweep` (docs/sweeps.md); `ftsim sweep CONFIG --list-json` gives its points' configs");
  }
  if (auto name = root.find("name")) {
    config.name = name->as_string();
    if (config.name.empty()) name->fail_expected("a non-empty name");
  } else {
    config.name = origin.empty() ? "config" : std::filesystem::path(origin).stem().string();
  }
  if (auto description = root.find("description")) config.description = description->as_string();
  if (auto seed = root.find("seed")) config.seed = static_cast<std::uint64_t>(seed->as_int(0));
  // Editors may point at configs/schema/ftsim.schema.json.
  if (auto schema = root.find("$schema")) schema->as_string();

  config.application = read_application(root.at("application"), origin);
  config.platform = read_platform(root.at("platform"), config.application);
  config.distribution = read_distribution(root.find("distribution"), config.application,
                                          config.platform.nodes);
  check_topology_size(root, config.platform);
  if (auto checkpoints = root.find("checkpoints")) {
    if (checkpoints->is_array()) {
      if (checkpoints->size() == 0) checkpoints->fail_expected("at least one checkpoint placement");
      for (std::size_t i = 0; i < checkpoints->size(); ++i) {
        config.checkpoints.push_back(read_checkpoint((*checkpoints)[i], config));
      }
    } else {
      config.checkpoints.push_back(read_checkpoint(*checkpoints, config));
    }
  }
  if (auto reference = root.find("reference")) config.reference = read_reference(*reference);
  if (auto failures = root.find("failures")) config.failures = read_failures(*failures, config.platform.nodes, config.platform.group_size, config.seed, origin);
  // A process failure restarts the process in place: one rank per machine, kept on its host.
  {
    const FailureConfig& f = config.failures;
    bool process = f.class_shares[std::size_t(FailureClass::process)] > 0;
    for (const FailureEvent& e : f.events) process = process || e.kind == FailureClass::process;
    if (process && (config.platform.ranks_per_machine > 1 || config.platform.shrink_on_no_spare)) {
      root.at("platform").at(config.platform.ranks_per_machine > 1 ? "ranks_per_machine" : "on_no_spare").fail(
          "a process failure restarts the process in place on its machine: not supported with several ranks per "
          "machine or a shrink (/failures has process failures)");
    }
  }
  // Proactive migration moves a rank to a spare host: with unlimited spares the platform has none.
  if (config.failures.prediction && config.platform.unlimited_spares) {
    root.at("failures").at("prediction").fail(
        "proactive migration moves a rank to a spare host, and the platform has none: set /platform/spares "
        "(each migration, and each replacement after a failure, uses one)");
  }
  // A migration moves one rank to one spare host; a machine of several ranks would need them all moved.
  if (config.failures.prediction && config.platform.ranks_per_machine > 1) {
    root.at("platform").at("ranks_per_machine").fail(
        "proactive migration (/failures/prediction) moves one rank to a spare host: it is not supported with several "
        "ranks per machine");
  }
  // SimGrid 3.32's IB model forgets only finished transfers: one cancelled by a failure keeps
  // penalizing its nodes, and a later lone transfer of theirs takes twice as long.
  if (config.platform.network.model == NetworkModel::ib && config.failures.model != FailureModel::none) {
    root.at("platform").at("network").at("model").fail(
        "the \"IB\" model cannot be used with failures: SimGrid keeps counting the transfers they cancel in its "
        "contention penalties; use \"SMPI\" (the same factors, no contention penalties)");
  }
  if (auto protocol = root.find("protocol")) {
    config.protocol = read_protocol(*protocol);
  }
  if (auto data = root.find("checkpoint_data")) config.checkpoint_data = read_checkpoint_data(*data);
  if (auto run = root.find("run")) config.run = read_run(*run);
  config.document = document;
  root.finish();
  return config;
}

Config load_config(const std::string& path) { return load_config_json(read_json_file(path), path); }

Config load_config(const std::string& path, const std::vector<ConfigOverride>& overrides, void (*check)(const Config&)) {
  Json document = read_json_file(path);
  apply_overrides(document, overrides);
  try {
    Config config = load_config_json(document, path);
    if (check) check(config);
    return config;
  } catch (const ConfigError& e) {
    throw name_override(e, overrides, path);
  }
}

const char* to_string(ApplicationType type) {
  switch (type) {
    case ApplicationType::cholesky: return "cholesky";
    case ApplicationType::stencil: return "stencil";
    case ApplicationType::cg: return "cg";
    case ApplicationType::spmd: return "spmd";
    case ApplicationType::json: return "json";
    case ApplicationType::wfformat: return "wfformat";
    case ApplicationType::dot: return "dot";
  }
  return "?";
}

const char* to_string(CholeskyOrder order) {
  return order == CholeskyOrder::column ? "column" : "triangle";
}

const char* to_string(SpmdPattern pattern) {
  switch (pattern) {
    case SpmdPattern::ring: return "ring";
    case SpmdPattern::halo2d: return "halo2d";
    case SpmdPattern::alltoall: return "alltoall";
    case SpmdPattern::tree: return "tree";
    case SpmdPattern::nas_mg: return "nas-mg";
    case SpmdPattern::nas_lu: return "nas-lu";
    case SpmdPattern::nas_ft: return "nas-ft";
    case SpmdPattern::nas_cg: return "nas-cg";
    case SpmdPattern::nas_bt: return "nas-bt";
  }
  return "?";
}

const char* to_string(DistributionType type) {
  switch (type) {
    case DistributionType::block_cyclic: return "block-cyclic";
    case DistributionType::block: return "block";
    case DistributionType::explicit_map: return "explicit";
  }
  return "?";
}

const char* to_string(BuddyKind kind) {
  switch (kind) {
    case BuddyKind::next: return "next";
    case BuddyKind::next_in_row: return "next-in-row";
    case BuddyKind::next_in_column: return "next-in-column";
    case BuddyKind::explicit_list: return "explicit";
  }
  return "?";
}

const char* to_string(Precision precision) {
  return precision == Precision::single_precision ? "single" : "double";
}

}  // namespace ftsim::config
