// The scheduler's connections as an object of their own (docs/protocol.md "Frames" and
// "Liveness"), driven by a test handler on loopback: a hello with the right token is admitted by
// the handler and gets its welcome; a wrong token or the handler's refusal is refused with the
// reason and never reaches the handler's frames; a welcomed peer's frames reach the handler, and
// a ProtocolError it throws closes that peer with the reason; a peer silent past the liveness
// time is closed, and the handler hears of every close once.
#include <future>
#include <gtest/gtest.h>
#include <string>

#include "engine/live/byte_codec.h"
#include "engine/live/peer_server.h"
#include "tests/support/peer_server_pump.h"

namespace servescope::engine::live {
namespace {

using std::chrono::milliseconds;

class TestHandler final : public PeerServer::Handler {
 public:
  std::string refuse;  // admit's answer
  std::vector<std::string> admitted, frames, closes;
  std::string admit(Peer& peer) override {
    admitted.push_back(peer.hello.name);
    return refuse;
  }
  nlohmann::json welcome(const Peer& peer) const override { return {{"hello", peer.hello.name}}; }
  void welcomed(Peer& peer) override { peer.server = 7; }
  void frame(Peer&, const Frame& f) override {
    const std::string text(f.payload.begin(), f.payload.end());
    if (text == "bad") throw ProtocolError("bad is not a command");
    frames.push_back(text);
  }
  void closed(Peer& peer, const std::string& why) override { closes.push_back(peer.hello.name + ": " + why); }
  void log(const std::string&) const override {}
};

struct Fixture {
  TestHandler handler;
  SchedulerCounters counters;
  PeerServer server;
  explicit Fixture(milliseconds liveness = milliseconds(5000)) : server(handler, options(liveness), counters) {}

  static PeerServerOptions options(milliseconds liveness) {
    PeerServerOptions o;
    o.token = "secret";
    o.heartbeat = milliseconds(50);
    o.liveness = liveness;
    return o;
  }

  void pump(const std::function<bool()>& done) { servescope::test::pump(server, done); }

  // A client's hello on its own thread, while this one runs the server.
  std::future<Joined> join_as(const std::string& name, const std::string& token, TcpStream& stream) {
    stream = TcpStream::connect("127.0.0.1", server.port(), milliseconds(1000));
    return std::async(std::launch::async, [&stream, name, token] {
      return join(stream, Hello{token, PeerRole::Gui, name}, milliseconds(10000));
    });
  }
};

bool ready(std::future<Joined>& f) {
  return f.wait_for(milliseconds(0)) == std::future_status::ready;
}

TEST(PeerServer, TheHandlerAdmitsWelcomesAndHearsFrames) {
  Fixture f;
  TcpStream stream;
  auto joined = f.join_as("ada", "secret", stream);
  f.pump([&] { return ready(joined); });
  auto j = joined.get();
  EXPECT_EQ(nlohmann::json::parse(j.welcome), (nlohmann::json{{"hello", "ada"}}));
  ASSERT_EQ(f.server.peers().size(), 1u);
  EXPECT_EQ(f.server.peers()[0]->server, 7u) << "welcomed() ran on the peer";
  EXPECT_EQ(f.server.subscribers(), 1u);

  stream.send_all(j.encoder.encode(FrameType::Control, std::string_view("one")));
  stream.send_all(j.encoder.encode(FrameType::Heartbeat, std::string_view()));
  stream.send_all(j.encoder.encode(FrameType::Control, std::string_view("two")));
  f.pump([&] { return f.handler.frames.size() == 2; });
  EXPECT_EQ(f.handler.frames, (std::vector<std::string>{"one", "two"})) << "heartbeats stay in the server";

  stream.send_all(j.encoder.encode(FrameType::Control, std::string_view("bad")));
  f.pump([&] { return !f.handler.closes.empty(); });
  ASSERT_EQ(f.handler.closes.size(), 1u);
  EXPECT_EQ(f.handler.closes[0], "ada: bad is not a command");
  EXPECT_EQ(f.counters.connections_refused, 1u);
  f.pump([&] { return f.server.peers().empty(); });
  EXPECT_TRUE(f.server.peers().empty());
}

TEST(PeerServer, AWrongTokenOrTheHandlersRefusalIsSaidToThePeer) {
  Fixture f;
  TcpStream stream;
  auto wrong = f.join_as("eve", "guess", stream);
  f.pump([&] { return ready(wrong); });
  EXPECT_THROW(wrong.get(), LiveError);
  EXPECT_TRUE(f.handler.admitted.empty()) << "a wrong token never reaches the handler";

  f.handler.refuse = "no room for eve";
  TcpStream second;
  auto refused = f.join_as("eve", "secret", second);
  f.pump([&] { return ready(refused); });
  try {
    refused.get();
    ADD_FAILURE() << "joined";
  } catch (const LiveError& e) {
    EXPECT_NE(std::string(e.what()).find("no room for eve"), std::string::npos) << e.what();
  }
  EXPECT_EQ(f.handler.admitted, (std::vector<std::string>{"eve"}));
  EXPECT_TRUE(f.handler.frames.empty());
  EXPECT_EQ(f.counters.connections_refused, 2u);
}

TEST(PeerServer, ASilentPeerIsClosedAfterTheLivenessTime) {
  Fixture f(milliseconds(150));
  TcpStream stream;
  auto joined = f.join_as("quiet", "secret", stream);
  f.pump([&] { return ready(joined); });
  (void)joined.get();
  f.pump([&] { return !f.handler.closes.empty(); });
  ASSERT_EQ(f.handler.closes.size(), 1u);
  EXPECT_NE(f.handler.closes[0].find("quiet: silent for"), std::string::npos) << f.handler.closes[0];
}

}  // namespace
}  // namespace servescope::engine::live
