// bench/content_profile: what the applications' data look like to a block-based checkpoint
// (/checkpoint_data), measured on their real kernels (graphs/apps/kernels), and the throughputs of the
// block logic on this machine. The simulation's defaults (graphs/apps/data_profiles.cpp) and
// throughputs (protocols/checkpoint_content.hpp) come from its output (docs/checkpoint-data.md).
//
//   build/bench/ftsim_content_profile [--block-size BYTES] [--level L] CONFIG...
//
// For each config it runs the task graph sequentially (tasks in submission order, which is a
// topological order) on real buffers from the job's input, and for every version of every handle
// (the input, then each write) it measures, per family of handles, weighted by bytes:
//  - zero fraction: blocks that are all zeros;
//  - changed fraction: blocks a write changes (xxHash of each block against the previous version);
//  - compression ratio: the non-zero blocks' bytes over their zstd size (level L).
// It prints a table and the C++ rows of data_profiles.cpp, then one core's throughput (CPU time of
// the thread, so that other work on the machine does not count) of XXH3-64 with the zero test,
// zstd compression and decompression over all the versions it saw.
#include <xxhash.h>
#include <zstd.h>

#include <ctime>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "graphs/application.hpp"
#include "protocols/registry.hpp"
#include "graphs/apps/kernels/kernels.hpp"

using namespace ftsim;

namespace {

struct FamilyTotals {
  double versions = 0, bytes = 0;
  double blocks = 0, zero_blocks = 0;
  double write_blocks = 0, changed_blocks = 0;  // over writes: blocks, and those the write changed
  double stored = 0, compressed = 0;            // non-zero blocks, and their zstd size
};

struct Speed {
  double bytes = 0, seconds = 0;
  double rate() const { return seconds > 0 ? bytes / seconds : 0; }
};

// CPU time of this thread: throughputs of one core, whatever else runs on the machine.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

struct Profiler {
  std::uint64_t block = 8192;
  int level = 3;
  Speed hash, compress, decompress;

  // Blocks of a buffer: hashes and zero flags.
  void blocks_of(const graphs::kernels::Buffer& buffer, std::vector<std::uint64_t>& hashes, std::vector<char>& zero) {
    const std::uint64_t n = (buffer.size() + block - 1) / block;
    hashes.resize(n);
    zero.resize(n);
    const double start = cpu_seconds();
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint8_t* data = buffer.data() + i * block;
      const std::uint64_t length = std::min<std::uint64_t>(block, buffer.size() - i * block);
      hashes[i] = XXH3_64bits(data, length);
      bool z = true;
      for (std::uint64_t k = 0; k < length && z; k += 8) {
        std::uint64_t word = 0;
        std::memcpy(&word, data + k, std::min<std::uint64_t>(8, length - k));
        z = word == 0;
      }
      zero[i] = z ? 1 : 0;
    }
    hash.seconds += cpu_seconds() - start;
    hash.bytes += double(buffer.size());
  }

  // One version of a handle: zero blocks, compression of the others, and what changed since `before`.
  void measure(FamilyTotals& t, const graphs::kernels::Buffer& buffer, const graphs::kernels::Buffer* before) {
    std::vector<std::uint64_t> hashes, old_hashes;
    std::vector<char> zero, old_zero;
    blocks_of(buffer, hashes, zero);
    t.versions += 1;
    t.bytes += double(buffer.size());
    t.blocks += double(hashes.size());
    std::vector<std::uint8_t> stored;
    for (std::size_t i = 0; i < hashes.size(); ++i) {
      if (zero[i]) {
        t.zero_blocks += 1;
        continue;
      }
      const std::uint64_t at = i * block, length = std::min<std::uint64_t>(block, buffer.size() - at);
      stored.insert(stored.end(), buffer.begin() + static_cast<std::ptrdiff_t>(at), buffer.begin() + static_cast<std::ptrdiff_t>(at + length));
    }
    if (!stored.empty()) {
      std::vector<std::uint8_t> out(ZSTD_compressBound(stored.size()));
      double start = cpu_seconds();
      const std::size_t size = ZSTD_compress(out.data(), out.size(), stored.data(), stored.size(), level);
      compress.seconds += cpu_seconds() - start;
      compress.bytes += double(stored.size());
      if (ZSTD_isError(size)) throw std::runtime_error("zstd failed");
      std::vector<std::uint8_t> back(stored.size());
      start = cpu_seconds();
      ZSTD_decompress(back.data(), back.size(), out.data(), size);
      decompress.seconds += cpu_seconds() - start;
      decompress.bytes += double(stored.size());
      t.stored += double(stored.size());
      t.compressed += double(size);
    }
    if (before) {
      blocks_of(*before, old_hashes, old_zero);
      t.write_blocks += double(hashes.size());
      for (std::size_t i = 0; i < hashes.size(); ++i) {
        if (i >= old_hashes.size() || old_hashes[i] != hashes[i]) t.changed_blocks += 1;
      }
    }
  }
};

int run(int argc, char** argv) {
  Profiler profiler;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--block-size" && i + 1 < argc) {
      profiler.block = std::stoull(argv[++i]);
    } else if (arg == "--level" && i + 1 < argc) {
      profiler.level = std::stoi(argv[++i]);
    } else {
      files.push_back(arg);
    }
  }
  if (files.empty()) {
    std::cerr << "usage: ftsim_content_profile [--block-size BYTES] [--level L] CONFIG...\n";
    return 2;
  }
  std::vector<std::string> rows;
  fmt::print("{:<28} {:<8} {:>8} {:>10} {:>8} {:>9} {:>8}\n", "config", "family", "versions", "bytes", "zero", "changed",
             "ratio");
  for (const std::string& file : files) {
    const config::Config config = protocols::load_config(file);
    const graphs::TaskGraph graph = graphs::build_application(config);
    const auto kernels = graphs::kernels::KernelSet::make(config, graph);
    std::vector<graphs::kernels::Buffer> current(graph.handle_count());
    std::map<std::string, FamilyTotals> families;
    for (graphs::HandleId h = 0; h < graph.handle_count(); ++h) {
      current[h].assign(graph.bytes(h), 0);
      kernels->initial(h, current[h]);
      profiler.measure(families[graph.handle_family(h)], current[h], nullptr);  // the job's input
    }
    for (graphs::TaskId t = 0; t < graph.task_count(); ++t) {
      const auto accesses = graph.accesses(t);
      std::vector<graphs::kernels::Buffer> buffers(accesses.size());
      std::vector<std::span<std::uint8_t>> spans;
      for (std::size_t i = 0; i < accesses.size(); ++i) {
        const graphs::Access& a = accesses[i];
        buffers[i] = a.mode == graphs::AccessMode::W ? graphs::kernels::Buffer(graph.bytes(a.handle), 0) : current[a.handle];
        spans.emplace_back(buffers[i]);
      }
      kernels->execute(t, spans, 0.0);
      for (std::size_t i = 0; i < accesses.size(); ++i) {
        const graphs::Access& a = accesses[i];
        if (!graphs::writes(a.mode)) continue;
        profiler.measure(families[graph.handle_family(a.handle)], buffers[i], &current[a.handle]);
        current[a.handle] = std::move(buffers[i]);
      }
    }
    for (const auto& [family, t] : families) {
      const double zero = t.blocks > 0 ? t.zero_blocks / t.blocks : 0;
      const double changed = t.write_blocks > 0 ? t.changed_blocks / t.write_blocks : 1;
      // zstd's frame costs more than a datum of a few bytes saves (scalars): at least 1.
      const double ratio = t.compressed > 0 ? std::max(1.0, t.stored / t.compressed) : 1;
      fmt::print("{:<28} {:<8} {:>8} {:>10} {:>8.4f} {:>9.4f} {:>8.3f}\n", config.name, family, t.versions, t.bytes, zero,
                 changed, ratio);
      const bool box = config.application.type == config::ApplicationType::cg && config.application.cg.box_radius > 0;
      rows.push_back(fmt::format("    {{config::ApplicationType::{}, {}, \"{}\", {{{:.4f}, {:.4f}, {:.3f}}}}},  // {}",
                                 config::to_string(config.application.type), box ? "true" : "false", family, zero, changed,
                                 ratio, config.name));
    }
  }
  fmt::print("\ndata_profiles.cpp rows (block {} B, zstd level {}):\n", profiler.block, profiler.level);
  for (const auto& row : rows) fmt::print("{}\n", row);
  fmt::print("\nthroughputs of one core: XXH3-64 + zero test {:.3g} B/s, zstd -{} compress {:.3g} B/s, decompress {:.3g} B/s\n",
             profiler.hash.rate(), profiler.level, profiler.compress.rate(), profiler.decompress.rate());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "ftsim_content_profile: " << e.what() << "\n";
    return 1;
  }
}
