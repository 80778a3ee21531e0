// BackgroundPrefault: the pages it is given become resident without their owner touching them,
// an owner that fills its array meanwhile keeps what it wrote, and destroying it mid-work stops
// its thread.
#include <catch2/catch.hpp>

#include <sys/mman.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "graphs/background_prefault.hpp"

using ftsim::graphs::BackgroundPrefault;

namespace {

constexpr std::size_t kBytes = std::size_t(64) << 20;

// Whether the kernel knows MADV_POPULATE_WRITE (Linux 5.14): without it the owner faults its pages.
bool kernel_populates() {
  void* probe = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  const bool known = madvise(probe, 4096, MADV_POPULATE_WRITE) == 0 || errno != EINVAL;
  munmap(probe, 4096);
  return known;
}

// Resident 4 KiB pages of a mapping.
std::size_t resident_pages(void* data, std::size_t bytes) {
  std::vector<unsigned char> flags(bytes / 4096);
  REQUIRE(mincore(data, bytes, flags.data()) == 0);
  std::size_t resident = 0;
  for (unsigned char f : flags) resident += f & 1;
  return resident;
}

}  // namespace

TEST_CASE("a queued range becomes resident while its owner does nothing") {
  if (!kernel_populates()) {
    WARN("this kernel does not know MADV_POPULATE_WRITE: nothing to check");
    return;
  }
  void* data = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(data != MAP_FAILED);
  madvise(data, kBytes, MADV_NOHUGEPAGE);  // 4 KiB pages: mincore then counts every page
  CHECK(resident_pages(data, kBytes) == 0);
  {
    BackgroundPrefault prefault;
    prefault.add(data, kBytes);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (resident_pages(data, kBytes) < kBytes / 4096 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  CHECK(resident_pages(data, kBytes) == kBytes / 4096);
  // Populated, not written: the pages read as zeros.
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::size_t nonzero = 0;
  for (std::size_t i = 0; i < kBytes; i += 4096) nonzero += bytes[i] != 0;
  CHECK(nonzero == 0);
  munmap(data, kBytes);
}

TEST_CASE("an array filled while its pages are faulted in keeps every value") {
  for (int round = 0; round < 3; ++round) {
    std::vector<std::uint32_t> values;
    BackgroundPrefault prefault;
    values.reserve(kBytes / sizeof(std::uint32_t));
    prefault.add(values);
    REQUIRE(values.capacity() >= kBytes / sizeof(std::uint32_t));
    for (std::uint32_t i = 0; i < kBytes / sizeof(std::uint32_t); ++i) values.push_back(i * 2654435761u);
    std::size_t wrong = 0;
    for (std::uint32_t i = 0; i < values.size(); ++i) wrong += values[i] != i * 2654435761u;
    CHECK(wrong == 0);
  }
}

TEST_CASE("destroying it mid-work stops its thread at once") {
  void* data = mmap(nullptr, std::size_t(1) << 30, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  REQUIRE(data != MAP_FAILED);
  const auto start = std::chrono::steady_clock::now();
  {
    BackgroundPrefault prefault;
    prefault.add(data, std::size_t(1) << 30);
  }
  // One 2 MiB step at most after the destructor asks it to stop, not the whole gigabyte.
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(500));
  CHECK(resident_pages(data, std::size_t(1) << 30) < (std::size_t(1) << 30) / 4096 / 2);
  munmap(data, std::size_t(1) << 30);
}

TEST_CASE("ranges under 2 MiB and null ranges are left to their owner") {
  constexpr std::size_t small = std::size_t(1) << 20;
  void* data = mmap(nullptr, small, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(data != MAP_FAILED);
  {
    BackgroundPrefault prefault;
    prefault.add(nullptr, kBytes);
    prefault.add(data, small);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(resident_pages(data, small) == 0);
  munmap(data, small);
}
