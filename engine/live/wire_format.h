// The live deployment's wire format (docs/protocol.md; the anchors' framing, docs gui-anchors §2):
// every connection starts with a preamble (magic "SSCOPE", protocol version), then carries frames
// of a fixed 9-byte little-endian header (payload length, type, per-direction sequence number) and
// the payload. The decoder is a state machine fed whatever bytes arrived; it refuses a bad
// magic, another version, an oversized or unknown frame and a sequence number out of order, and
// stops there (the connection is then closed with the reason). Qt-free: the daemons, the GUI
// and the fuzz target share it. docs/protocol.md describes the format.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace servescope::engine::live {

inline constexpr std::array<std::uint8_t, 6> kMagic{'S', 'S', 'C', 'O', 'P', 'E'};
inline constexpr std::uint16_t kProtocolVersion = 2;
inline constexpr std::size_t kPreambleBytes = kMagic.size() + 2;
inline constexpr std::size_t kHeaderBytes = 4 + 1 + 4;
inline constexpr std::uint32_t kDefaultMaxFrameBytes = 16u << 20;  // 16 MiB of payload

enum class FrameType : std::uint8_t {
  Hello = 1,       // client → server: token, role, name (the first frame; nothing else before it)
  Welcome = 2,     // server → client: accepted
  Refused = 3,     // either way: why the connection ends
  Heartbeat = 4,   // either way, when idle: "still here"
  Control = 5,     // JSON commands and replies (plans, registration, …)
  Events = 6,      // scheduler → subscribers: a batch of run events
  Request = 7,     // load generator → scheduler: requests to serve
  Outcome = 8,     // scheduler → load generator: how requests ended
  Batch = 9,       // scheduler → worker: run this batch
  BatchDone = 10,  // worker → scheduler: it ran
  FeatureMap = 11  // worker → worker: a pipeline stage's output bytes
};
inline constexpr std::uint8_t kLastFrameType = 11;
std::string_view to_string(FrameType type);

struct Frame {
  FrameType type = FrameType::Heartbeat;
  std::uint32_t sequence = 0;
  std::vector<std::uint8_t> payload;
};

enum class WireError : std::uint8_t { None, BadMagic, BadVersion, Oversized, UnknownType, OutOfOrder };
std::string_view to_string(WireError error);

// Writes the preamble and frames; numbers the frames of its direction 0, 1, 2, …
class FrameEncoder {
 public:
  static std::vector<std::uint8_t> preamble();
  std::vector<std::uint8_t> encode(FrameType type, std::span<const std::uint8_t> payload);
  std::vector<std::uint8_t> encode(FrameType type, std::string_view payload);
  // Appends to `out` a frame whose payload is `head` followed by `body`, without making the
  // payload first: a feature map's megabytes are copied once, into the connection's buffer.
  void append(std::vector<std::uint8_t>& out, FrameType type, std::span<const std::uint8_t> head,
              std::span<const std::uint8_t> body = {});

 private:
  std::uint32_t next_ = 0;
};

class FrameDecoder {
 public:
  explicit FrameDecoder(std::uint32_t max_frame_bytes = kDefaultMaxFrameBytes) : max_(max_frame_bytes) {}
  // The limit for frames not yet begun (a connection that turns out to carry feature maps).
  void set_max_frame_bytes(std::uint32_t max_frame_bytes) { max_ = max_frame_bytes; }

  // Consumes `bytes`, appending every frame they complete to `out`. After an error it consumes
  // nothing more and error() says which.
  void feed(std::span<const std::uint8_t> bytes, std::vector<Frame>& out);
  WireError error() const { return error_; }
  std::string error_text() const;  // the error with the offending value, for Refused frames
  bool failed() const { return error_ != WireError::None; }
  // Bytes received that do not yet make a whole frame (a connection closing now was cut).
  std::size_t pending_bytes() const { return buffer_.size() - at_; }

 private:
  void fail(WireError error, std::uint64_t value);
  std::uint32_t max_;
  std::vector<std::uint8_t> buffer_;
  std::size_t at_ = 0;  // read position in buffer_
  bool preamble_done_ = false;
  std::uint32_t expected_sequence_ = 0;
  WireError error_ = WireError::None;
  std::uint64_t error_value_ = 0;
};

// A constant-time token comparison: how long it takes does not tell how much of a guess matched.
bool tokens_equal(std::string_view a, std::string_view b);

}  // namespace servescope::engine::live
