// The live wire format: frames survive being cut at every byte, and a bad magic, another
// version, an oversized or unknown frame and a frame out of order are each refused with the
// reason, the decoder taking nothing after it. Tokens compare without early exit.
#include "engine/live/wire_format.h"

#include <gtest/gtest.h>
#include <random>

#include "engine/live/handshake.h"

namespace servescope::engine::live {
namespace {

std::vector<std::uint8_t> stream_of(const std::vector<std::pair<FrameType, std::string>>& frames) {
  FrameEncoder encoder;
  auto out = FrameEncoder::preamble();
  for (const auto& [type, payload] : frames) {
    const auto bytes = encoder.encode(type, payload);
    out.insert(out.end(), bytes.begin(), bytes.end());
  }
  return out;
}

TEST(WireFormat, FramesSurviveAnySplit) {
  const std::vector<std::pair<FrameType, std::string>> sent{{FrameType::Hello, R"({"token":"t","role":"worker"})"},
                                                            {FrameType::Heartbeat, ""},
                                                            {FrameType::Events, std::string(70'000, 'x')},
                                                            {FrameType::BatchDone, "done"}};
  const auto bytes = stream_of(sent);
  for (std::size_t cut = 0; cut <= bytes.size(); cut += cut < 64 ? 1 : 997) {
    FrameDecoder decoder;
    std::vector<Frame> got;
    decoder.feed(std::span(bytes).first(cut), got);
    decoder.feed(std::span(bytes).subspan(cut), got);
    ASSERT_FALSE(decoder.failed()) << cut << ": " << decoder.error_text();
    ASSERT_EQ(got.size(), sent.size()) << cut;
    for (std::size_t k = 0; k < sent.size(); ++k) {
      EXPECT_EQ(got[k].type, sent[k].first);
      EXPECT_EQ(got[k].sequence, k);
      EXPECT_EQ(std::string(got[k].payload.begin(), got[k].payload.end()), sent[k].second);
    }
    EXPECT_EQ(decoder.pending_bytes(), 0u);
  }
  // Byte by byte, too.
  FrameDecoder decoder;
  std::vector<Frame> got;
  for (const auto b : bytes)
    decoder.feed(std::span(&b, 1), got);
  EXPECT_EQ(got.size(), sent.size());
}

TEST(WireFormat, RefusesWhatIsNotOurs) {
  const auto good = stream_of({{FrameType::Hello, "x"}, {FrameType::Heartbeat, ""}});
  const auto expect = [](std::vector<std::uint8_t> bytes, WireError error, std::string_view text,
                         std::size_t frames_before) {
    FrameDecoder decoder(1024);
    std::vector<Frame> got;
    decoder.feed(bytes, got);
    EXPECT_EQ(decoder.error(), error) << decoder.error_text();
    EXPECT_NE(decoder.error_text().find(text), std::string::npos) << decoder.error_text();
    EXPECT_EQ(got.size(), frames_before);
    decoder.feed(bytes, got);  // nothing more once failed
    EXPECT_EQ(got.size(), frames_before);
  };
  auto http = std::vector<std::uint8_t>{'G', 'E', 'T', ' ', '/', ' '};
  expect(http, WireError::BadMagic, "bad magic", 0);
  // A TLS ClientHello's record header reaching a side without TLS: said so, not only "bad magic".
  expect({0x16, 0x03, 0x01, 0x02, 0x00, 0x01}, WireError::BadMagic, "a TLS client, and this side runs without TLS", 0);
  auto version = good;
  version[6] = static_cast<std::uint8_t>(kProtocolVersion + 1);
  expect(version, WireError::BadVersion,
         "(" + std::to_string(kProtocolVersion + 1) + "; this side speaks " + std::to_string(kProtocolVersion) + ")",
         0);
  FrameEncoder encoder;
  auto big = FrameEncoder::preamble();
  const auto frame = encoder.encode(FrameType::Events, std::string(2000, 'y'));
  big.insert(big.end(), frame.begin(), frame.begin() + kHeaderBytes);  // the header alone is enough
  expect(big, WireError::Oversized, "(2000 bytes; at most 1024)", 0);
  auto unknown = good;
  unknown[kPreambleBytes + 4] = 99;
  expect(unknown, WireError::UnknownType, "(99)", 0);
  auto reordered = good;
  reordered[kPreambleBytes + kHeaderBytes + 1 + 5] = 7;  // the second frame claims sequence 7
  expect(reordered, WireError::OutOfOrder, "(got 7, expected 1)", 1);
}

TEST(WireFormat, GarbageNeverCrashesNorPassesABadFrame) {
  std::mt19937_64 rng(17);
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::uint8_t> bytes = round % 2 ? FrameEncoder::preamble() : std::vector<std::uint8_t>{};
    const auto n = rng() % 300;
    for (std::size_t k = 0; k < n; ++k)
      bytes.push_back(static_cast<std::uint8_t>(rng()));
    FrameDecoder decoder(4096);
    std::vector<Frame> got;
    decoder.feed(bytes, got);
    // Whatever it let through is well formed: known types, numbered in order, within the limit.
    for (std::size_t k = 0; k < got.size(); ++k) {
      EXPECT_LE(got[k].payload.size(), 4096u);
      EXPECT_EQ(got[k].sequence, k);
      EXPECT_GE(static_cast<int>(got[k].type), 1);
      EXPECT_LE(static_cast<int>(got[k].type), static_cast<int>(kLastFrameType));
    }
    if (round % 2 == 0 && n > 0) {
      EXPECT_TRUE(decoder.failed() || bytes[0] == kMagic[0]);  // without our magic: refused at once
    }
  }
}

TEST(WireFormat, TokensCompareWholly) {
  EXPECT_TRUE(tokens_equal("s3cret", "s3cret"));
  EXPECT_FALSE(tokens_equal("s3cret", "s3creT"));
  EXPECT_FALSE(tokens_equal("s3cret", "s3cre"));
  EXPECT_FALSE(tokens_equal("", "x"));
  EXPECT_TRUE(tokens_equal("", ""));
}

Frame frame_of(FrameType type, const std::string& payload) {
  return Frame{type, 0, std::vector<std::uint8_t>(payload.begin(), payload.end())};
}

TEST(Handshake, AcceptsTheTokenAndRefusesEverythingElseWithAReason) {
  const auto ok =
      accept_hello(frame_of(FrameType::Hello, encode_hello({"s3cret", PeerRole::Worker, "v100-0"})), "s3cret");
  ASSERT_TRUE(std::holds_alternative<Hello>(ok));
  EXPECT_EQ(std::get<Hello>(ok).role, PeerRole::Worker);
  EXPECT_EQ(std::get<Hello>(ok).name, "v100-0");
  const auto refused = [](const Frame& f) {
    const auto r = accept_hello(f, "s3cret");
    return std::holds_alternative<Refusal>(r) ? std::get<Refusal>(r).reason : std::string("accepted");
  };
  EXPECT_EQ(refused(frame_of(FrameType::Hello, encode_hello({"guess", PeerRole::Gui, "me"}))), "bad token");
  EXPECT_EQ(refused(frame_of(FrameType::Heartbeat, "")), "the first frame must be hello, not heartbeat");
  EXPECT_EQ(refused(frame_of(FrameType::Hello, "{")), "hello is not JSON");
  EXPECT_EQ(refused(frame_of(FrameType::Hello, R"({"token":"s3cret"})")),
            "hello needs the strings token, role and name");
  EXPECT_EQ(refused(frame_of(FrameType::Hello, R"({"token":"s3cret","role":"admin","name":"x"})")),
            "unknown role 'admin' (worker, loadgen, gui)");
  // A wrong token is refused before the role is looked at.
  EXPECT_EQ(refused(frame_of(FrameType::Hello, R"({"token":"nope","role":"admin","name":"x"})")), "bad token");
  EXPECT_EQ(refused(frame_of(FrameType::Hello, encode_hello({"s3cret", PeerRole::Gui, ""}))),
            "a name of 1 to 256 bytes is needed");
}

}  // namespace
}  // namespace servescope::engine::live
