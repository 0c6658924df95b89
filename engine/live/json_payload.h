// The JSON payloads peers send (hello, welcome, control frames) are untrusted text: they are
// parsed with the project's limits on untrusted JSON (model/io/json_text.h bounds nesting depth
// and memory, and refuses duplicate keys and numbers beyond a double), so a control frame nested a
// million deep is refused before anything recurses over it (dump() of one overflowed the
// scheduler's stack; docs/protocol.md "Control"); and they are quoted for a log or a refusal cut to
// one short line, never dumped whole.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace servescope::engine::live {

// Throws ProtocolError saying what was wrong with `what` (e.g. "a control frame").
nlohmann::json parse_payload(std::span<const std::uint8_t> payload, std::string_view what);
// The same, nullopt instead of throwing: for messages a peer may safely ignore.
std::optional<nlohmann::json> parse_payload_or_nothing(std::string_view text);
std::optional<nlohmann::json> parse_payload_or_nothing(std::span<const std::uint8_t> payload);
// A payload shown in a message: at most a short line, control and non-UTF-8 bytes escaped.
std::string quote_payload(std::span<const std::uint8_t> payload);

}  // namespace servescope::engine::live
