#include "app/cli/live_security.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "engine/live/certificates.h"
#include "engine/live/tcp_socket.h"
#include "model/core/error.h"
#include "model/io/file_io.h"

namespace servescope::cli {
namespace {

// A short token could be guessed, however slowly the scheduler lets guesses in.
constexpr std::size_t kMinTokenBytes = 16;
constexpr std::size_t kMaxTokenFileBytes = 4096;

// Warns, as ssh does, about a secret others can read.
void warn_if_readable_by_others(const std::string& what, const std::string& path) {
  std::error_code error;
  const auto mode = std::filesystem::status(path, error).permissions();
  using std::filesystem::perms;
  if (!error && (mode & (perms::group_read | perms::others_read)) != perms::none)
    std::cerr << "warning: " << what << " " << path << " can be read by other users (chmod 600 it)\n";
}

std::string read_token_file(const std::string& path) {
  auto text = read_text_file(path, kMaxTokenFileBytes);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.pop_back();
  if (text.empty()) throw QueryError("--token-file " + path + " is empty");
  if (text.find('\n') != std::string::npos) throw QueryError("--token-file " + path + " holds more than one line");
  warn_if_readable_by_others("--token-file", path);
  return text;
}

}  // namespace

void add_security_options(CLI::App* cmd, SecurityArgs& args) {
  auto* file = cmd->add_option("--token-file", args.token_file,
                               "Read the deployment's shared secret from this file (default: $SERVESCOPE_TOKEN)");
  cmd->add_option("--token", args.token,
                  "The shared secret itself, visible to other users (ps); prefer --token-file or $SERVESCOPE_TOKEN")
      ->excludes(file);
  cmd->add_option("--tls-cert", args.tls.cert, "This process's certificate (PEM): mutual TLS on every connection");
  cmd->add_option("--tls-key", args.tls.key, "The certificate's private key (PEM)");
  cmd->add_option("--tls-ca", args.tls.ca, "The deployment's CA (PEM): only certificates it signed are accepted");
  cmd->add_flag("--insecure", args.insecure,
                "Accept a token shorter than 16 bytes, and plain TCP beyond loopback (a throwaway deployment on a "
                "network you trust)");
}

std::string resolve_token(const SecurityArgs& args) {
  std::string token, from;
  if (!args.token_file.empty()) {
    token = read_token_file(args.token_file);
    from = "--token-file";
  } else if (!args.token.empty()) {
    std::cerr << "warning: --token puts the secret on the command line, where any user of this machine can read it "
                 "(ps); use --token-file or SERVESCOPE_TOKEN\n";
    token = args.token;
    from = "--token";
  } else if (const char* env = std::getenv("SERVESCOPE_TOKEN"); env && *env) {
    token = env;
    from = "SERVESCOPE_TOKEN";
  } else {
    throw QueryError("give the deployment's shared token with --token-file, SERVESCOPE_TOKEN or --token");
  }
  if (token.size() < kMinTokenBytes && !args.insecure)
    throw QueryError("the token from " + from + " is " + std::to_string(token.size()) + " bytes; it needs at least " +
                     std::to_string(kMinTokenBytes) +
                     " (e.g. head -c 24 /dev/urandom | base64), or --insecure for a throwaway deployment");
  return token;
}

std::shared_ptr<const engine::live::TlsContext> resolve_tls(const SecurityArgs& args, const std::string& who,
                                                            const std::string& address, bool listens) {
  try {
    auto tls = engine::live::load_tls(args.tls);
    if (tls) warn_if_readable_by_others("--tls-key", args.tls.key);
    if (!tls && !engine::live::is_loopback(address) && (args.insecure || !listens))
      std::cerr << "warning: " << who << " on " << address
                << " without TLS: anyone on the network can read the token and the traffic (give --tls-cert, "
                   "--tls-key and --tls-ca)\n";
    return tls;
  } catch (const engine::live::LiveError& e) {
    throw QueryError(e.what());  // a file the user named: exit 2, like any other bad argument
  }
}

void add_gen_certs(CLI::App* live, CommandBody& run) {
  auto* cmd = live->add_subcommand(
      "gen-certs",
      "Write a CA and a certificate per role (scheduler, worker, loadgen, gui) for a quick start, or one more "
      "certificate from that CA (--issue)");
  struct Args {
    std::string dir, issue, role;
    engine::live::DeploymentCertificates certs;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("DIR", args->dir, "The folder to write into (created if missing)")->required();
  cmd->add_option("--days", args->certs.days, "How long the certificates are valid")
      ->check(CLI::Range(1, 36500))
      ->capture_default_str();
  cmd->add_option("--address", args->certs.addresses,
                  "An IP address the hosts have, named in every certificate besides 127.0.0.1 (repeatable)");
  cmd->add_option("--dns", args->certs.dns_names, "A host name, named besides localhost (repeatable)");
  auto* issue = cmd->add_option("--issue", args->issue,
                                "Issue one more certificate, DIR/NAME.pem and NAME.key, from the CA already in DIR");
  cmd->add_option("--role", args->role, "The role the --issue certificate is bound to: scheduler, worker, loadgen, gui")
      ->needs(issue);
  cmd->add_flag("--force", args->certs.force,
                "Replace an existing CA (every certificate it signed stops being trusted) or --issue certificate");
  cmd->callback([&run, args] {
    run = [args] {
      std::vector<std::filesystem::path> written;
      try {
        if (!args->issue.empty()) {
          if (args->role.empty()) throw QueryError("--issue needs --role: scheduler, worker, loadgen or gui");
          written = engine::live::issue_deployment_certificate(args->dir, args->issue, args->role, args->certs);
        } else {
          written = engine::live::write_deployment_certificates(args->dir, args->certs);
        }
      } catch (const engine::live::LiveError& e) {
        throw Error(e.what());
      }
      for (const auto& path : written)
        std::cerr << "wrote " << path.string() << '\n';
      if (args->issue.empty())
        std::cerr << "Copy ca.pem to every host, and each role's .pem and .key to the hosts that run it; keep ca.key "
                     "off them (whoever holds it can join the deployment).\n";
      return kExitOk;
    };
  });
}

}  // namespace servescope::cli
