// A live deployment's certificates for a quick start (`servescope-cli live gen-certs DIR`;
// docs/deploy.md "Certificates"): a private CA and, signed by it, one certificate per role
// (scheduler, worker, loadgen, gui), each good for TLS's server and client sides, since a worker
// both serves feature maps and connects to the scheduler. Keys are ECDSA P-256, signatures
// SHA-256 (OpenSSL). A site with its own PKI uses its own files instead: any PEM certificate, key
// and CA work with --tls-cert/--tls-key/--tls-ca, as long as each certificate names its role.
//
// A certificate's role is bound to it: a subject alternative name URI "urn:servescope:role:ROLE"
// (one per role it may take), which the scheduler checks against the hello's role, and each
// client against the server it reached. A certificate the CA signed for a GUI cannot join as a
// worker, nor pose as the scheduler. Certificates written by gen-certs before the URI existed are
// bound by their common name, "servescope-ROLE".
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace servescope::engine::live {

struct PemPair {
  std::string cert, key;  // PEM text
};

struct CertificateSpec {
  std::string common_name;
  std::chrono::system_clock::time_point not_before, not_after;
  // Subject alternative names: IPv4/IPv6 addresses and DNS names (where the certificate's
  // holder listens, for clients that check them).
  std::vector<std::string> addresses, dns_names;
  // The roles it is bound to (each a URI "urn:servescope:role:ROLE").
  std::vector<std::string> roles;
};

inline constexpr const char* kRoleUriPrefix = "urn:servescope:role:";

// A self-signed CA. Throws LiveError with OpenSSL's reason.
PemPair make_certificate_authority(const CertificateSpec& spec);
// A certificate `ca` signed for TLS's server and client sides. Throws LiveError (a malformed
// address, a CA that does not parse).
PemPair issue_certificate(const PemPair& ca, const CertificateSpec& spec);

struct DeploymentCertificates {
  int days = 365;
  std::vector<std::string> addresses;  // SANs of every role's certificate, besides 127.0.0.1
  std::vector<std::string> dns_names;  // besides localhost
  // Replace an existing CA (every certificate it signed stops being trusted) or certificate.
  bool force = false;
};

// Writes DIR/ca.pem and ca.key, and ROLE.pem and ROLE.key for each role, keys readable by their
// owner only (through the one writer, model/io/file_io.h). Creates DIR. Returns the files written.
// Refuses (QueryError, before writing anything) when DIR holds a CA already, unless `force`.
// Throws LiveError or Error naming the path when it cannot write.
std::vector<std::filesystem::path> write_deployment_certificates(const std::filesystem::path& dir,
                                                                 const DeploymentCertificates& options);

// One more certificate from the CA in DIR (ca.pem, ca.key): DIR/NAME.pem and NAME.key, bound to
// `role`. Refuses (QueryError) to replace an existing NAME.pem or NAME.key unless `force`, and a
// role that is not one of certificate_roles(). Returns the files written.
std::vector<std::filesystem::path> issue_deployment_certificate(const std::filesystem::path& dir,
                                                                const std::string& name, const std::string& role,
                                                                const DeploymentCertificates& options);

// The roles write_deployment_certificates writes certificates for.
const std::vector<std::string>& certificate_roles();

class TcpStream;
// Why the other side of `stream` may not act as `role`: its certificate is not bound to it (""
// when it is, or the stream is plain TCP, where the token alone decides).
std::string role_refusal(const TcpStream& stream, std::string_view role);

}  // namespace servescope::engine::live
