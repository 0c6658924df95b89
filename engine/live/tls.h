// TLS for the live deployment's connections (docs/protocol.md "TLS"; OpenSSL, no crypto of our
// own). Every connection of a deployment started with certificates is mutual TLS: both sides
// present a certificate signed by the deployment's CA and check the other's against it, and the
// token then travels inside the encrypted channel. One context per process serves both sides,
// since a worker is a client of the scheduler and of its peers and a server of feature maps.
// What a connection does with it is TcpStream's (tcp_socket.h): a server sniffs the first byte so
// that a plain-TCP client is refused in words it can read, a client shakes hands before its hello.
#pragma once

#include <memory>
#include <string>

struct ssl_ctx_st;

namespace servescope::engine::live {

// PEM files: this process's certificate and key, and the CA whose certificates it trusts.
struct TlsFiles {
  std::string cert, key, ca;
  bool any() const { return !cert.empty() || !key.empty() || !ca.empty(); }
};

class TlsContext {
 public:
  // Throws LiveError naming the file that is missing, unreadable or not what it should be, and
  // when the key is not the certificate's.
  explicit TlsContext(const TlsFiles& files);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  ssl_ctx_st* native() const { return ctx_; }
  const TlsFiles& files() const { return files_; }

 private:
  ssl_ctx_st* ctx_ = nullptr;
  TlsFiles files_;
};

// The context for `files`, or null when none are given; all three or none (LiveError otherwise).
std::shared_ptr<const TlsContext> load_tls(const TlsFiles& files);

// Whether `address` is a loopback address (127.0.0.0/8): only there may a deployment run without TLS
// unless it says --insecure.
bool is_loopback(const std::string& address);

// Refuses (LiveError) to listen on `address` in clear text when it is not loopback, unless
// `insecure`. `what` names the listener in the message ("the scheduler", "feature maps").
void check_plain_listener(const std::string& what, const std::string& address, bool tls, bool insecure);

// The reasons OpenSSL queued for the calling thread, oldest first, "; "-separated, and clears
// them; `fallback` when there are none.
std::string take_tls_errors(const std::string& fallback);

}  // namespace servescope::engine::live
