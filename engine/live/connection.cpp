#include "engine/live/connection.h"

#include <poll.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <array>

namespace servescope::engine::live {

void use_fine_timer_slack() {
#ifdef __linux__
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
}

Connection::Connection(TcpStream stream, FrameDecoder decoder, FrameEncoder encoder)
    : stream_(std::move(stream)),
      decoder_(std::move(decoder)),
      encoder_(std::move(encoder)),
      last_heard_(std::chrono::steady_clock::now()),
      last_sent_(last_heard_) {}

void Connection::send(FrameType type, std::span<const std::uint8_t> payload) {
  send(type, payload, {});
}

void Connection::send(FrameType type, std::string_view payload) {
  send(type, std::span(reinterpret_cast<const std::uint8_t*>(payload.data()), payload.size()), {});
}

void Connection::send(FrameType type, std::span<const std::uint8_t> head, std::span<const std::uint8_t> body) {
  // Into the buffer directly: a frame made apart first cost a fresh allocation of its size and
  // a page fault per page of it, per frame (feature maps: megabytes each).
  compact();
  encoder_.append(out_, type, head, body);
}

void Connection::send_raw(std::span<const std::uint8_t> bytes) {
  compact();
  out_.insert(out_.end(), bytes.begin(), bytes.end());
}

void Connection::compact() {
  // Once what was sent is most of the buffer, so it does not grow without bound.
  if (sent_ > 0 && sent_ >= out_.size() / 2) {
    out_.erase(out_.begin(), out_.begin() + static_cast<std::ptrdiff_t>(sent_));
    sent_ = 0;
  }
}

void Connection::flush() {
  while (sent_ < out_.size()) {
    const auto n = stream_.write_some(std::span(out_).subspan(sent_));
    if (n == 0) return;
    sent_ += n;
    bytes_out_ += n;
    last_sent_ = std::chrono::steady_clock::now();
  }
  out_.clear();
  sent_ = 0;
}

bool Connection::receive(std::vector<Frame>& frames) {
  std::array<std::uint8_t, std::size_t{64} * 1024> buffer;
  for (int reads = 0; reads < 16; ++reads) {  // bounded: one busy peer must not starve the rest
    std::optional<std::size_t> n;
    try {
      n = stream_.read_some(buffer);
    } catch (const LiveError& e) {
      error_ = e.what();
      return false;
    }
    if (!n) return true;
    if (*n == 0) return false;
    bytes_in_ += *n;
    last_heard_ = std::chrono::steady_clock::now();
    decoder_.feed(std::span(buffer).first(*n), frames);
    if (decoder_.failed()) {
      error_ = decoder_.error_text();
      return false;
    }
    if (*n < buffer.size()) return true;
  }
  return true;
}

bool Connection::heard_anything() const {
  if (bytes_in_ > 0) return true;
  pollfd p{native_handle(), POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

void Connection::drain(std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (wants_write() && std::chrono::steady_clock::now() < until) {
    flush();
    if (!wants_write()) break;
    pollfd p{native_handle(), POLLOUT, 0};
    ::poll(&p, 1, 10);
  }
}

}  // namespace servescope::engine::live
