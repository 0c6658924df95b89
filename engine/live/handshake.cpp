#include "engine/live/handshake.h"

#include <nlohmann/json.hpp>

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
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(first.payload.begin(), first.payload.end());
  } catch (const nlohmann::json::parse_error&) {
    return Refusal{"hello is not JSON"};
  }
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

}  // namespace servescope::engine::live
