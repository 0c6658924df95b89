// Connections on loopback (the bad-token and garbage-frame cases of docs/protocol.md "Frames"): the
// right token is welcomed, a wrong one is refused with "bad token", a stranger speaking HTTP gets
// the connection closed without an answer, a garbage frame after our preamble is refused with the
// reason, and a server that never answers is given up on in time.
#include <future>
#include <gtest/gtest.h>
#include <string>

#include "engine/live/handshake.h"

namespace servescope::engine::live {
namespace {

using std::chrono::milliseconds;

// One server connection handled on another thread; its outcome comes back through the future.
std::future<std::variant<Accepted, Refusal>> serve_one(TcpListener& listener, const std::string& token) {
  return std::async(std::launch::async, [&listener, token] {
    auto stream = listener.accept(milliseconds(2000));
    if (!stream) return std::variant<Accepted, Refusal>(Refusal{"nobody came"});
    return serve_handshake(*stream, token, milliseconds(1000));
  });
}

TEST(LiveConnection, TheTokenDecides) {
  TcpListener listener(0);
  ASSERT_GT(listener.port(), 0);
  {
    auto served = serve_one(listener, "s3cret");
    auto client = TcpStream::connect("127.0.0.1", listener.port(), milliseconds(1000));
    const auto joined = join(client, {"s3cret", PeerRole::Worker, "v100-0"}, milliseconds(1000));
    EXPECT_NE(joined.welcome.find("servescope"), std::string::npos);
    const auto result = served.get();
    ASSERT_TRUE(std::holds_alternative<Accepted>(result));
    EXPECT_EQ(std::get<Accepted>(result).hello.name, "v100-0");
  }
  {
    auto served = serve_one(listener, "s3cret");
    auto client = TcpStream::connect("127.0.0.1", listener.port(), milliseconds(1000));
    try {
      (void)join(client, {"guess", PeerRole::Gui, "me"}, milliseconds(1000));
      ADD_FAILURE() << "joined with a wrong token";
    } catch (const LiveError& e) {
      EXPECT_STREQ(e.what(), "the server refused: bad token");
    }
    EXPECT_EQ(std::get<Refusal>(served.get()).reason, "bad token");
  }
}

TEST(LiveConnection, FramesSentRightAfterTheHelloAreKept) {
  TcpListener listener(0);
  auto served = serve_one(listener, "t");
  auto client = TcpStream::connect("127.0.0.1", listener.port(), milliseconds(1000));
  FrameEncoder encoder;
  auto bytes = FrameEncoder::preamble();
  for (const auto& frame : {encoder.encode(FrameType::Hello, encode_hello({"t", PeerRole::LoadGenerator, "lg"})),
                            encoder.encode(FrameType::Request, "first requests")})
    bytes.insert(bytes.end(), frame.begin(), frame.end());
  client.send_all(bytes);  // one write: both frames may arrive in one read
  auto result = served.get();
  ASSERT_TRUE(std::holds_alternative<Accepted>(result));
  const auto& pending = std::get<Accepted>(result).pending;
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].type, FrameType::Request);
  EXPECT_EQ(pending[0].sequence, 1u);
}

TEST(LiveConnection, StrangersAndGarbageAreRefused) {
  TcpListener listener(0);
  {  // HTTP: closed without an answer
    auto served = serve_one(listener, "t");
    auto client = TcpStream::connect("127.0.0.1", listener.port(), milliseconds(1000));
    const std::string get = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    client.send_all({reinterpret_cast<const std::uint8_t*>(get.data()), get.size()});
    EXPECT_NE(std::get<Refusal>(served.get()).reason.find("bad magic"), std::string::npos);
    const auto answer = client.receive(1024, milliseconds(1000));
    ASSERT_TRUE(answer.has_value());
    EXPECT_TRUE(answer->empty());  // closed, nothing said
  }
  {  // our preamble, then a frame of an unknown type: refused with the reason
    auto served = serve_one(listener, "t");
    auto client = TcpStream::connect("127.0.0.1", listener.port(), milliseconds(1000));
    auto bytes = FrameEncoder::preamble();
    const std::uint8_t garbage[] = {3, 0, 0, 0, 200, 0, 0, 0, 0, 'a', 'b', 'c'};
    bytes.insert(bytes.end(), std::begin(garbage), std::end(garbage));
    client.send_all(bytes);
    EXPECT_EQ(std::get<Refusal>(served.get()).reason, "unknown frame type (200)");
    FrameDecoder decoder;
    std::vector<Frame> frames;
    while (frames.empty()) {
      const auto got = client.receive(1024, milliseconds(1000));
      ASSERT_TRUE(got && !got->empty());
      decoder.feed(*got, frames);
    }
    EXPECT_EQ(frames.front().type, FrameType::Refused);
    EXPECT_EQ(std::string(frames.front().payload.begin(), frames.front().payload.end()), "unknown frame type (200)");
  }
}

TEST(LiveConnection, ASilentServerIsGivenUpOnInTime) {
  TcpListener listener(0);  // accepts (the kernel does) but never answers
  auto client = TcpStream::connect("127.0.0.1", listener.port(), milliseconds(1000));
  // The join gives up with an error instead of waiting for ever (a hang ends in ctest's timeout).
  EXPECT_THROW((void)join(client, {"t", PeerRole::Gui, "me"}, milliseconds(300)), LiveError);
  EXPECT_THROW((void)TcpStream::connect("not-an-ip", 1, milliseconds(100)), LiveError);
}

}  // namespace
}  // namespace servescope::engine::live
