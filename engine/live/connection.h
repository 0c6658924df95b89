// One framed live connection inside an event loop: the socket, the decoder of what comes in,
// the encoder and an output buffer for what goes out, and when the peer was last heard from.
// Nothing blocks: the owner polls native_handle() (for writing too while wants_write()), then
// calls receive() and flush(). The scheduler, workers, load generator and GUI client share it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/live/tcp_socket.h"
#include "engine/live/wire_format.h"

namespace servescope::engine::live {

using SteadyTime = std::chrono::steady_clock::time_point;

// Linux lets a sleeping thread wake up to 50 µs late by default (timer slack), which a data plane
// dispatching at the latest moment turns straight into missed deadlines; the live processes ask
// for 1 µs.
void use_fine_timer_slack();

class Connection {
 public:
  Connection(TcpStream stream, FrameDecoder decoder, FrameEncoder encoder);

  // Queues a frame; it leaves on the next flush().
  void send(FrameType type, std::span<const std::uint8_t> payload);
  void send(FrameType type, std::string_view payload);
  // Queues a frame whose payload is `head` followed by `body` (a feature map's header and bytes),
  // copied straight into the output buffer.
  void send(FrameType type, std::span<const std::uint8_t> head, std::span<const std::uint8_t> body);
  // Queues raw bytes (a preamble).
  void send_raw(std::span<const std::uint8_t> bytes);
  // Writes what the socket takes now. Throws LiveError on a broken connection.
  void flush();
  bool wants_write() const { return sent_ < out_.size(); }
  std::size_t buffered() const { return out_.size() - sent_; }

  // Reads what arrived and appends whole frames to `frames`. False when the peer closed the
  // connection or its bytes broke the protocol (then error() says why; empty for a plain close).
  bool receive(std::vector<Frame>& frames);
  const std::string& error() const { return error_; }

  int native_handle() const { return stream_.native_handle(); }
  bool secure() const { return stream_.secure(); }
  const TcpStream& stream() const { return stream_; }
  // The largest frame accepted from now on (small until a peer is welcomed).
  void set_max_frame_bytes(std::uint32_t bytes) { decoder_.set_max_frame_bytes(bytes); }
  SteadyTime last_heard() const { return last_heard_; }
  SteadyTime last_sent() const { return last_sent_; }
  std::uint64_t bytes_in() const { return bytes_in_; }
  // Whether the peer has sent anything yet, read or still waiting in the socket.
  bool heard_anything() const;
  std::uint64_t bytes_out() const { return bytes_out_; }
  // Sends what is buffered, waiting at most `timeout` for a slow peer (a last refusal).
  void drain(std::chrono::milliseconds timeout);
  void close() { stream_.close(); }

 private:
  TcpStream stream_;
  FrameDecoder decoder_;
  FrameEncoder encoder_;
  std::vector<std::uint8_t> out_;
  std::size_t sent_ = 0;
  std::string error_;
  SteadyTime last_heard_, last_sent_;
  std::uint64_t bytes_in_ = 0, bytes_out_ = 0;

  void compact();
};

}  // namespace servescope::engine::live
