// JSON from peers (the deep control frame; docs/protocol.md "Control"): parsed under the project's
// limits, refused with a short reason, and quoted in a line at most, however large or deep the text.
#include <gtest/gtest.h>
#include <string>

#include "engine/live/byte_codec.h"
#include "engine/live/json_payload.h"

namespace servescope::engine::live {
namespace {

std::span<const std::uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

std::string nested(std::size_t depth) {
  std::string text;
  for (std::size_t i = 0; i < depth; ++i)
    text += "{\"a\":";
  text += "1";
  text.append(depth, '}');
  return text;
}

TEST(JsonPayload, ParsesWhatIsFineAndRefusesWhatIsNotWithAShortReason) {
  const auto j = parse_payload(bytes_of(R"({"command":"status"})"), "a control frame");
  EXPECT_EQ(j.value("command", ""), "status");
  for (const std::string& bad : {std::string("{"), std::string("1e999"), nested(100000), std::string(300000, '[')}) {
    try {
      (void)parse_payload(bytes_of(bad), "a control frame");
      ADD_FAILURE() << "accepted " << bad.substr(0, 40);
    } catch (const ProtocolError& e) {
      EXPECT_NE(std::string(e.what()).find("a control frame"), std::string::npos) << e.what();
      EXPECT_LE(std::string(e.what()).size(), 210u) << e.what();
    }
    EXPECT_FALSE(parse_payload_or_nothing(bytes_of(bad)));
  }
}

TEST(JsonPayload, AQuotedPayloadIsOneShortLine) {
  const auto quoted = quote_payload(bytes_of(nested(100000)));
  EXPECT_LE(quoted.size(), 80u);
  EXPECT_TRUE(quoted.starts_with("'{\"a\":")) << quoted;
  EXPECT_EQ(quote_payload(bytes_of("a\nb")), "'a\\x0Ab'");
}

}  // namespace
}  // namespace servescope::engine::live
