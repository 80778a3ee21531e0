#pragma once
// The one convention for encoded messages (control messages, MPI packets): a message type lists
// its fields once, in wire order, in a member template, and both directions follow from that list:
//
//   struct Ack {
//     std::uint32_t checkpoint = 0;
//     bool duplicate = false;
//     template <class F> void fields(F& f) { f(checkpoint, duplicate); }
//   };
//   node::Bytes body = node::encode(ack);             // u32, u8
//   Ack back = node::decode<Ack>(message);            // WireError unless it is exactly that
//
// One struct standing for several message types (cck's and global's Control) lists its fields
// per type instead: `template <class F> void fields(F& f, std::uint32_t type)`. Decoding assigns
// the fields in list order, so a list may branch on a field listed before it (a flag, a session).
// `fields` is not const so that one list serves both directions; the encoder only reads.
//
// Field kinds and their wire form (sim/node/wire.hpp):
//   bool                          u8, 0 or 1 (decoded: not 0)
//   integers of 1, 4 or 8 bytes   u8, u32, u64 (signed ones as their two's complement bits)
//   enums                         their underlying integer; bounded(e, n) refuses values >= n
//   double                        f64
//   Bytes, std::string            WireWriter::bytes
//   ContentRef                    WireWriter::content
//   SharedBytes                   as Bytes, inline (the MPI backend's Message::parts)
//   std::vector<T>                a u64 count, then the items; count32(v): a u32 count
//   std::array<T, N>              the N items, no count
//   std::pair<A, B>               first, then second
//   a struct with fields(f)       its fields, inline
//   a custom field                a type with write_to(Encoder&) const and read_from(Decoder&), for
//                                 a layout none of the above gives (cck's GATHER blocks, which
//                                 travel as the message's parts)
// The bytes are the simulated size of a control message: a field list is part of the protocol's
// timing (tests/unit/codec_test.cpp pins the layouts).
#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/node/message.hpp"
#include "sim/node/wire.hpp"

namespace ftsim::node {

// A list whose count is a u32 (the uncoordinated protocol's lists) instead of a u64.
template <class V> struct Count32 {
  V& items;
};
template <class V> Count32<V> count32(V& items) { return {items}; }

// An enum field whose decoded value must be below `limit` (no such enumerator otherwise).
template <class E> struct Bounded {
  E& value;
  std::uint64_t limit;
};
template <class E> Bounded<E> bounded(E& value, std::uint64_t limit) { return {value, limit}; }

namespace codec_detail {

template <class T> struct is_vector : std::false_type {};
template <class T> struct is_vector<std::vector<T>> : std::true_type {};
template <class T> struct is_array : std::false_type {};
template <class T, std::size_t N> struct is_array<std::array<T, N>> : std::true_type {};
template <class T> struct is_pair : std::false_type {};
template <class A, class B> struct is_pair<std::pair<A, B>> : std::true_type {};
template <class T> struct is_count32 : std::false_type {};
template <class V> struct is_count32<Count32<V>> : std::true_type {};
template <class T> struct is_bounded : std::false_type {};
template <class E> struct is_bounded<Bounded<E>> : std::true_type {};
template <class> inline constexpr bool unsupported = false;

// The fewest bytes an item takes, to refuse a count the rest of a message cannot hold before
// allocating it. A struct takes at least one byte (every one in use does).
template <class T> constexpr std::size_t min_size() {
  if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) return sizeof(T);
  else if constexpr (std::is_same_v<T, Bytes> || std::is_same_v<T, std::string> || std::is_same_v<T, SharedBytes>) return 16;
  else if constexpr (is_vector<T>::value || std::is_same_v<T, ContentRef>) return 8;
  else if constexpr (is_pair<T>::value) return min_size<typename T::first_type>() + min_size<typename T::second_type>();
  else if constexpr (is_array<T>::value) return std::tuple_size_v<T> * min_size<typename T::value_type>();
  else return 1;
}

}  // namespace codec_detail

class Encoder {
public:
  // `parts`: where a custom field puts the shared buffers that follow the body (null: none may).
  explicit Encoder(Bytes& out, std::vector<SharedBytes>* parts = nullptr) : wire_(out), parts_(parts) {}

  template <class... T> void operator()(const T&... values) { (write(values), ...); }
  // A part of the message (Message::parts), for a custom field.
  void part(SharedBytes bytes) {
    if (!parts_) throw std::logic_error("a message with parts is encoded with node::encode(message, type, parts)");
    parts_->push_back(std::move(bytes));
  }
  // The top-level message: fields(f, type) if it has a list per type.
  template <class T> void message(const T& value, std::uint32_t type) {
    T& fields_of = const_cast<T&>(value);  // fields() only reads through an Encoder
    if constexpr (requires { fields_of.fields(*this, type); }) fields_of.fields(*this, type);
    else fields_of.fields(*this);
  }

private:
  template <class T> void write(const T& value) {
    using namespace codec_detail;
    if constexpr (std::is_same_v<T, bool>) wire_.u8(value ? 1 : 0);
    else if constexpr (std::is_enum_v<T>) write(static_cast<std::underlying_type_t<T>>(value));
    else if constexpr (std::is_integral_v<T> && sizeof(T) == 1) wire_.u8(static_cast<std::uint8_t>(value));
    else if constexpr (std::is_integral_v<T> && sizeof(T) == 4) wire_.u32(static_cast<std::uint32_t>(value));
    else if constexpr (std::is_integral_v<T> && sizeof(T) == 8) wire_.u64(static_cast<std::uint64_t>(value));
    else if constexpr (std::is_same_v<T, double>) wire_.f64(value);
    else if constexpr (std::is_same_v<T, Bytes>) wire_.bytes(value);
    else if constexpr (std::is_same_v<T, std::string>) wire_.bytes(Bytes(value.begin(), value.end()));
    else if constexpr (std::is_same_v<T, ContentRef>) wire_.content(value.get());
    else if constexpr (std::is_same_v<T, SharedBytes>) wire_.bytes(*value);
    else if constexpr (is_vector<T>::value) {
      wire_.u64(value.size());
      for (const auto& item : value) write(item);
    } else if constexpr (is_count32<T>::value) {
      wire_.u32(static_cast<std::uint32_t>(value.items.size()));
      for (const auto& item : value.items) write(item);
    } else if constexpr (is_array<T>::value) {
      for (const auto& item : value) write(item);
    } else if constexpr (is_pair<T>::value) {
      write(value.first);
      write(value.second);
    } else if constexpr (is_bounded<T>::value) {
      write(value.value);
    } else if constexpr (requires { value.write_to(*this); }) {
      value.write_to(*this);
    } else if constexpr (requires(T& v) { v.fields(*this); }) {
      const_cast<T&>(value).fields(*this);  // fields() only reads through an Encoder
    } else {
      static_assert(unsupported<T>, "not a field kind of sim/node/codec.hpp");
    }
  }

  WireWriter wire_;
  std::vector<SharedBytes>* parts_;
};

class Decoder {
public:
  // `parts`: the shared buffers that followed the body (Message::parts), for a custom field.
  explicit Decoder(WireReader& in, const std::vector<SharedBytes>* parts = nullptr) : in_(in), parts_(parts) {}

  template <class... T> void operator()(T&&... values) { (read(values), ...); }
  // The next part of the message, for a custom field.
  SharedBytes part() {
    if (parts_left() == 0) throw WireError("control message truncated: a part is missing");
    return (*parts_)[next_part_++];
  }
  std::size_t parts_left() const { return parts_ ? parts_->size() - next_part_ : 0; }
  template <class T> void message(T& value, std::uint32_t type) {
    if constexpr (requires { value.fields(*this, type); }) value.fields(*this, type);
    else value.fields(*this);
  }

private:
  template <class T> void read(T& value) {
    using namespace codec_detail;
    if constexpr (std::is_same_v<T, bool>) value = in_.u8() != 0;
    else if constexpr (std::is_enum_v<T>) {
      std::underlying_type_t<T> raw;
      read(raw);
      value = static_cast<T>(raw);
    } else if constexpr (std::is_integral_v<T> && sizeof(T) == 1) value = static_cast<T>(in_.u8());
    else if constexpr (std::is_integral_v<T> && sizeof(T) == 4) value = static_cast<T>(in_.u32());
    else if constexpr (std::is_integral_v<T> && sizeof(T) == 8) value = static_cast<T>(in_.u64());
    else if constexpr (std::is_same_v<T, double>) value = in_.f64();
    else if constexpr (std::is_same_v<T, Bytes>) value = in_.bytes();
    else if constexpr (std::is_same_v<T, std::string>) {
      const Bytes bytes = in_.bytes();
      value.assign(bytes.begin(), bytes.end());
    } else if constexpr (std::is_same_v<T, ContentRef>) value = in_.content();
    else if constexpr (std::is_same_v<T, SharedBytes>) value = std::make_shared<const Bytes>(in_.bytes());
    else if constexpr (is_vector<T>::value) {
      read_items(value, in_.u64());
    } else if constexpr (is_count32<T>::value) {
      read_items(value.items, in_.u32());
    } else if constexpr (is_array<T>::value) {
      for (auto& item : value) read(item);
    } else if constexpr (is_pair<T>::value) {
      read(value.first);
      read(value.second);
    } else if constexpr (is_bounded<T>::value) {
      std::underlying_type_t<std::remove_reference_t<decltype(value.value)>> raw;
      read(raw);
      if (static_cast<std::uint64_t>(raw) >= value.limit) {
        throw WireError("control message corrupt: no enumerator " + std::to_string(static_cast<std::uint64_t>(raw)));
      }
      value.value = static_cast<std::remove_reference_t<decltype(value.value)>>(raw);
    } else if constexpr (requires { value.read_from(*this); }) {
      value.read_from(*this);
    } else if constexpr (requires { value.fields(*this); }) {
      value.fields(*this);
    } else {
      static_assert(unsupported<T>, "not a field kind of sim/node/codec.hpp");
    }
  }
  template <class V> void read_items(V& items, std::uint64_t count) {
    constexpr std::size_t item_bytes = codec_detail::min_size<typename V::value_type>();
    if (count > in_.left() / item_bytes) throw WireError("control message truncated: a count of " + std::to_string(count));
    items.resize(count);
    for (auto& item : items) read(item);
  }

  WireReader& in_;
  const std::vector<SharedBytes>* parts_;
  std::size_t next_part_ = 0;
};

// Appends the fields of `value` to `out` (an MPI packet after its kind, a list of entries).
template <class T> void append(Bytes& out, const T& value) {
  static_assert(requires(T& v, Encoder& e) { v.fields(e); }, "a list per type: node::encode(message, type)");
  Encoder(out).message(value, 0);
}

// The encoded body of a message. `type`: for a struct with a field list per type; `parts`: where
// the shared buffers of a message that has some go (they follow the body: Message::parts).
// Most messages fit in one first allocation (which also keeps GCC 12 from a false -Warray-bounds
// on the growth of a small buffer).
inline constexpr std::size_t kFirstAllocation = 64;
template <class T> Bytes encode(const T& message) {
  Bytes out;
  out.reserve(kFirstAllocation);
  append(out, message);
  return out;
}
template <class T> Bytes encode(const T& message, std::uint32_t type, std::vector<SharedBytes>* parts = nullptr) {
  Bytes out;
  out.reserve(kFirstAllocation);
  Encoder(out, parts).message(message, type);
  return out;
}

// Reads a value's fields from `in` and leaves what follows.
template <class T> T read(WireReader& in) {
  static_assert(requires(T& v, Decoder& d) { v.fields(d); }, "a list per type: node::decode<T>(body, type)");
  T value{};
  Decoder(in).message(value, 0);
  return value;
}

// A whole body, and nothing more: WireError otherwise (a protocol bug).
template <class T> T decode(const Bytes& body, std::uint32_t type = 0) {
  WireReader in(body);
  T value{};
  Decoder(in).message(value, type);
  in.expect_done();
  return value;
}

// A control message of type T: its body (for its control type) and its parts, all of them.
template <class T> T decode(const Message& m) {
  WireReader in(m.body);
  Decoder decoder(in, &m.parts);
  T value{};
  decoder.message(value, m.control_type);
  in.expect_done();
  if (decoder.parts_left() != 0) {
    throw WireError("control message has " + std::to_string(decoder.parts_left()) + " parts left over");
  }
  return value;
}

}  // namespace ftsim::node
