// The scheduler's limits on what a peer can make it hold (docs/protocol.md "Limits"), each
// against the PeerServer in process on loopback: open connections per listener, the frame size
// before a welcome and after it, and connections that never finish their hello, in clear text or
// half-way through a TLS handshake. (A subscriber that stops reading is dropped at
// --subscriber-limit: LiveDeployment.ASubscriberThatDoesNotReadIsDroppedNotWaitedFor.) Time
// bounds are liveness bounds that only catch a hang.
#include <future>
#include <gtest/gtest.h>
#include <string>

#include "engine/live/certificates.h"
#include "engine/live/peer_server.h"
#include "tests/support/peer_server_pump.h"
#include "tests/support/test_support.h"

namespace servescope::engine::live {
namespace {

using std::chrono::milliseconds;

class Handler final : public PeerServer::Handler {
 public:
  mutable std::vector<std::string> lines;
  std::string admit(Peer&) override { return {}; }
  nlohmann::json welcome(const Peer&) const override { return nlohmann::json::object(); }
  void welcomed(Peer&) override {}
  void frame(Peer&, const Frame&) override {}
  void closed(Peer&, const std::string&) override {}
  void log(const std::string& line) const override { lines.push_back(line); }
};

struct LimitsServer {
  Handler handler;
  SchedulerCounters counters;
  PeerServer server;
  explicit LimitsServer(PeerServerOptions options) : server(handler, std::move(options), counters) {}

  void pump(const std::function<bool()>& done) { servescope::test::pump(server, done); }
  std::size_t open() const {
    return static_cast<std::size_t>(std::ranges::count_if(server.peers(), [](const auto& p) { return !p->closed; }));
  }
};

PeerServerOptions options() {
  PeerServerOptions o;
  o.token = "a-token-of-16-bytes";
  o.liveness = milliseconds(60000);
  return o;
}

// What the other side says until it closes (within 10 s).
std::string said_until_closed(TcpStream& s) {
  std::string out;
  for (int i = 0; i < 100; ++i) {
    auto got = s.receive(65536, milliseconds(100));
    if (!got) continue;
    if (got->empty()) break;
    out.append(got->begin(), got->end());
  }
  return out;
}

TEST(LiveLimits, ConnectionsBeyondTheListenersLimitAreClosedAtOnce) {
  auto o = options();
  o.max_connections = 3;
  LimitsServer s(o);
  std::vector<TcpStream> clients;
  for (int i = 0; i < 3; ++i) {
    clients.push_back(TcpStream::connect("127.0.0.1", s.server.port(), milliseconds(1000)));
    s.pump([&] { return s.open() == clients.size(); });
  }
  ASSERT_EQ(s.open(), 3u);
  auto fourth = TcpStream::connect("127.0.0.1", s.server.port(), milliseconds(1000));
  s.pump([&] { return s.counters.connections_refused > 0; });
  EXPECT_EQ(s.open(), 3u);
  EXPECT_EQ(said_until_closed(fourth), "") << "closed without a word";
  ASSERT_FALSE(s.handler.lines.empty());
  EXPECT_NE(s.handler.lines[0].find("too many connections (3 open"), std::string::npos) << s.handler.lines[0];
  // One leaves: the next newcomer gets in.
  clients.pop_back();
  s.pump([&] { return s.open() == 2; });
  auto fifth = TcpStream::connect("127.0.0.1", s.server.port(), milliseconds(1000));
  s.pump([&] { return s.open() == 3; });
  EXPECT_EQ(s.open(), 3u);
}

TEST(LiveLimits, FramesAreSmallUntilTheWelcomeAndBoundedAfter) {
  LimitsServer s(options());
  {
    // A hello of 4 KiB + 1: refused on its header, before its payload is buffered.
    auto client = TcpStream::connect("127.0.0.1", s.server.port(), milliseconds(1000));
    auto bytes = FrameEncoder::preamble();
    const std::uint8_t header[] = {0x01, 0x10, 0, 0, 1, 0, 0, 0, 0};  // 4097 bytes, hello, #0
    bytes.insert(bytes.end(), std::begin(header), std::end(header));
    client.send_all(bytes);
    std::string reply;
    auto said = std::async(std::launch::async, [&] { return said_until_closed(client); });
    s.pump([&] { return said.wait_for(milliseconds(0)) == std::future_status::ready; });
    reply = said.get();
    EXPECT_NE(reply.find("frame larger than allowed (4097 bytes; at most 4096)"), std::string::npos) << reply;
  }
  {
    // Welcomed: 16 MiB is the most, announced in the header.
    auto client = TcpStream::connect("127.0.0.1", s.server.port(), milliseconds(1000));
    auto joined = std::async(std::launch::async, [&] {
      return join(client, Hello{"a-token-of-16-bytes", PeerRole::Gui, "big"}, milliseconds(5000));
    });
    s.pump([&] { return joined.wait_for(milliseconds(0)) == std::future_status::ready; });
    auto j = joined.get();
    auto frame = j.encoder.encode(FrameType::Control, std::string_view("{}"));
    const std::uint32_t too_big = kDefaultMaxFrameBytes + 1;
    for (int b = 0; b < 4; ++b)
      frame[static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(too_big >> (8 * b));
    client.send_all(frame);
    auto said = std::async(std::launch::async, [&] { return said_until_closed(client); });
    s.pump([&] { return said.wait_for(milliseconds(0)) == std::future_status::ready; });
    const auto reply = said.get();
    EXPECT_NE(reply.find("frame larger than allowed (16777217 bytes; at most 16777216)"), std::string::npos)
        << reply.size();
  }
}

TEST(LiveLimits, AHelloNeverFinishedIsCutOffInClearTextAndHalfWayThroughTls) {
  servescope::test::TempDir dir;
  write_deployment_certificates(dir.path(), {});
  auto o = options();
  o.gate.deadline = o.gate.pressed_deadline = milliseconds(200);
  o.tls = load_tls({(dir.path() / "scheduler.pem").string(), (dir.path() / "scheduler.key").string(),
                    (dir.path() / "ca.pem").string()});
  LimitsServer s(o);
  // Half a TLS ClientHello (a record header and nothing more), then silence: slowloris.
  auto partial = TcpStream::connect("127.0.0.1", s.server.port(), milliseconds(1000));
  const std::uint8_t record[] = {0x16, 0x03, 0x01, 0x00, 0x80};
  partial.send_all(record);
  // And one that says nothing at all.
  auto silent = TcpStream::connect("127.0.0.1", s.server.port(), milliseconds(1000));
  s.pump([&] { return s.open() == 2; });
  ASSERT_EQ(s.open(), 2u);
  s.pump([&] { return s.open() == 0; });
  EXPECT_EQ(s.open(), 0u) << "both cut off at their hello deadline";
  EXPECT_EQ(said_until_closed(partial), "");
}

}  // namespace
}  // namespace servescope::engine::live
