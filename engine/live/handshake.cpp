#include "engine/live/handshake.h"

#include <nlohmann/json.hpp>

#include "engine/live/certificates.h"
#include "engine/live/json_payload.h"

namespace servescope::engine::live {
namespace {

constexpr std::size_t kMaxNameBytes = 256;

std::optional<PeerRole> parse_role(std::string_view text) {
  for (const auto role : {PeerRole::Worker, PeerRole::LoadGenerator, PeerRole::Gui})
    if (to_string(role) == text) return role;
  return std::nullopt;
}

}  // namespace

std::string_view to_string(PeerRole role) {
  switch (role) {
    case PeerRole::Worker:
      return "worker";
    case PeerRole::LoadGenerator:
      return "loadgen";
    case PeerRole::Gui:
      return "gui";
  }
  return "?";
}

std::string encode_hello(const Hello& hello) {
  return nlohmann::json{{"token", hello.token}, {"role", std::string(to_string(hello.role))}, {"name", hello.name}}
      .dump();
}

std::variant<Hello, Refusal> accept_hello(const Frame& first, std::string_view token) {
  if (first.type != FrameType::Hello)
    return Refusal{"the first frame must be hello, not " + std::string(to_string(first.type))};
  // Not JSON, numbers out of range (1e999), nesting too deep, a key twice: all the same to a stranger.
  const auto parsed = parse_payload_or_nothing(first.payload);
  if (!parsed) return Refusal{"hello is not JSON"};
  const auto& j = *parsed;
  if (!j.is_object() || !j.contains("token") || !j["token"].is_string() || !j.contains("role") ||
      !j["role"].is_string() || !j.contains("name") || !j["name"].is_string())
    return Refusal{"hello needs the strings token, role and name"};
  // The token first: a stranger learns nothing about roles or names.
  if (!tokens_equal(j["token"].get<std::string>(), token)) return Refusal{"bad token"};
  const auto role = parse_role(j["role"].get<std::string>());
  if (!role) return Refusal{"unknown role '" + j["role"].get<std::string>().substr(0, 32) + "' (worker, loadgen, gui)"};
  auto name = j["name"].get<std::string>();
  if (name.empty() || name.size() > kMaxNameBytes) return Refusal{"a name of 1 to 256 bytes is needed"};
  return Hello{j["token"].get<std::string>(), *role, std::move(name)};
}

namespace {

// Reads until the decoder yields a frame, fails, the peer closes or the time is up.
// Frames that arrived with the first one are kept in `rest`, in order: a peer may pipeline.
std::optional<Frame> next_frame(TcpStream& stream, FrameDecoder& decoder, std::chrono::milliseconds timeout,
                                std::string& why, std::vector<Frame>& rest) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  std::vector<Frame> frames;
  while (frames.empty()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      why = "no answer within " + std::to_string(timeout.count()) + " ms";
      return std::nullopt;
    }
    const auto bytes = stream.receive(std::size_t{64} * 1024, left);
    if (!bytes) continue;
    if (bytes->empty()) {
      why = "the other side closed the connection";
      return std::nullopt;
    }
    decoder.feed(*bytes, frames);
    if (decoder.failed()) {
      why = decoder.error_text();
      return std::nullopt;
    }
  }
  rest.assign(std::make_move_iterator(frames.begin() + 1), std::make_move_iterator(frames.end()));
  return std::move(frames.front());
}

void send_refusal(TcpStream& stream, FrameEncoder& encoder, const std::string& reason) {
  auto bytes = FrameEncoder::preamble();
  const auto frame = encoder.encode(FrameType::Refused, reason);
  bytes.insert(bytes.end(), frame.begin(), frame.end());
  try {
    stream.send_all(bytes);
  } catch (const LiveError&) {
    // It left already; the refusal was a courtesy.
  }
  stream.close();
}

}  // namespace

std::variant<Accepted, Refusal> serve_handshake(TcpStream& stream, std::string_view token,
                                                std::chrono::milliseconds timeout) {
  Accepted out;
  std::string why;
  const auto first = next_frame(stream, out.decoder, timeout, why, out.pending);
  if (!first) {
    if (out.decoder.error() == WireError::BadMagic)
      stream.close();  // not one of ours: no answer
    else
      send_refusal(stream, out.encoder, why);
    return Refusal{why};
  }
  auto checked = accept_hello(*first, token);
  if (auto* refusal = std::get_if<Refusal>(&checked)) {
    send_refusal(stream, out.encoder, refusal->reason);
    return *refusal;
  }
  out.hello = std::get<Hello>(std::move(checked));
  auto bytes = FrameEncoder::preamble();
  const auto welcome = out.encoder.encode(FrameType::Welcome, R"({"server":"servescope"})");
  bytes.insert(bytes.end(), welcome.begin(), welcome.end());
  stream.send_all(bytes);
  return out;
}

Joined join(TcpStream& stream, const Hello& hello, std::chrono::milliseconds timeout, std::string_view server_role) {
  if (const auto why = role_refusal(stream, server_role); !why.empty())
    throw RefusedError("the server is not a " + std::string(server_role) + ": " + why);
  Joined out;
  auto bytes = FrameEncoder::preamble();
  const auto frame = out.encoder.encode(FrameType::Hello, encode_hello(hello));
  bytes.insert(bytes.end(), frame.begin(), frame.end());
  stream.send_all(bytes);
  std::string why;
  auto answer = next_frame(stream, out.decoder, timeout, why, out.pending);
  if (!answer) throw LiveError("the server did not accept: " + why);
  if (answer->type == FrameType::Refused)
    throw RefusedError("the server refused: " + std::string(answer->payload.begin(), answer->payload.end()));
  if (answer->type != FrameType::Welcome)
    throw LiveError("the server answered " + std::string(to_string(answer->type)) + " instead of welcome");
  out.welcome.assign(answer->payload.begin(), answer->payload.end());
  return out;
}

}  // namespace servescope::engine::live
