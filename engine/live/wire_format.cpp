#include "engine/live/wire_format.h"

#include <algorithm>

namespace servescope::engine::live {
namespace {

void put_u16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v & 0xff));
  out.push_back(static_cast<std::uint8_t>(v >> 8));
}

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8)
    out.push_back(static_cast<std::uint8_t>((v >> shift) & 0xff));
}

std::uint32_t get_u32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

}  // namespace

std::string_view to_string(FrameType type) {
  switch (type) {
    case FrameType::Hello:
      return "hello";
    case FrameType::Welcome:
      return "welcome";
    case FrameType::Refused:
      return "refused";
    case FrameType::Heartbeat:
      return "heartbeat";
    case FrameType::Control:
      return "control";
    case FrameType::Events:
      return "events";
    case FrameType::Request:
      return "request";
    case FrameType::Outcome:
      return "outcome";
    case FrameType::Batch:
      return "batch";
    case FrameType::BatchDone:
      return "batch-done";
    case FrameType::FeatureMap:
      return "feature-map";
  }
  return "?";
}

std::string_view to_string(WireError error) {
  switch (error) {
    case WireError::None:
      return "no error";
    case WireError::BadMagic:
      return "not a ServeScope connection (bad magic)";
    case WireError::BadVersion:
      return "another protocol version";
    case WireError::Oversized:
      return "frame larger than allowed";
    case WireError::UnknownType:
      return "unknown frame type";
    case WireError::OutOfOrder:
      return "frame out of order";
  }
  return "?";
}

std::vector<std::uint8_t> FrameEncoder::preamble() {
  std::vector<std::uint8_t> out(kMagic.begin(), kMagic.end());
  put_u16(out, kProtocolVersion);
  return out;
}

std::vector<std::uint8_t> FrameEncoder::encode(FrameType type, std::span<const std::uint8_t> payload) {
  std::vector<std::uint8_t> out;
  out.reserve(kHeaderBytes + payload.size());
  append(out, type, payload);
  return out;
}

void FrameEncoder::append(std::vector<std::uint8_t>& out, FrameType type, std::span<const std::uint8_t> head,
                          std::span<const std::uint8_t> body) {
  put_u32(out, static_cast<std::uint32_t>(head.size() + body.size()));
  out.push_back(static_cast<std::uint8_t>(type));
  put_u32(out, next_++);
  out.insert(out.end(), head.begin(), head.end());
  out.insert(out.end(), body.begin(), body.end());
}

std::vector<std::uint8_t> FrameEncoder::encode(FrameType type, std::string_view payload) {
  return encode(type,
                std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(payload.data()), payload.size()));
}

void FrameDecoder::fail(WireError error, std::uint64_t value) {
  error_ = error;
  error_value_ = value;
  buffer_.clear();
  at_ = 0;
}

std::string FrameDecoder::error_text() const {
  std::string text(to_string(error_));
  switch (error_) {
    case WireError::BadVersion:
      text += " (" + std::to_string(error_value_) + "; this side speaks " + std::to_string(kProtocolVersion) + ")";
      break;
    case WireError::Oversized:
      text += " (" + std::to_string(error_value_) + " bytes; at most " + std::to_string(max_) + ")";
      break;
    case WireError::UnknownType:
      text += " (" + std::to_string(error_value_) + ")";
      break;
    case WireError::OutOfOrder:
      text += " (got " + std::to_string(error_value_) + ", expected " + std::to_string(expected_sequence_) + ")";
      break;
    case WireError::BadMagic:
      // 0x16 opens a TLS handshake record: one of ours, started with certificates.
      if (error_value_ == 0x16)
        text += ": a TLS client, and this side runs without TLS (give it --tls-cert, --tls-key and --tls-ca)";
      break;
    default:
      break;
  }
  return text;
}

void FrameDecoder::feed(std::span<const std::uint8_t> bytes, std::vector<Frame>& out) {
  if (failed()) return;
  // Drop what earlier calls consumed before appending, so the buffer holds one partial frame.
  if (at_ > 0) {
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(at_));
    at_ = 0;
  }
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
  for (;;) {
    const std::size_t left = buffer_.size() - at_;
    const std::uint8_t* p = buffer_.data() + at_;
    if (!preamble_done_) {
      // Check the magic as soon as its bytes arrive: a stranger is refused without waiting.
      const std::size_t seen = std::min(left, kMagic.size());
      if (!std::equal(p, p + seen, kMagic.begin())) return fail(WireError::BadMagic, p[0]);
      if (left < kPreambleBytes) return;
      const auto version = static_cast<std::uint16_t>(p[kMagic.size()] | p[kMagic.size() + 1] << 8);
      if (version != kProtocolVersion) return fail(WireError::BadVersion, version);
      preamble_done_ = true;
      at_ += kPreambleBytes;
      continue;
    }
    if (left < kHeaderBytes) return;
    const std::uint32_t length = get_u32(p);
    const std::uint8_t type = p[4];
    const std::uint32_t sequence = get_u32(p + 5);
    // Refuse on the header alone: an oversized frame is never buffered.
    if (length > max_) return fail(WireError::Oversized, length);
    if (type == 0 || type > kLastFrameType) return fail(WireError::UnknownType, type);
    if (sequence != expected_sequence_) return fail(WireError::OutOfOrder, sequence);
    if (left < kHeaderBytes + length) return;
    Frame frame;
    frame.type = static_cast<FrameType>(type);
    frame.sequence = sequence;
    frame.payload.assign(p + kHeaderBytes, p + kHeaderBytes + length);
    out.push_back(std::move(frame));
    ++expected_sequence_;
    at_ += kHeaderBytes + length;
  }
}

bool tokens_equal(std::string_view a, std::string_view b) {
  // Compare every byte of the longer one whatever matched so far.
  const std::size_t n = std::max(a.size(), b.size());
  unsigned diff = a.size() == b.size() ? 0u : 1u;
  for (std::size_t i = 0; i < n; ++i) {
    const auto x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0u;
    const auto y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0u;
    diff |= x ^ y;
  }
  return diff == 0;
}

}  // namespace servescope::engine::live
