#include "engine/live/json_payload.h"

#include "engine/live/byte_codec.h"
#include "model/core/error.h"
#include "model/core/text.h"
#include "model/io/json_text.h"

namespace servescope::engine::live {
namespace {

// A refusal travels back to the peer and into the log: keep it one readable line.
constexpr std::size_t kMaxReasonBytes = 200;

// A peer may send frame after frame: what one may cost once parsed is held to 16 MiB (or twelve
// times its size, for a large welcome), not the 256 MiB a file on disk is allowed.
constexpr JsonLimits kPayloadLimits{.min_budget_bytes = std::size_t{16} << 20};

std::string_view text_of(std::span<const std::uint8_t> payload) {
  return {reinterpret_cast<const char*>(payload.data()), payload.size()};
}

}  // namespace

nlohmann::json parse_payload(std::span<const std::uint8_t> payload, std::string_view what) {
  try {
    return parse_json_text(text_of(payload), std::string(what), kPayloadLimits);
  } catch (const InputError& e) {
    std::string reason = e.what();
    if (reason.size() > kMaxReasonBytes) reason = std::string(utf8_prefix(reason, kMaxReasonBytes)) + "...";
    throw ProtocolError(reason);
  }
}

std::optional<nlohmann::json> parse_payload_or_nothing(std::string_view text) {
  try {
    return parse_json_text(text, "a payload", kPayloadLimits);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::optional<nlohmann::json> parse_payload_or_nothing(std::span<const std::uint8_t> payload) {
  return parse_payload_or_nothing(text_of(payload));
}

std::string quote_payload(std::span<const std::uint8_t> payload) {
  return quote_for_message(text_of(payload));
}

}  // namespace servescope::engine::live
