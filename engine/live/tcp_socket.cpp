#include "engine/live/tcp_socket.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <arpa/inet.h>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>

#include "engine/live/certificates.h"
#include "engine/live/tls.h"

namespace servescope::engine::live {
namespace {

[[noreturn]] void fail_errno(const std::string& what) {
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
    if (errno != EINTR) fail_errno("poll");
  }
}

// The first byte of a TLS handshake record (a ClientHello); ours start with the magic's 'S'.
constexpr std::uint8_t kTlsHandshakeRecord = 0x16;

}  // namespace

struct TcpStream::Tls {
  std::shared_ptr<const TlsContext> context;
  SSL* ssl = nullptr;  // null on a server's stream until its client's first byte
  ~Tls() { SSL_free(ssl); }

  void start(int fd, bool server) {
    ERR_clear_error();
    ssl = SSL_new(context->native());
    if (!ssl || SSL_set_fd(ssl, fd) != 1) throw LiveError("TLS: " + take_tls_errors("cannot start a session"));
    if (server) {
      // Mutual TLS: a client without a certificate of the deployment's CA is refused.
      SSL_set_verify(ssl, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
      SSL_set_accept_state(ssl);
    } else {
      SSL_set_connect_state(ssl);
    }
  }

  // Throws why the session failed, in words a person at either end can act on: RefusedError for
  // a certificate one side does not accept (trying again will not help), LiveError otherwise.
  [[noreturn]] void fail(int error) const {
    const long verify = SSL_get_verify_result(ssl);
    auto why = take_tls_errors(error == SSL_ERROR_SYSCALL ? std::strerror(errno) : "unknown reason");
    if (verify != X509_V_OK && why.find("certificate verify failed") != std::string::npos)
      throw RefusedError(std::string("TLS: the other side's certificate is not accepted: ") +
                         X509_verify_cert_error_string(verify) + " (checked against --tls-ca " + context->files().ca +
                         ")");
    if (why.find("alert") != std::string::npos)
      throw RefusedError("TLS: the other side refused our certificate or the handshake (" + why +
                         "; check --tls-cert " + context->files().cert + " against its --tls-ca)");
    throw LiveError("TLS: " + why);
  }

  // The other side went away without TLS's goodbye (a killed process, a plain server closing on us).
  static bool unexpected_eof(int error) {
    const auto e = ERR_peek_error();
    return (error == SSL_ERROR_SYSCALL && errno == 0 && e == 0) ||
           (error == SSL_ERROR_SSL && ERR_GET_REASON(e) == SSL_R_UNEXPECTED_EOF_WHILE_READING);
  }
};

TcpStream::TcpStream() = default;
TcpStream::TcpStream(int fd) : fd_(fd) {}
TcpStream::TcpStream(TcpStream&& o) noexcept : fd_(o.fd_), tls_(std::move(o.tls_)) {
  o.fd_ = -1;
}

TcpStream& TcpStream::operator=(TcpStream&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = o.fd_;
    tls_ = std::move(o.tls_);
    o.fd_ = -1;
  }
  return *this;
}

TcpStream::~TcpStream() {
  close();
}

void TcpStream::close() {
  if (tls_ && tls_->ssl && SSL_is_init_finished(tls_->ssl)) {
    SSL_shutdown(tls_->ssl);  // TLS's goodbye, if the socket takes it now; never waited for
    ERR_clear_error();
  }
  tls_.reset();
  if (fd_ >= 0) {
    // Closing with input unread sends a reset, which can overtake what went out last (a refusal,
    // a TLS alert) and leave the other side with "connection reset" instead of the reason: read
    // away what is there (a bounded amount) first.
    std::array<std::uint8_t, 4096> sink;
    for (int i = 0; i < 16 && ::recv(fd_, sink.data(), sink.size(), MSG_DONTWAIT) > 0; ++i) {
    }
    ::close(fd_);
  }
  fd_ = -1;
}

void TcpStream::expect_tls(std::shared_ptr<const TlsContext> tls) {
  tls_ = std::make_unique<Tls>();
  tls_->context = std::move(tls);
}

void TcpStream::start_tls(std::shared_ptr<const TlsContext> tls, std::chrono::milliseconds timeout) {
  tls_ = std::make_unique<Tls>();
  tls_->context = std::move(tls);
  tls_->start(fd_, false);
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    ERR_clear_error();
    errno = 0;
    const int r = SSL_connect(tls_->ssl);
    if (r == 1) return;
    const int error = SSL_get_error(tls_->ssl, r);
    if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !wait_for(fd_, error == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, left))
        throw LiveError("TLS handshake: no answer within " + std::to_string(timeout.count()) + " ms");
      continue;
    }
    if (Tls::unexpected_eof(error))
      throw LiveError(
          "TLS handshake: the other side closed the connection (does it run without TLS? then leave out --tls-*)");
    tls_->fail(error);
  }
}

bool TcpStream::pending() const {
  return tls_ && tls_->ssl && SSL_pending(tls_->ssl) > 0;
}

TcpStream TcpStream::connect(const std::string& host, std::uint16_t port, std::chrono::milliseconds timeout,
                             std::shared_ptr<const TlsContext> tls) {
  const auto started = std::chrono::steady_clock::now();
  const auto to = address_of(host, port);
  TcpStream s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!s.open()) fail_errno("socket");
  const auto where = host + ":" + std::to_string(port);
  if (::connect(s.fd_, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
    if (errno != EINPROGRESS) fail_errno("cannot connect to " + where);
    if (!wait_for(s.fd_, POLLOUT, timeout)) throw LiveError("cannot connect to " + where + ": timed out");
    int error = 0;
    socklen_t len = sizeof error;
    ::getsockopt(s.fd_, SOL_SOCKET, SO_ERROR, &error, &len);
    if (error != 0) {
      errno = error;
      fail_errno("cannot connect to " + where);
    }
  }
  const int one = 1;  // frames are small and latency matters more than packet count
  ::setsockopt(s.fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (tls) {
    const auto left = std::max(
        std::chrono::milliseconds(1),
        timeout - std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started));
    try {
      s.start_tls(std::move(tls), left);
    } catch (const RefusedError& e) {
      throw RefusedError(where + ": " + e.what());
    } catch (const LiveError& e) {
      throw LiveError(where + ": " + e.what());
    }
  }
  return s;
}

void TcpStream::send_all(std::span<const std::uint8_t> bytes) {
  while (!bytes.empty()) {
    const auto n = write_some(bytes);
    bytes = bytes.subspan(n);
    // TLS may need to read before it writes (a key update); either wakes the loop up.
    if (n == 0 && !wait_for(fd_, static_cast<short>(POLLOUT | (tls_ ? POLLIN : 0)), std::chrono::milliseconds(1000)))
      throw LiveError("send: the peer stopped reading");
  }
}

std::optional<std::vector<std::uint8_t>> TcpStream::receive(std::size_t max, std::chrono::milliseconds timeout) {
  if (!pending() && !wait_for(fd_, POLLIN, timeout)) return std::nullopt;
  std::vector<std::uint8_t> buffer(max);
  const auto n = read_some(buffer);
  if (!n) return std::nullopt;  // a part of a TLS record, or nothing after all
  buffer.resize(*n);
  return buffer;  // empty: closed by the peer
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

namespace {

std::string common_name_of(X509* cert) {
  char name[256] = "";
  if (cert && X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, name, sizeof name) < 0) return {};
  return name;
}

}  // namespace

std::vector<std::string> TcpStream::peer_roles() const {
  std::vector<std::string> roles;
  X509* cert = tls_ && tls_->ssl ? SSL_get0_peer_certificate(tls_->ssl) : nullptr;
  if (!cert) return roles;
  const std::string_view prefix = kRoleUriPrefix;
  auto* names = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; names && i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    if (n->type != GEN_URI) continue;
    const std::string_view uri(reinterpret_cast<const char*>(ASN1_STRING_get0_data(n->d.uniformResourceIdentifier)),
                               static_cast<std::size_t>(ASN1_STRING_length(n->d.uniformResourceIdentifier)));
    if (uri.starts_with(prefix)) roles.emplace_back(uri.substr(prefix.size()));
  }
  GENERAL_NAMES_free(names);
  // Certificates from gen-certs before the URI: bound by their common name.
  if (const auto cn = common_name_of(cert); roles.empty() && cn.starts_with("servescope-"))
    roles.push_back(cn.substr(std::string_view("servescope-").size()));
  return roles;
}

std::string TcpStream::peer_common_name() const {
  return common_name_of(tls_ && tls_->ssl ? SSL_get0_peer_certificate(tls_->ssl) : nullptr);
}

std::string TcpStream::local_address() const {
  return address_of(fd_, ::getsockname, "127.0.0.1");
}

std::string TcpStream::peer_address() const {
  return address_of(fd_, ::getpeername, "");
}

std::size_t TcpStream::write_some(std::span<const std::uint8_t> bytes) {
  if (tls_) {
    if (!tls_->ssl) return 0;  // a server's stream before its client's first byte: nothing to say yet
    ERR_clear_error();
    errno = 0;
    const int r = SSL_write(tls_->ssl, bytes.data(), static_cast<int>(std::min<std::size_t>(bytes.size(), INT_MAX)));
    if (r > 0) return static_cast<std::size_t>(r);
    const int error = SSL_get_error(tls_->ssl, r);
    if (error == SSL_ERROR_WANT_WRITE || error == SSL_ERROR_WANT_READ) return 0;
    tls_->fail(error);
  }
  for (;;) {
    const auto n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    if (errno != EINTR) fail_errno("send");
  }
}

std::optional<std::size_t> TcpStream::read_some(std::span<std::uint8_t> into) {
  for (;;) {
    if (tls_ && !tls_->ssl) {
      // A server's first read: a TLS client's first byte is a handshake record's.
      std::uint8_t first = 0;
      const auto n = ::recv(fd_, &first, 1, MSG_PEEK);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return std::nullopt;
      if (n < 0 && errno == ECONNRESET) return 0;
      if (n < 0) fail_errno("recv");
      if (n == 0) return 0;
      if (first != kTlsHandshakeRecord) {
        tls_.reset();  // plain from here on, so the refusal reaches it
        throw PlainClientError(
            "a plain-TCP client, and this side requires TLS: connect with --tls-cert, --tls-key "
            "and --tls-ca");
      }
      tls_->start(fd_, true);
    }
    if (tls_) break;
    const auto n = ::recv(fd_, into.data(), into.size(), 0);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno == EAGAIN || errno == EWOULDBLOCK) return std::nullopt;
    if (errno == ECONNRESET) return 0;
    if (errno != EINTR) fail_errno("recv");
  }
  // TLS hands out at most one record per call: read records while a whole one still fits, so one
  // call takes what poll() announced and leaves nothing decrypted behind, where poll() would not
  // see it (with a span of at least one record; a smaller one may leave the rest pending()).
  constexpr std::size_t kMaxRecord = 16384;
  std::size_t total = 0;
  while (total < into.size() && (total == 0 || into.size() - total >= kMaxRecord)) {
    ERR_clear_error();
    errno = 0;
    const int r =
        SSL_read(tls_->ssl, into.data() + total, static_cast<int>(std::min<std::size_t>(into.size() - total, INT_MAX)));
    if (r > 0) {
      total += static_cast<std::size_t>(r);
      continue;
    }
    const int error = SSL_get_error(tls_->ssl, r);
    if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) break;
    if (total > 0) break;  // the close or the failure shows again on the next read
    if (error == SSL_ERROR_ZERO_RETURN || Tls::unexpected_eof(error)) {
      ERR_clear_error();
      return 0;
    }
    if (error == SSL_ERROR_SYSCALL && errno == ECONNRESET) return 0;
    tls_->fail(error);
  }
  if (total == 0) return std::nullopt;
  return total;
}

TcpListener::TcpListener(std::uint16_t port, const std::string& address) {
  const auto at = address_of(address, port);
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd_ < 0) fail_errno("socket");
  const int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const auto where = address + ":" + std::to_string(port);
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&at), sizeof at) != 0) {
    const int e = errno;
    ::close(fd_);
    errno = e;
    fail_errno("cannot listen on " + where);
  }
  if (::listen(fd_, 128) != 0) {
    const int e = errno;
    ::close(fd_);
    errno = e;
    fail_errno("listen on " + where);
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
    fail_errno("accept");
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return TcpStream(fd);
}

}  // namespace servescope::engine::live
