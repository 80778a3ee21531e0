#pragma once
// Wire encoding of control messages: what a protocol sends to another process is bytes, as it
// would be on MPI. These are the primitives; a protocol's typed messages list their fields once
// and are written and read through them by sim/node/codec.hpp. A message that does not decode is
// a protocol bug, reported as such (WireError), never read as garbage. Little-endian fixed-width
// integers, length-prefixed arrays.
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/node/content.hpp"

namespace ftsim::node {

// Encoded bytes. `content_bytes` of them are the real content of versions (written by
// WireWriter::content, only the MPI backend has any) and the framing of nested arrays: they are
// not protocol fields, so a message's simulated size leaves them out (the protocol states the
// size of the data a message stands for separately). Sizes are then the same on every backend.
struct Bytes : std::vector<std::uint8_t> {
  using std::vector<std::uint8_t>::vector;
  std::uint64_t content_bytes = 0;
  // What the simulated size of a message counts of these bytes.
  std::uint64_t encoded_size() const { return size() - content_bytes; }
};

// An immutable encoded buffer that control messages share by reference (Message::parts): a
// message that forwards what it received (an all-gather's blocks) carries the same buffer instead
// of a copy. It is still part of every message that carries it: it counts in the simulated size
// exactly as WireWriter::bytes would count it inline (8 + encoded_size()), and the MPI backend
// sends its bytes. Never modified once shared.
using SharedBytes = std::shared_ptr<const Bytes>;
inline std::uint64_t inline_size(const Bytes& part) { return 8 + part.encoded_size(); }

struct WireError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class WireWriter {
public:
  explicit WireWriter(Bytes& out) : out_(out) {}
  void u8(std::uint8_t value) { out_.push_back(value); }
  void u8s(const std::uint8_t* values, std::size_t n) { put(values, n); }  // n bytes, no length
  void reserve(std::size_t more) { out_.reserve(out_.size() + more); }
  void u32(std::uint32_t value) { put(&value, sizeof value); }
  void u64(std::uint64_t value) { put(&value, sizeof value); }
  void f64(double value) { put(&value, sizeof value); }
  void bytes(const Bytes& value) {
    u64(value.size());
    u64(value.content_bytes);  // framing, not counted: see Bytes
    if (!value.empty()) put(value.data(), value.size());
    out_.content_bytes += 8 + value.content_bytes;
  }
  // The real content of a version, or none (a simulation): framing and data are not counted.
  void content(const Content* value) {
    const std::uint64_t size = value ? value->size() : 0;
    u64(value ? size + 1 : 0);
    if (size > 0) put(value->data(), size);
    out_.content_bytes += 8 + size;
  }

private:
  void put(const void* data, std::size_t size) {
    const std::size_t at = out_.size();
    out_.resize(at + size);
    std::memcpy(out_.data() + at, data, size);  // x86 and ARM hosts are little-endian
  }
  Bytes& out_;
};

class WireReader {
public:
  WireReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  explicit WireReader(const Bytes& bytes) : WireReader(bytes.data(), bytes.size()) {}
  std::uint8_t u8() {
    std::uint8_t value;
    get(&value, 1);
    return value;
  }
  void u8s(std::uint8_t* values, std::size_t n) { get(values, n); }  // n bytes, no length
  std::uint32_t u32() {
    std::uint32_t value;
    get(&value, sizeof value);
    return value;
  }
  std::uint64_t u64() {
    std::uint64_t value;
    get(&value, sizeof value);
    return value;
  }
  double f64() {
    double value;
    get(&value, sizeof value);
    return value;
  }
  Bytes bytes() {
    const std::uint64_t size = u64();
    const std::uint64_t content_bytes = u64();
    if (size > size_ - offset_) throw WireError("control message truncated: an array of " + std::to_string(size) + " bytes");
    if (content_bytes > size) throw WireError("control message corrupt: more content than bytes in an array");
    Bytes value(data_ + offset_, data_ + offset_ + size);
    value.content_bytes = content_bytes;
    offset_ += size;
    return value;
  }
  ContentRef content() {
    const std::uint64_t tag = u64();
    if (tag == 0) return nullptr;
    const std::uint64_t size = tag - 1;
    if (size > size_ - offset_) throw WireError("control message truncated: a content of " + std::to_string(size) + " bytes");
    auto value = std::make_shared<Content>(data_ + offset_, data_ + offset_ + size);
    offset_ += size;
    return value;
  }
  // Array lengths are checked against what is left before anything is allocated.
  std::uint64_t count(std::size_t item_bytes) {
    const std::uint64_t n = u64();
    if (item_bytes > 0 && n > (size_ - offset_) / item_bytes) throw WireError("control message truncated: a count of " + std::to_string(n));
    return n;
  }
  std::size_t left() const { return size_ - offset_; }
  bool done() const { return offset_ == size_; }
  void expect_done() const {
    if (!done()) throw WireError("control message has " + std::to_string(size_ - offset_) + " bytes left over");
  }

private:
  void get(void* out, std::size_t size) {
    if (size > size_ - offset_) throw WireError("control message truncated");
    std::memcpy(out, data_ + offset_, size);
    offset_ += size;
  }
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t offset_ = 0;
};

}  // namespace ftsim::node
