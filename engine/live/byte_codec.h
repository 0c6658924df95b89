// Little-endian fixed-width fields for the live protocol's binary payloads (docs/protocol.md).
// The writer appends to a byte vector; the reader walks a payload and throws ProtocolError
// naming the field when the payload is shorter than its fields say, so a malformed frame from
// a peer ends that connection with a reason instead of reading past the buffer.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/live/tcp_socket.h"

namespace servescope::engine::live {

class ProtocolError : public LiveError {
 public:
  using LiveError::LiveError;
};

class ByteWriter {
 public:
  explicit ByteWriter(std::vector<std::uint8_t>& out) : out_(out) {}
  void u8(std::uint8_t v) { out_.push_back(v); }
  void u16(std::uint16_t v) { put(v, 2); }
  void u32(std::uint32_t v) { put(v, 4); }
  void u64(std::uint64_t v) { put(v, 8); }
  void i64(std::int64_t v) { put(static_cast<std::uint64_t>(v), 8); }
  void text(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    out_.insert(out_.end(), s.begin(), s.end());
  }

 private:
  void put(std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i)
      out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  std::vector<std::uint8_t>& out_;
};

class ByteReader {
 public:
  ByteReader(std::span<const std::uint8_t> bytes, std::string_view what) : bytes_(bytes), what_(what) {}
  std::uint8_t u8(const char* field) { return static_cast<std::uint8_t>(get(1, field)); }
  std::uint16_t u16(const char* field) { return static_cast<std::uint16_t>(get(2, field)); }
  std::uint32_t u32(const char* field) { return static_cast<std::uint32_t>(get(4, field)); }
  std::uint64_t u64(const char* field) { return get(8, field); }
  std::int64_t i64(const char* field) { return static_cast<std::int64_t>(get(8, field)); }
  std::string text(const char* field) {
    const auto n = u32(field);
    need(n, field);
    std::string s(reinterpret_cast<const char*>(bytes_.data() + at_), n);
    at_ += n;
    return s;
  }
  // A count of records of `record_bytes` each that follow: refused when the payload cannot hold
  // them, before anything is allocated for them.
  std::uint32_t count(std::size_t record_bytes, const char* field) {
    const auto n = u32(field);
    if (record_bytes > 0 && n > remaining() / record_bytes)
      throw ProtocolError(std::string(what_) + ": " + field + " says " + std::to_string(n) + " records but only " +
                          std::to_string(remaining()) + " bytes follow");
    return n;
  }
  std::size_t remaining() const { return bytes_.size() - at_; }
  bool done() const { return at_ == bytes_.size(); }
  void expect_end() const {
    if (!done())
      throw ProtocolError(std::string(what_) + ": " + std::to_string(remaining()) + " unexpected bytes at the end");
  }

 private:
  void need(std::size_t n, const char* field) const {
    if (remaining() < n)
      throw ProtocolError(std::string(what_) + " is cut short: " + field + " needs " + std::to_string(n) + " bytes, " +
                          std::to_string(remaining()) + " left");
  }
  std::uint64_t get(int n, const char* field) {
    need(static_cast<std::size_t>(n), field);
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i)
      v |= static_cast<std::uint64_t>(bytes_[at_ + static_cast<std::size_t>(i)]) << (8 * i);
    at_ += static_cast<std::size_t>(n);
    return v;
  }
  std::span<const std::uint8_t> bytes_;
  std::string_view what_;
  std::size_t at_ = 0;
};

}  // namespace servescope::engine::live
