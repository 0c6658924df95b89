// TCP for the live deployment, on POSIX sockets (no networking library in the engine): a
// listener bound to loopback unless told otherwise (an ephemeral port when asked for 0), and a
// connected stream that sends whole buffers and receives with a deadline, so a peer that stops
// answering is noticed (within 1 s: docs/protocol.md "Liveness and faults"). A stream may carry
// TLS (tls.h): every read and write below then goes through it. Errors throw LiveError naming the
// address and the system's reason.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace servescope::engine::live {

class LiveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The other side answered and said no (a wrong token, an unknown node): retrying will not help.
class RefusedError : public LiveError {
 public:
  using LiveError::LiveError;
};

class TlsContext;

class TcpStream {
 public:
  TcpStream();
  explicit TcpStream(int fd);
  TcpStream(TcpStream&& o) noexcept;
  TcpStream& operator=(TcpStream&& o) noexcept;
  TcpStream(const TcpStream&) = delete;
  TcpStream& operator=(const TcpStream&) = delete;
  ~TcpStream();

  // With `tls`, the TLS handshake too, all within `timeout` (see start_tls).
  static TcpStream connect(const std::string& host, std::uint16_t port, std::chrono::milliseconds timeout,
                           std::shared_ptr<const TlsContext> tls = nullptr);

  bool open() const { return fd_ >= 0; }

  // The server side of TLS: the handshake happens within the reads that follow. A client whose
  // first byte is not a TLS handshake's is plain TCP: the read throws PlainClientError, and the
  // stream stays plain, so the caller can refuse it in words it reads.
  void expect_tls(std::shared_ptr<const TlsContext> tls);
  // The client side: the handshake, within `timeout`. Throws LiveError saying why it failed (the
  // other side's certificate, its refusal of ours, a server without TLS).
  void start_tls(std::shared_ptr<const TlsContext> tls, std::chrono::milliseconds timeout);
  bool secure() const { return tls_ != nullptr; }
  // Decrypted bytes TLS holds that poll() cannot see: read them before waiting.
  bool pending() const;
  void send_all(std::span<const std::uint8_t> bytes);
  // Up to `max` bytes, waiting at most `timeout`: nullopt when nothing came in time, an empty
  // vector when the peer closed the connection.
  std::optional<std::vector<std::uint8_t>> receive(std::size_t max, std::chrono::milliseconds timeout);
  void close();

  // Non-blocking halves for event loops: how many bytes went out (0 when the socket's buffer is
  // full), and how many came in (0 when the peer closed; nullopt when nothing is there yet).
  // Both throw LiveError on a broken connection.
  std::size_t write_some(std::span<const std::uint8_t> bytes);
  std::optional<std::size_t> read_some(std::span<std::uint8_t> into);
  int native_handle() const { return fd_; }
  // This end's IPv4 address ("127.0.0.1" on loopback): where peers that reach us the same way
  // can reach a listener of ours.
  std::string local_address() const;
  // The other end's IPv4 address; empty when it is gone already.
  std::string peer_address() const;
  // What the other side's certificate says (TLS only; empty otherwise): the roles it is bound to
  // (certificates.h) and its subject's common name.
  std::vector<std::string> peer_roles() const;
  std::string peer_common_name() const;

 private:
  struct Tls;  // the connection's SSL, in tcp_socket.cpp
  int fd_ = -1;
  std::unique_ptr<Tls> tls_;
};

// A plain-TCP client on a TLS listener.
class PlainClientError : public LiveError {
 public:
  using LiveError::LiveError;
};

class TcpListener {
 public:
  // "127.0.0.1" unless another address is given; port 0 picks a free one (see port()).
  explicit TcpListener(std::uint16_t port, const std::string& address = "127.0.0.1");
  TcpListener(const TcpListener&) = delete;
  TcpListener& operator=(const TcpListener&) = delete;
  ~TcpListener();

  std::uint16_t port() const { return port_; }
  // A connection, or nullopt when none came within `timeout`.
  std::optional<TcpStream> accept(std::chrono::milliseconds timeout);
  int native_handle() const { return fd_; }

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
};

}  // namespace servescope::engine::live
