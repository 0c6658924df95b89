#include "engine/live/tls.h"

#include <arpa/inet.h>
#include <filesystem>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <system_error>

#include "engine/live/tcp_socket.h"

namespace servescope::engine::live {
namespace {

// The file behind `option` must be there and readable before OpenSSL is asked, so the message
// names the option and the path rather than an OpenSSL reason code.
void check_file(const char* option, const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw LiveError(std::string(option) + " " + path + ": " +
                    (std::filesystem::exists(path, ec) ? "not a regular file" : "no such file"));
}

}  // namespace

std::string take_tls_errors(const std::string& fallback) {
  std::string out;
  while (const unsigned long e = ERR_get_error()) {
    char text[256];
    ERR_error_string_n(e, text, sizeof text);
    // "error:0A000086:SSL routines::certificate verify failed": the reason is what a person reads.
    std::string line = text;
    if (const char* reason = ERR_reason_error_string(e)) line = reason;
    if (!out.empty()) out += "; ";
    out += line;
  }
  return out.empty() ? fallback : out;
}

TlsContext::TlsContext(const TlsFiles& files) : files_(files) {
  check_file("--tls-cert", files.cert);
  check_file("--tls-key", files.key);
  check_file("--tls-ca", files.ca);
  ERR_clear_error();
  ctx_ = SSL_CTX_new(TLS_method());
  if (!ctx_) throw LiveError("TLS: " + take_tls_errors("cannot create a context"));
  const auto fail = [this](const std::string& what) {
    const auto why = take_tls_errors("unknown reason");
    SSL_CTX_free(ctx_);
    ctx_ = nullptr;
    throw LiveError(what + ": " + why);
  };
  SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);
  // Partial writes, and a retried write from a buffer that moved: Connection's output buffer is
  // compacted and grows between flushes (it always starts with the bytes not yet taken).
  SSL_CTX_set_mode(ctx_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // Connections live for the whole deployment: resumption would only add writes after the handshake.
  SSL_CTX_set_num_tickets(ctx_, 0);
  if (SSL_CTX_use_certificate_chain_file(ctx_, files.cert.c_str()) != 1)
    fail("--tls-cert " + files.cert + ": not a PEM certificate");
  if (SSL_CTX_use_PrivateKey_file(ctx_, files.key.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx_) != 1)
    // OpenSSL compares the key with the certificate as it loads it.
    fail("--tls-key " + files.key +
         (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH
              ? " is not the key of --tls-cert " + files.cert
              : std::string(": not a PEM private key")));
  if (SSL_CTX_load_verify_locations(ctx_, files.ca.c_str(), nullptr) != 1)
    fail("--tls-ca " + files.ca + ": not a PEM certificate");
  // Clients are asked for a certificate too (TcpStream makes it required on the server side).
  SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
  if (auto* names = SSL_load_client_CA_file(files.ca.c_str())) SSL_CTX_set_client_CA_list(ctx_, names);
  ERR_clear_error();
}

TlsContext::~TlsContext() {
  SSL_CTX_free(ctx_);
}

std::shared_ptr<const TlsContext> load_tls(const TlsFiles& files) {
  if (!files.any()) return nullptr;
  if (files.cert.empty() || files.key.empty() || files.ca.empty())
    throw LiveError(
        "TLS needs all of --tls-cert, --tls-key and --tls-ca (servescope-cli live gen-certs DIR writes them)");
  return std::make_shared<const TlsContext>(files);
}

bool is_loopback(const std::string& address) {
  in_addr a{};
  return inet_pton(AF_INET, address.c_str(), &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

void check_plain_listener(const std::string& what, const std::string& address, bool tls, bool insecure) {
  if (tls || insecure || is_loopback(address)) return;
  throw LiveError(what + " would listen on " + address +
                  " without TLS, where anyone on the network can read the token and the traffic: give --tls-cert, "
                  "--tls-key and --tls-ca (servescope-cli live gen-certs DIR writes them), or --insecure on a "
                  "network you trust");
}

}  // namespace servescope::engine::live
