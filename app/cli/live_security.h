// What a live process proves and checks (docs/protocol.md "TLS" and "Frames"): the deployment's
// shared token, mutual TLS with --tls-cert/--tls-key/--tls-ca, and --insecure, the one way to
// run a throwaway deployment with a short token or in clear text beyond loopback. Shared by
// `live scheduler`, `live worker` and `live loadgen`, so the three check the same things.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "app/cli/cli_context.h"
#include "engine/live/tls.h"

namespace servescope::cli {

struct SecurityArgs {
  std::string token, token_file;
  engine::live::TlsFiles tls;
  bool insecure = false;
};

void add_security_options(CLI::App* cmd, SecurityArgs& args);

// The token from --token-file, --token or SERVESCOPE_TOKEN; QueryError when there is none, or it
// is short without --insecure.
std::string resolve_token(const SecurityArgs& args);

// The TLS context of --tls-*, or null. Without it, warns on stderr when `address` (where this
// process listens or connects) is beyond loopback, since the token then crosses the network in
// clear text; a listener there without --insecure is refused instead (tls.h), so it is not
// warned about. `who` starts the warning ("the scheduler").
std::shared_ptr<const engine::live::TlsContext> resolve_tls(const SecurityArgs& args, const std::string& who,
                                                            const std::string& address, bool listens);

// `live gen-certs DIR`: a CA and per-role certificates for a quick start.
void add_gen_certs(CLI::App* live, CommandBody& run);

}  // namespace servescope::cli
