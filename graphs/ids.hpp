#pragma once
// Dense integer ids of the task graph. Everything is indexed by these, struct-of-arrays.
#include <cstdint>
#include <limits>

namespace ftsim::graphs {

using TaskId = std::uint32_t;
using HandleId = std::uint32_t;
using NodeId = std::uint32_t;
using Version = std::uint32_t;  // 0 is the initial value; each write makes version v + 1
using KernelId = std::uint16_t;
using CutId = std::uint32_t;    // candidate checkpoint cuts, numbered from 1

inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

// Access modes as bit flags: RW = R | W.
enum class AccessMode : std::uint8_t { R = 1, W = 2, RW = 3 };

inline bool reads(AccessMode mode) { return (static_cast<std::uint8_t>(mode) & 1) != 0; }
inline bool writes(AccessMode mode) { return (static_cast<std::uint8_t>(mode) & 2) != 0; }
const char* to_string(AccessMode mode);

// One data access of a task. For R the version read; for W and RW the version written
// (an RW access reads version - 1).
// 8 bytes, not 12: a large graph holds tens of millions (330 MB against 220 MB for the 9.2 M-task
// Lion graph, memory that costs its first touch and is read at every task). A handle may have at
// most kMaxVersion versions (StfBuilder checks it).
struct Access {
  HandleId handle;
  Version version : 30;
  AccessMode mode : 2;
};
static_assert(sizeof(Access) == 8);
inline constexpr Version kMaxVersion = (Version{1} << 30) - 1;
inline Access make_access(HandleId handle, Version version, AccessMode mode) {
  Access a{};
  a.handle = handle;
  a.version = version;  // at most kMaxVersion: StfBuilder refuses more
  a.mode = mode;
  return a;
}

// What an application passes to StfBuilder::task().
struct AccessSpec {
  HandleId handle;
  AccessMode mode;
};
// The version an access reads: the one before it writes for RW, else its own.
inline Version version_read(const Access& a) { return a.mode == AccessMode::RW ? a.version - 1 : a.version; }

inline AccessSpec R(HandleId h) { return {h, AccessMode::R}; }
inline AccessSpec W(HandleId h) { return {h, AccessMode::W}; }
inline AccessSpec RW(HandleId h) { return {h, AccessMode::RW}; }

// Optional indices that make tasks and handles readable in exports ("GEMM(5,3,1)", "A[5][3]").
struct Label {
  std::int32_t a = -1, b = -1, c = -1;
};

}  // namespace ftsim::graphs
