// Binary tables inside JSON documents (docs/formats.md "Packed tables"). A kept run's timeline
// holds hundreds of thousands of rows; as JSON rows a 20 s run took 141 MB of project and half a
// gigabyte to open. Packed, its columns are varint deltas, deflated (zlib) and base64-encoded
// into one JSON string, so the project stays one atomic, readable file and a reader that does
// not look at the rows never decodes them.
//
// Reading is for untrusted text: the unpacked size is declared, bounded and checked, every
// varint is bounded, and each failure is an InputError naming the file and the JSON path.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "model/core/error.h"
#include "model/io/json_cursor.h"

namespace servescope {

// Deflates `raw` and encodes it as base64.
std::string pack_bytes(std::string_view raw);
// Decodes and inflates the string at `text`, which must unpack to exactly `expected_bytes`, at
// most `max_bytes`. Fails at `text` otherwise.
std::string unpack_bytes(const JsonCursor& text, std::uint64_t expected_bytes, std::uint64_t max_bytes);
// The first bytes the string at `text` unpacks to, at most `bytes` of them, and fewer when they
// are not within its first 64 KiB or it is not packed data at all (unpack_bytes says why): for
// the counts at the head of a table, checked before a reader inflates the rest.
std::string unpack_head(const JsonCursor& text, std::size_t bytes);

// Appends unsigned LEB128 varints; zigzag for signed values (deltas). (The live protocol's
// fixed-width fields are engine/live/byte_codec.h.)
class VarintWriter {
 public:
  void varint(std::uint64_t v) {
    while (v >= 0x80) {
      bytes_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    bytes_.push_back(static_cast<char>(v));
  }
  void signed_varint(std::int64_t v) {
    varint((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63));
  }
  void raw(std::string_view text) { bytes_.append(text); }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// Reads what VarintWriter wrote; each failure names `where` (the packed string) and the offset.
class VarintReader {
 public:
  // `whole_bytes`: the size of what `bytes` is the head of, for messages.
  VarintReader(std::string_view bytes, const JsonCursor& where, std::size_t whole_bytes = 0)
      : bytes_(bytes), whole_bytes_(std::max(whole_bytes, bytes.size())), where_(where) {}
  // Whether a whole varint follows.
  bool has_varint() const;
  std::uint64_t varint();
  std::int64_t signed_varint() {
    const auto u = varint();
    return static_cast<std::int64_t>(u >> 1) ^ -static_cast<std::int64_t>(u & 1);
  }
  // A varint that must be at most `hi`; `what` names it in the message.
  std::uint64_t varint_at_most(std::uint64_t hi, const char* what);
  // A row count whose rows take at least `bytes_per_row` each, so a count the remaining bytes
  // cannot hold is refused before anything is reserved for it.
  std::uint64_t count(std::uint64_t bytes_per_row, const char* what);
  std::size_t remaining() const { return bytes_.size() - at_; }
  [[noreturn]] void fail(const std::string& why) const;

 private:
  std::string_view bytes_;
  std::size_t whole_bytes_;
  std::size_t at_ = 0;
  const JsonCursor& where_;
};

}  // namespace servescope
