// A live deployment's certificates for a quick start (`servescope-cli live gen-certs DIR`;
// docs/deploy.md "Certificates"): a private CA and, signed by it, one certificate per role
// (scheduler, worker, loadgen, gui), each good for TLS's server and client sides, since a worker
// both serves feature maps and connects to the scheduler. Keys are ECDSA P-256, signatures
// SHA-256 (OpenSSL). A site with its own PKI uses its own files instead: any PEM certificate, key
// and CA work with --tls-cert/--tls-key/--tls-ca.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
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
};

// A self-signed CA. Throws LiveError with OpenSSL's reason.
PemPair make_certificate_authority(const CertificateSpec& spec);
// A certificate `ca` signed for TLS's server and client sides. Throws LiveError (a malformed
// address, a CA that does not parse).
PemPair issue_certificate(const PemPair& ca, const CertificateSpec& spec);

struct DeploymentCertificates {
  int days = 365;
  std::vector<std::string> addresses;  // SANs of every role's certificate, besides 127.0.0.1
  std::vector<std::string> dns_names;  // besides localhost
};

// Writes DIR/ca.pem and ca.key, and ROLE.pem and ROLE.key for each role, keys readable by their
// owner only (through the one writer, model/io/file_io.h). Creates DIR. Returns the files written.
// Throws LiveError or Error naming the path.
std::vector<std::filesystem::path> write_deployment_certificates(const std::filesystem::path& dir,
                                                                 const DeploymentCertificates& options);

// The roles write_deployment_certificates writes certificates for.
const std::vector<std::string>& certificate_roles();

}  // namespace servescope::engine::live
