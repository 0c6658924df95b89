#include "engine/live/certificates.h"

#include <algorithm>
#include <memory>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "engine/live/tcp_socket.h"
#include "engine/live/tls.h"
#include "model/core/error.h"
#include "model/io/file_io.h"

namespace servescope::engine::live {
namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using Cert = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using Bio = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;

[[noreturn]] void fail_tls(const std::string& what) {
  throw LiveError(what + ": " + take_tls_errors("unknown reason"));
}

Key new_key() {
  Key key(EVP_EC_gen("P-256"));
  if (!key) fail_tls("cannot generate an ECDSA P-256 key");
  return key;
}

std::string bio_text(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(n));
}

PemPair to_pem(X509* cert, EVP_PKEY* key) {
  Bio c(BIO_new(BIO_s_mem())), k(BIO_new(BIO_s_mem()));
  if (!c || !k || PEM_write_bio_X509(c.get(), cert) != 1 ||
      PEM_write_bio_PrivateKey(k.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1)
    fail_tls("cannot write PEM");
  return {bio_text(c.get()), bio_text(k.get())};
}

Cert read_cert(const std::string& pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Cert cert(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!cert) fail_tls("not a PEM certificate");
  return cert;
}

Key read_key(const std::string& pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Key key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!key) fail_tls("not a PEM private key");
  return key;
}

void add_extension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (!ext) fail_tls("cannot make the certificate extension " + std::string(OBJ_nid2sn(nid)) + " = " + value);
  const int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  if (ok != 1) fail_tls("cannot add a certificate extension");
}

// A certificate for `key` named by `spec`, not yet signed; issued by itself when `issuer` is null.
Cert new_certificate(const CertificateSpec& spec, EVP_PKEY* key, X509* issuer) {
  Cert cert(X509_new());
  if (!cert) fail_tls("cannot make a certificate");
  X509_set_version(cert.get(), 2);  // v3
  // A random 127-bit serial: positive, unique without a register of those issued.
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) fail_tls("no randomness for a serial number");
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  if (!bn || !BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()))) {
    BN_free(bn);
    fail_tls("cannot set the serial number");
  }
  BN_free(bn);
  const auto to_time_t = [](std::chrono::system_clock::time_point t) {
    return std::chrono::system_clock::to_time_t(t);
  };
  if (!ASN1_TIME_set(X509_getm_notBefore(cert.get()), to_time_t(spec.not_before)) ||
      !ASN1_TIME_set(X509_getm_notAfter(cert.get()), to_time_t(spec.not_after)))
    fail_tls("cannot set the validity");
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>("ServeScope"), -1, -1, 0);
  if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(spec.common_name.c_str()), -1, -1, 0) != 1)
    fail_tls("cannot name the certificate '" + spec.common_name + "'");
  X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer) : name);
  if (X509_set_pubkey(cert.get(), key) != 1) fail_tls("cannot set the public key");
  return cert;
}

void sign(X509* cert, EVP_PKEY* key) {
  if (X509_sign(cert, key, EVP_sha256()) == 0) fail_tls("cannot sign the certificate");
}

}  // namespace

PemPair make_certificate_authority(const CertificateSpec& spec) {
  const auto key = new_key();
  const auto cert = new_certificate(spec, key.get(), nullptr);
  add_extension(cert.get(), cert.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
  add_extension(cert.get(), cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
  add_extension(cert.get(), cert.get(), NID_subject_key_identifier, "hash");
  sign(cert.get(), key.get());
  return to_pem(cert.get(), key.get());
}

PemPair issue_certificate(const PemPair& ca, const CertificateSpec& spec) {
  const auto ca_cert = read_cert(ca.cert);
  const auto ca_key = read_key(ca.key);
  const auto key = new_key();
  const auto cert = new_certificate(spec, key.get(), ca_cert.get());
  add_extension(cert.get(), ca_cert.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_extension(cert.get(), ca_cert.get(), NID_key_usage, "critical,digitalSignature");
  add_extension(cert.get(), ca_cert.get(), NID_ext_key_usage, "serverAuth,clientAuth");
  add_extension(cert.get(), ca_cert.get(), NID_subject_key_identifier, "hash");
  add_extension(cert.get(), ca_cert.get(), NID_authority_key_identifier, "keyid");
  std::string names;
  for (const auto& a : spec.addresses)
    names += (names.empty() ? "" : ",") + std::string("IP:") + a;
  for (const auto& d : spec.dns_names)
    names += (names.empty() ? "" : ",") + std::string("DNS:") + d;
  for (const auto& r : spec.roles)
    names += (names.empty() ? "" : ",") + std::string("URI:") + kRoleUriPrefix + r;
  if (!names.empty()) add_extension(cert.get(), ca_cert.get(), NID_subject_alt_name, names);
  sign(cert.get(), ca_key.get());
  return to_pem(cert.get(), key.get());
}

std::string role_refusal(const TcpStream& stream, std::string_view role) {
  if (!stream.secure()) return {};
  const auto roles = stream.peer_roles();
  if (std::ranges::find(roles, role) != roles.end()) return {};
  std::string held;
  for (const auto& r : roles)
    held += (held.empty() ? "" : ", ") + r;
  return "the TLS certificate " + stream.peer_common_name() + " is " +
         (held.empty() ? std::string("bound to no ServeScope role") : "for " + held) + ", not " + std::string(role) +
         " (roles are bound to certificates: docs/deploy.md \"Certificates\")";
}

const std::vector<std::string>& certificate_roles() {
  static const std::vector<std::string> roles = {"scheduler", "worker", "loadgen", "gui"};
  return roles;
}

namespace {

CertificateSpec leaf_spec(const DeploymentCertificates& options) {
  if (options.days < 1)
    throw LiveError("certificates must be valid for at least a day (got " + std::to_string(options.days) + ")");
  // An hour's grace before now, for hosts whose clocks run a little behind this one's.
  const auto now = std::chrono::system_clock::now();
  CertificateSpec spec;
  spec.not_before = now - std::chrono::hours(1);
  spec.not_after = now + std::chrono::hours(24) * options.days;
  spec.addresses = {"127.0.0.1"};
  spec.addresses.insert(spec.addresses.end(), options.addresses.begin(), options.addresses.end());
  spec.dns_names = {"localhost"};
  spec.dns_names.insert(spec.dns_names.end(), options.dns_names.begin(), options.dns_names.end());
  return spec;
}

struct Writer {
  std::filesystem::path dir;
  std::vector<std::filesystem::path> written;
  void operator()(const std::string& stem, const PemPair& pair) {
    write_output_file(dir / (stem + ".pem"), pair.cert);
    write_output_file(dir / (stem + ".key"), pair.key, FileAccess::OwnerOnly);
    written.push_back(dir / (stem + ".pem"));
    written.push_back(dir / (stem + ".key"));
  }
};

void refuse_existing(const std::filesystem::path& file, const std::string& why) {
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::symlink_status(file, ec)))
    throw QueryError(file.string() + " exists: " + why);
}

std::string read_small_file(const std::filesystem::path& path) {
  try {
    return read_text_file(path);
  } catch (const Error& e) {
    throw LiveError(e.what());
  }
}

}  // namespace

std::vector<std::filesystem::path> write_deployment_certificates(const std::filesystem::path& dir,
                                                                 const DeploymentCertificates& options) {
  auto spec = leaf_spec(options);
  if (!options.force)
    for (const auto* file : {"ca.key", "ca.pem"})
      refuse_existing(dir / file,
                      "a new CA would stop every certificate the present one signed from being trusted. Add one "
                      "certificate from it with --issue NAME --role ROLE, or replace it with --force");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw LiveError(dir.string() + ": cannot create the folder: " + ec.message());
  auto ca_spec = spec;
  ca_spec.common_name = "ServeScope deployment CA";
  ca_spec.addresses.clear();
  ca_spec.dns_names.clear();
  const auto ca = make_certificate_authority(ca_spec);
  Writer write{dir, {}};
  write("ca", ca);
  for (const auto& role : certificate_roles()) {
    spec.common_name = "servescope-" + role;
    spec.roles = {role};
    write(role, issue_certificate(ca, spec));
  }
  return write.written;
}

std::vector<std::filesystem::path> issue_deployment_certificate(const std::filesystem::path& dir,
                                                                const std::string& name, const std::string& role,
                                                                const DeploymentCertificates& options) {
  if (std::ranges::find(certificate_roles(), role) == certificate_roles().end())
    throw QueryError("--role " + role + ": not a role (scheduler, worker, loadgen or gui)");
  if (name.empty() || name.find('/') != std::string::npos || name == "ca" || name.starts_with('.'))
    throw QueryError("--issue " + name + ": name the certificate's files with a plain name other than ca");
  auto spec = leaf_spec(options);
  if (!options.force)
    for (const auto* ext : {".pem", ".key"})
      refuse_existing(dir / (name + ext), "pass --force to replace it");
  const PemPair ca{read_small_file(dir / "ca.pem"), read_small_file(dir / "ca.key")};
  spec.common_name = "servescope-" + name;
  spec.roles = {role};
  Writer write{dir, {}};
  write(name, issue_certificate(ca, spec));
  return write.written;
}

}  // namespace servescope::engine::live
