// The first exchange on a live connection (docs/protocol.md): the client's `hello` names its
// role and carries the deployment's shared token; the server answers `welcome` or `refused`
// with the reason. Pure functions over frames, so the daemons, the GUI and the tests agree on
// what is accepted; the sockets live elsewhere.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "engine/live/tcp_socket.h"
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

// Both ends of the exchange on a connected stream, waiting at most `timeout` for the other side.
// The server sends its preamble and `welcome` or `refused` (then closes; a stranger without our
// magic gets no answer at all), and returns the accepted hello with the decoder that continues
// the connection. The client returns the decoder on `welcome` and throws LiveError with the
// server's reason otherwise.
struct Accepted {
  Hello hello;
  FrameDecoder decoder;        // past the hello: the connection's next frames
  FrameEncoder encoder;        // past the welcome
  std::vector<Frame> pending;  // frames the client sent right after its hello
};
std::variant<Accepted, Refusal> serve_handshake(TcpStream& stream, std::string_view token,
                                                std::chrono::milliseconds timeout);
struct Joined {
  FrameDecoder decoder;        // past the welcome
  FrameEncoder encoder;        // past the hello
  std::string welcome;         // its payload
  std::vector<Frame> pending;  // frames the server sent right after its welcome
};
// With TLS the server's certificate must be bound to `server_role` (the scheduler, or a worker
// for a feature-map link): checked before the hello, so the token never reaches an impostor
// (RefusedError saying whose certificate it is).
Joined join(TcpStream& stream, const Hello& hello, std::chrono::milliseconds timeout,
            std::string_view server_role = "scheduler");

}  // namespace servescope::engine::live
