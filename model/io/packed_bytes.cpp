#include "model/io/packed_bytes.h"

#include <zlib.h>

#include <memory>
#include <openssl/evp.h>

namespace servescope {
namespace {

// Base64 in blocks, so no single OpenSSL call sees more than an int's worth of bytes.
constexpr std::size_t kBase64Block = std::size_t{3} << 20;  // a multiple of 3 (and, encoded, of 4)

std::string base64(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4 + 1);
  std::string block;
  for (std::size_t at = 0; at < bytes.size(); at += kBase64Block) {
    const auto n = std::min(kBase64Block, bytes.size() - at);
    block.resize((n + 2) / 3 * 4 + 1);
    const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(block.data()),
                                        reinterpret_cast<const unsigned char*>(bytes.data() + at), static_cast<int>(n));
    out.append(block.data(), static_cast<std::size_t>(written));
  }
  return out;
}

std::string from_base64(const JsonCursor& where, std::string_view text) {
  if (text.size() % 4 != 0) where.fail("packed data is not base64: its length is not a multiple of 4");
  std::string out;
  out.reserve(text.size() / 4 * 3);
  std::string block;
  const std::size_t encoded_block = kBase64Block / 3 * 4;
  for (std::size_t at = 0; at < text.size(); at += encoded_block) {
    const auto n = std::min(encoded_block, text.size() - at);
    block.resize(n / 4 * 3);
    const int got = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(block.data()),
                                    reinterpret_cast<const unsigned char*>(text.data() + at), static_cast<int>(n));
    if (got < 0)
      where.fail("packed data is not base64 (a character other than A-Z a-z 0-9 + / = near offset " +
                 std::to_string(at) + ")");
    // EVP_DecodeBlock counts padding as zero bytes; only the last block may have any.
    auto size = static_cast<std::size_t>(got);
    if (at + n == text.size())
      for (std::size_t k = 1; k <= 2 && text[text.size() - k] == '='; ++k)
        --size;
    out.append(block.data(), size);
  }
  return out;
}

}  // namespace

std::string pack_bytes(std::string_view raw) {
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  // Not zeroed: the bound is the raw size and more, and zeroing touched every page of it (192 MiB
  // for a large timeline), while deflated rows take a tenth of that.
  const auto deflated = std::make_unique_for_overwrite<Bytef[]>(size);
  // Level 6, zlib's default: on timelines level 9 packs 2 % smaller and takes 3x as long.
  if (compress2(deflated.get(), &size, reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()),
                Z_DEFAULT_COMPRESSION) != Z_OK)
    throw Error("could not deflate " + std::to_string(raw.size()) + " bytes (out of memory)");
  return base64(std::string_view(reinterpret_cast<const char*>(deflated.get()), size));
}

std::string unpack_bytes(const JsonCursor& text, std::uint64_t expected_bytes, std::uint64_t max_bytes) {
  if (expected_bytes > max_bytes)
    text.fail("packed data declares " + std::to_string(expected_bytes) + " bytes; at most " +
              std::to_string(max_bytes) + " are read");
  // Not as_string(): that bounds names and labels, and packed text is as long as its tables.
  if (!text.value().is_string()) text.fail("expected a string of packed data, got " + describe_json(text.value()));
  const auto deflated = from_base64(text, text.value().get_ref<const std::string&>());
  std::string out(static_cast<std::size_t>(expected_bytes), '\0');
  z_stream z{};
  if (inflateInit(&z) != Z_OK) throw Error("could not start inflating packed data (out of memory)");
  const std::unique_ptr<z_stream, int (*)(z_stream*)> end(&z, inflateEnd);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(deflated.data()));
  z.avail_in = static_cast<uInt>(deflated.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  // One more byte of room than declared, so a stream that holds more is caught, not cut.
  char spare = 0;
  int rc = inflate(&z, Z_FINISH);
  if (rc == Z_BUF_ERROR && z.avail_out == 0) {
    z.next_out = reinterpret_cast<Bytef*>(&spare);
    z.avail_out = 1;
    rc = inflate(&z, Z_FINISH);
    if (z.avail_out == 0)
      text.fail("packed data holds more than the " + std::to_string(expected_bytes) + " bytes it declares");
  }
  if (rc != Z_STREAM_END) {
    if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT)
      text.fail(std::string("packed data is not a zlib stream (") + (z.msg ? z.msg : "corrupt") + ")");
    if (rc == Z_MEM_ERROR) throw Error("could not inflate packed data (out of memory)");
    text.fail("packed data ends early: " + std::to_string(z.total_out) + " of the " + std::to_string(expected_bytes) +
              " bytes it declares");
  }
  if (z.total_out != expected_bytes)
    text.fail("packed data holds " + std::to_string(z.total_out) + " bytes; it declares " +
              std::to_string(expected_bytes));
  if (z.avail_in != 0) text.fail("packed data has " + std::to_string(z.avail_in) + " bytes after its zlib stream");
  return out;
}

std::string unpack_head(const JsonCursor& text, std::size_t bytes) {
  if (!text.value().is_string()) return {};
  const auto& packed = text.value().get_ref<const std::string&>();
  constexpr std::size_t kHeadText = std::size_t{64} << 10;  // a multiple of 4
  std::string deflated;
  try {
    deflated = from_base64(text, std::string_view(packed).substr(0, std::min(packed.size() / 4 * 4, kHeadText)));
  } catch (const InputError&) {
    return {};
  }
  std::string out(bytes, '\0');
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return {};
  const std::unique_ptr<z_stream, int (*)(z_stream*)> end(&z, inflateEnd);
  z.next_in = reinterpret_cast<Bytef*>(deflated.data());
  z.avail_in = static_cast<uInt>(deflated.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  (void)inflate(&z, Z_SYNC_FLUSH);
  out.resize(z.total_out);
  return out;
}

bool VarintReader::has_varint() const {
  for (auto at = at_; at < bytes_.size(); ++at)
    if ((static_cast<std::uint8_t>(bytes_[at]) & 0x80) == 0) return true;
  return false;
}

std::uint64_t VarintReader::varint() {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (at_ >= bytes_.size()) fail("the packed tables end early");
    const auto byte = static_cast<std::uint8_t>(bytes_[at_++]);
    if (shift == 63 && byte > 1) fail("a packed number does not fit 64 bits");
    v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return v;
  }
  fail("a packed number does not fit 64 bits");
}

std::uint64_t VarintReader::varint_at_most(std::uint64_t hi, const char* what) {
  const auto at = at_;
  const auto v = varint();
  if (v > hi) {
    at_ = at;
    fail(std::string(what) + " is " + std::to_string(v) + ", over its limit of " + std::to_string(hi));
  }
  return v;
}

std::uint64_t VarintReader::count(std::uint64_t bytes_per_row, const char* what) {
  const auto n = varint();
  if (bytes_per_row > 0 && n > remaining() / bytes_per_row)
    fail(std::string("the packed tables declare ") + std::to_string(n) + " " + what + ", more than their " +
         std::to_string(remaining()) + " remaining bytes can hold");
  return n;
}

void VarintReader::fail(const std::string& why) const {
  where_.fail(why + " (unpacked byte " + std::to_string(at_) + " of " + std::to_string(whole_bytes_) + ")");
}

}  // namespace servescope
