#include "engine/live/tcp_socket.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

namespace servescope::engine::live {
namespace {

[[noreturn]] void fail(const std::string& what) {
  throw LiveError(what + ": " + std::strerror(errno));
}

sockaddr_in address_of(const std::string& host, std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  if (inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1)
    throw LiveError("'" + host + "' is not an IPv4 address (e.g. 127.0.0.1)");
  return a;
}

// Waits for `events` on `fd`; false on timeout.
bool wait_for(int fd, short events, std::chrono::milliseconds timeout) {
  pollfd p{fd, events, 0};
  for (;;) {
    const int r = ::poll(&p, 1, static_cast<int>(timeout.count()));
    if (r > 0) return true;
    if (r == 0) return false;
    if (errno != EINTR) fail("poll");
  }
}

}  // namespace

TcpStream& TcpStream::operator=(TcpStream&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

TcpStream::~TcpStream() {
  close();
}

void TcpStream::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

TcpStream TcpStream::connect(const std::string& host, std::uint16_t port, std::chrono::milliseconds timeout) {
  const auto to = address_of(host, port);
  TcpStream s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!s.open()) fail("socket");
  const auto where = host + ":" + std::to_string(port);
  if (::connect(s.fd_, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
    if (errno != EINPROGRESS) fail("cannot connect to " + where);
    if (!wait_for(s.fd_, POLLOUT, timeout)) throw LiveError("cannot connect to " + where + ": timed out");
    int error = 0;
    socklen_t len = sizeof error;
    ::getsockopt(s.fd_, SOL_SOCKET, SO_ERROR, &error, &len);
    if (error != 0) {
      errno = error;
      fail("cannot connect to " + where);
    }
  }
  const int one = 1;  // frames are small and latency matters more than packet count
  ::setsockopt(s.fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return s;
}

void TcpStream::send_all(std::span<const std::uint8_t> bytes) {
  while (!bytes.empty()) {
    const auto n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes = bytes.subspan(static_cast<std::size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_for(fd_, POLLOUT, std::chrono::milliseconds(1000))) throw LiveError("send: the peer stopped reading");
    } else if (n < 0 && errno != EINTR) {
      fail("send");
    }
  }
}

std::optional<std::vector<std::uint8_t>> TcpStream::receive(std::size_t max, std::chrono::milliseconds timeout) {
  if (!wait_for(fd_, POLLIN, timeout)) return std::nullopt;
  std::vector<std::uint8_t> buffer(max);
  for (;;) {
    const auto n = ::recv(fd_, buffer.data(), buffer.size(), 0);
    if (n >= 0) {
      buffer.resize(static_cast<std::size_t>(n));
      return buffer;  // empty: closed by the peer
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) return std::nullopt;
    if (errno == ECONNRESET) return std::vector<std::uint8_t>{};
    if (errno != EINTR) fail("recv");
  }
}

namespace {

// The IPv4 address getsockname or getpeername gives for `fd`, or `fallback`.
std::string address_of(int fd, int (*get)(int, sockaddr*, socklen_t*), const char* fallback) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  char text[INET_ADDRSTRLEN] = "";
  if (get(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0 && a.sin_family == AF_INET &&
      ::inet_ntop(AF_INET, &a.sin_addr, text, sizeof text))
    return text;
  return fallback;
}

}  // namespace

std::string TcpStream::local_address() const {
  return address_of(fd_, ::getsockname, "127.0.0.1");
}

std::string TcpStream::peer_address() const {
  return address_of(fd_, ::getpeername, "");
}

std::size_t TcpStream::write_some(std::span<const std::uint8_t> bytes) {
  for (;;) {
    const auto n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    if (errno != EINTR) fail("send");
  }
}

std::optional<std::size_t> TcpStream::read_some(std::span<std::uint8_t> into) {
  for (;;) {
    const auto n = ::recv(fd_, into.data(), into.size(), 0);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno == EAGAIN || errno == EWOULDBLOCK) return std::nullopt;
    if (errno == ECONNRESET) return 0;
    if (errno != EINTR) fail("recv");
  }
}

TcpListener::TcpListener(std::uint16_t port, const std::string& address) {
  const auto at = address_of(address, port);
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd_ < 0) fail("socket");
  const int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const auto where = address + ":" + std::to_string(port);
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&at), sizeof at) != 0) {
    const int e = errno;
    ::close(fd_);
    errno = e;
    fail("cannot listen on " + where);
  }
  if (::listen(fd_, 128) != 0) {
    const int e = errno;
    ::close(fd_);
    errno = e;
    fail("listen on " + where);
  }
  sockaddr_in bound{};
  socklen_t len = sizeof bound;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&bound), &len);
  port_ = ntohs(bound.sin_port);
}

TcpListener::~TcpListener() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<TcpStream> TcpListener::accept(std::chrono::milliseconds timeout) {
  if (!wait_for(fd_, POLLIN, timeout)) return std::nullopt;
  const int fd = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED) return std::nullopt;
    fail("accept");
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return TcpStream(fd);
}

}  // namespace servescope::engine::live
