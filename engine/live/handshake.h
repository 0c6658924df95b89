// The first exchange on a live connection (docs/protocol.md): the client's `hello` names its
// role and carries the deployment's shared token; the server answers `welcome` or `refused`
// with the reason. Pure functions over frames, so the daemons, the GUI and the tests agree on
// what is accepted; the sockets live elsewhere.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "engine/live/wire_format.h"

namespace servescope::engine::live {

enum class PeerRole { Worker, LoadGenerator, Gui };
std::string_view to_string(PeerRole role);

struct Hello {
  std::string token;
  PeerRole role = PeerRole::Worker;
  std::string name;  // a worker's node, a GUI's user, …
};

// The `hello` frame's payload (JSON).
std::string encode_hello(const Hello& hello);

struct Refusal {
  std::string reason;  // sent in the `refused` frame
};

// The server's check of a connection's first frame: a `hello` with a well-formed payload, a
// known role, a name, and the deployment's token. Anything else is refused with the reason.
std::variant<Hello, Refusal> accept_hello(const Frame& first, std::string_view token);

}  // namespace servescope::engine::live
