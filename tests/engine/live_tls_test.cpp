// Mutual TLS on the live connections (docs/protocol.md "TLS"), driven in process against the
// scheduler's PeerServer on loopback with certificates made by the gen-certs code: the handshake
// and frames of any size go through; the token is checked inside the channel; a plain client, a
// certificate of another CA, an expired certificate and a TLS client on a plain server are each
// refused with a message that says why on both sides; a plain listener beyond loopback needs
// --insecure; a certificate joins only as the role it is bound to, and gen-certs keeps its CA.
#include <future>
#include <gtest/gtest.h>
#include <string>
#include <sys/stat.h>

#include "engine/live/certificates.h"
#include "engine/live/peer_server.h"
#include "model/core/error.h"
#include "tests/support/peer_server_pump.h"
#include "tests/support/test_support.h"

namespace servescope::engine::live {
namespace {

using servescope::test::TempDir;
using std::chrono::milliseconds;

class LoggingHandler final : public PeerServer::Handler {
 public:
  std::vector<std::string> frames;
  mutable std::vector<std::string> lines;
  std::string admit(Peer&) override { return {}; }
  nlohmann::json welcome(const Peer&) const override { return {{"server", "test"}}; }
  void welcomed(Peer&) override {}
  void frame(Peer&, const Frame& f) override { frames.emplace_back(f.payload.begin(), f.payload.end()); }
  void closed(Peer&, const std::string&) override {}
  void log(const std::string& line) const override { lines.push_back(line); }
  std::string all() const {
    std::string out;
    for (const auto& l : lines)
      out += l + "\n";
    return out;
  }
};

// One deployment's certificates (as `live gen-certs` writes them) and a second CA's.
struct Certificates {
  TempDir dir;
  std::filesystem::path ours = dir.path() / "ours", theirs = dir.path() / "theirs";
  Certificates() {
    write_deployment_certificates(ours, {});
    write_deployment_certificates(theirs, {});
  }
  TlsFiles role(const std::string& name, const std::filesystem::path& from, const std::filesystem::path& ca) const {
    return {(from / (name + ".pem")).string(), (from / (name + ".key")).string(), (ca / "ca.pem").string()};
  }
  // A certificate of our CA valid from `from` to `to`, relative to now.
  TlsFiles dated(const std::string& name, std::chrono::hours from, std::chrono::hours to) const {
    PemPair ca{servescope::test::read_file(ours / "ca.pem"), servescope::test::read_file(ours / "ca.key")};
    CertificateSpec spec;
    spec.common_name = name;
    spec.not_before = std::chrono::system_clock::now() + from;
    spec.not_after = std::chrono::system_clock::now() + to;
    const auto pair = issue_certificate(ca, spec);
    return {dir.write(name + ".pem", pair.cert), dir.write(name + ".key", pair.key), (ours / "ca.pem").string()};
  }
};

const Certificates& certs() {
  static const Certificates c;
  return c;
}

struct TlsServer {
  LoggingHandler handler;
  SchedulerCounters counters;
  PeerServer server;
  explicit TlsServer(std::shared_ptr<const TlsContext> tls) : server(handler, options(std::move(tls)), counters) {}

  static PeerServerOptions options(std::shared_ptr<const TlsContext> tls) {
    PeerServerOptions o;
    o.token = "a-token-of-16-bytes";
    o.heartbeat = milliseconds(50);
    o.liveness = milliseconds(5000);
    o.tls = std::move(tls);
    return o;
  }

  void pump(const std::function<bool()>& done) { servescope::test::pump(server, done); }

  // A client joining on its own thread while this one runs the server; its error, or "" when
  // welcomed (then `stream` and `joined` continue the connection).
  std::string join_with(const TlsFiles& files, TcpStream& stream, Joined* joined = nullptr,
                        const std::string& token = "a-token-of-16-bytes", PeerRole role = PeerRole::Gui,
                        bool server_hears_of_it = true) {
    auto tls = load_tls(files);
    auto attempt = std::async(std::launch::async, [&] {
      try {
        stream = TcpStream::connect("127.0.0.1", server.port(), milliseconds(5000), tls);
        auto j = join(stream, Hello{token, role, "gui"}, milliseconds(5000));
        if (joined) *joined = std::move(j);
        return std::string();
      } catch (const RefusedError& e) {
        return std::string("refused: ") + e.what();
      } catch (const LiveError& e) {
        return std::string("failed: ") + e.what();
      }
    });
    pump([&] { return attempt.wait_for(milliseconds(0)) == std::future_status::ready; });
    auto error = attempt.get();
    // What the server makes of it (a refusal's log line) comes with its next passes.
    if (server_hears_of_it) pump([&] { return !handler.lines.empty() || error.empty(); });
    return error;
  }
};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(LiveTls, MutualTlsCarriesTheHandshakeAndFramesOfAnySize) {
  const auto& c = certs();
  TlsServer s(load_tls(c.role("scheduler", c.ours, c.ours)));
  TcpStream stream;
  Joined joined;
  ASSERT_EQ(s.join_with(c.role("gui", c.ours, c.ours), stream, &joined), "") << s.handler.all();
  EXPECT_TRUE(stream.secure());
  EXPECT_EQ(nlohmann::json::parse(joined.welcome)["server"], "test");
  // Frames over many TLS records each (at most 16 KiB of payload a record), and small ones between.
  const std::vector<std::string> sent = {std::string(300'000, 'a'), "small", std::string(70'000, 'b'), "last"};
  for (const auto& payload : sent)
    stream.send_all(joined.encoder.encode(FrameType::Control, std::string_view(payload)));
  s.pump([&] { return s.handler.frames.size() == sent.size(); });
  EXPECT_EQ(s.handler.frames, sent);
}

TEST(LiveTls, TheTokenIsStillCheckedInsideTheChannel) {
  const auto& c = certs();
  TlsServer s(load_tls(c.role("scheduler", c.ours, c.ours)));
  TcpStream stream;
  const auto error = s.join_with(c.role("gui", c.ours, c.ours), stream, nullptr, "a-wrong-token-of-16-b");
  EXPECT_TRUE(has(error, "refused: the server refused: bad token")) << error;
}

TEST(LiveTls, APlainClientIsRefusedInWordsItReads) {
  const auto& c = certs();
  TlsServer s(load_tls(c.role("scheduler", c.ours, c.ours)));
  TcpStream stream;
  const auto error = s.join_with({}, stream);
  EXPECT_TRUE(has(error, "refused: the server refused: a plain-TCP client, and this side requires TLS")) << error;
  EXPECT_TRUE(has(s.handler.all(), "refused a connection from 127.0.0.1: a plain-TCP client")) << s.handler.all();
}

TEST(LiveTls, ACertificateOfAnotherCaIsRefusedOnBothSides) {
  const auto& c = certs();
  {
    // Ours is not theirs: the server does not know the client's CA.
    TlsServer s(load_tls(c.role("scheduler", c.ours, c.ours)));
    TcpStream stream;
    const auto error = s.join_with(c.role("gui", c.theirs, c.ours), stream);
    EXPECT_TRUE(has(error, "refused: TLS: the other side refused our certificate")) << error;
    EXPECT_TRUE(has(s.handler.all(), "certificate is not accepted: unable to get local issuer certificate"))
        << s.handler.all();
  }
  {
    // The client does not know the server's CA.
    TlsServer s(load_tls(c.role("scheduler", c.ours, c.ours)));
    TcpStream stream;
    const auto error = s.join_with(c.role("gui", c.theirs, c.theirs), stream);
    EXPECT_TRUE(has(error, "refused: 127.0.0.1:")) << error;
    EXPECT_TRUE(has(error, "the other side's certificate is not accepted")) << error;
    EXPECT_TRUE(has(s.handler.all(), "the other side refused our certificate or the handshake")) << s.handler.all();
  }
}

TEST(LiveTls, AnExpiredCertificateIsRefusedOnBothSides) {
  const auto& c = certs();
  const auto expired = c.dated("expired", std::chrono::hours(-48), std::chrono::hours(-24));
  {
    TlsServer s(load_tls(c.role("scheduler", c.ours, c.ours)));
    TcpStream stream;
    const auto error = s.join_with(expired, stream);
    EXPECT_TRUE(has(error, "refused: TLS: the other side refused our certificate")) << error;
    EXPECT_TRUE(has(error, "expired")) << error;
    EXPECT_TRUE(has(s.handler.all(), "certificate is not accepted: certificate has expired")) << s.handler.all();
  }
  {
    TlsServer s(load_tls(expired));
    TcpStream stream;
    const auto error = s.join_with(c.role("gui", c.ours, c.ours), stream);
    EXPECT_TRUE(has(error, "the other side's certificate is not accepted: certificate has expired")) << error;
  }
}

TEST(LiveTls, ATlsClientOnAPlainServerIsToldWhy) {
  const auto& c = certs();
  TlsServer s(nullptr);
  TcpStream stream;
  const auto error = s.join_with(c.role("gui", c.ours, c.ours), stream);
  EXPECT_TRUE(has(error, "failed: 127.0.0.1:")) << error;
  EXPECT_TRUE(has(error, "the other side closed the connection (does it run without TLS?")) << error;
  EXPECT_TRUE(has(s.handler.all(), "a TLS client, and this side runs without TLS")) << s.handler.all();
}

TEST(LiveTls, APlainListenerBeyondLoopbackNeedsInsecure) {
  LoggingHandler handler;
  SchedulerCounters counters;
  PeerServerOptions options;
  options.token = "a-token-of-16-bytes";
  options.host = "0.0.0.0";
  try {
    PeerServer refused(handler, options, counters);
    ADD_FAILURE() << "listened in clear text on 0.0.0.0";
  } catch (const LiveError& e) {
    EXPECT_TRUE(has(e.what(), "would listen on 0.0.0.0 without TLS")) << e.what();
  }
  options.insecure = true;
  EXPECT_NO_THROW(PeerServer(handler, options, counters));
  const auto& c = certs();
  options.insecure = false;
  options.tls = load_tls(c.role("scheduler", c.ours, c.ours));
  EXPECT_NO_THROW(PeerServer(handler, options, counters));
}

// Any certificate the CA signed could join as any role. Now a certificate is bound to its role:
// the scheduler refuses a hello for another role, saying whose certificate it is, and counts it.
TEST(LiveTls, ACertificateJoinsOnlyAsTheRoleItIsBoundTo) {
  const auto& c = certs();
  struct Case {
    const char* cert;
    PeerRole as;
    bool welcome;
  };
  for (const auto& [cert, as, welcome] :
       {Case{"worker", PeerRole::Worker, true}, Case{"gui", PeerRole::Gui, true},
        Case{"loadgen", PeerRole::LoadGenerator, true}, Case{"loadgen", PeerRole::Worker, false},
        Case{"gui", PeerRole::Worker, false}, Case{"scheduler", PeerRole::Worker, false},
        Case{"worker", PeerRole::Gui, false}}) {
    TlsServer s(load_tls(c.role("scheduler", c.ours, c.ours)));
    TcpStream stream;
    const auto error = s.join_with(c.role(cert, c.ours, c.ours), stream, nullptr, "a-token-of-16-bytes", as);
    const std::string role(to_string(as));
    if (welcome) {
      EXPECT_EQ(error, "") << cert << " as " << role;
      continue;
    }
    EXPECT_TRUE(has(error, "refused: the server refused: the TLS certificate servescope-" + std::string(cert) +
                               " is for " + cert + ", not " + role))
        << error;
    EXPECT_TRUE(has(s.handler.all(), "refused " + role + ": the TLS certificate servescope-" + cert))
        << s.handler.all();
    EXPECT_EQ(s.counters.connections_refused, 1u);
  }
  // Certificates gen-certs wrote before roles were named in them are bound by their common name.
  const auto old = c.dated("servescope-worker", std::chrono::hours(-1), std::chrono::hours(24));
  TlsServer s(load_tls(c.role("scheduler", c.ours, c.ours)));
  TcpStream stream;
  EXPECT_EQ(s.join_with(old, stream, nullptr, "a-token-of-16-bytes", PeerRole::Worker), "");
  const auto none = c.dated("some-host", std::chrono::hours(-1), std::chrono::hours(24));
  TlsServer t(load_tls(c.role("scheduler", c.ours, c.ours)));
  EXPECT_TRUE(has(t.join_with(none, stream, nullptr, "a-token-of-16-bytes", PeerRole::Worker),
                  "the TLS certificate some-host is bound to no ServeScope role, not worker"));
}

// A client checks the server too, before its hello (and the token) goes out: a GUI's certificate
// cannot pose as the scheduler.
TEST(LiveTls, AServerWithoutTheSchedulersCertificateIsNotTrustedWithTheToken) {
  const auto& c = certs();
  TlsServer s(load_tls(c.role("gui", c.ours, c.ours)));
  TcpStream stream;
  // The client leaves before its hello: the server has nothing to log.
  const auto error =
      s.join_with(c.role("worker", c.ours, c.ours), stream, nullptr, "a-token-of-16-bytes", PeerRole::Worker, false);
  EXPECT_TRUE(has(error, "refused: the server is not a scheduler: the TLS certificate servescope-gui is for gui"))
      << error;
  EXPECT_TRUE(s.handler.frames.empty());
}

// gen-certs run again on a folder with a CA replaced it, and every certificate handed out stopped
// being trusted. It refuses now (unless --force), and issues more certificates from that CA.
TEST(LiveTls, GenCertsKeepsItsCaAndIssuesMoreFromIt) {
  TempDir dir;
  const auto folder = dir.path() / "certs";
  write_deployment_certificates(folder, {});
  const auto ca = servescope::test::read_file(folder / "ca.pem");
  try {
    write_deployment_certificates(folder, {});
    ADD_FAILURE() << "replaced the CA";
  } catch (const QueryError& e) {
    EXPECT_TRUE(has(e.what(), "ca.key exists: a new CA would stop every certificate")) << e.what();
  }
  EXPECT_EQ(servescope::test::read_file(folder / "ca.pem"), ca);
  const auto files = issue_deployment_certificate(folder, "worker-b", "worker", {});
  ASSERT_EQ(files.size(), 2u);
  struct stat st {};
  ASSERT_EQ(::stat((folder / "worker-b.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_THROW(issue_deployment_certificate(folder, "worker-b", "worker", {}), QueryError);
  EXPECT_THROW(issue_deployment_certificate(folder, "other", "admin", {}), QueryError);
  EXPECT_THROW(issue_deployment_certificate(folder, "ca", "worker", {}), QueryError);
  DeploymentCertificates force;
  force.force = true;
  EXPECT_NO_THROW(issue_deployment_certificate(folder, "worker-b", "worker", force));
  // The new one is of the same CA, bound to its role.
  TlsServer s(load_tls(
      {(folder / "scheduler.pem").string(), (folder / "scheduler.key").string(), (folder / "ca.pem").string()}));
  TcpStream stream;
  const TlsFiles b{(folder / "worker-b.pem").string(), (folder / "worker-b.key").string(),
                   (folder / "ca.pem").string()};
  EXPECT_EQ(s.join_with(b, stream, nullptr, "a-token-of-16-bytes", PeerRole::Worker), "") << s.handler.all();
  TlsServer t(load_tls(
      {(folder / "scheduler.pem").string(), (folder / "scheduler.key").string(), (folder / "ca.pem").string()}));
  EXPECT_NE(t.join_with(b, stream, nullptr, "a-token-of-16-bytes", PeerRole::Gui), "");
  EXPECT_NO_THROW(write_deployment_certificates(folder, force));
  EXPECT_NE(servescope::test::read_file(folder / "ca.pem"), ca);
}

TEST(LiveTls, GenCertsWritesKeysForTheirOwnerOnly) {
  const auto& c = certs();
  for (const auto& role : {"ca", "scheduler", "worker", "loadgen", "gui"}) {
    struct stat st {};
    ASSERT_EQ(::stat((c.ours / (std::string(role) + ".key")).c_str(), &st), 0) << role;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << role;
  }
  // Files that do not belong together are named.
  try {
    load_tls({(c.ours / "worker.pem").string(), (c.ours / "gui.key").string(), (c.ours / "ca.pem").string()});
    ADD_FAILURE() << "a key of another certificate was taken";
  } catch (const LiveError& e) {
    EXPECT_TRUE(has(e.what(), "gui.key is not the key of --tls-cert")) << e.what();
  }
  EXPECT_THROW(load_tls({(c.ours / "gui.pem").string(), "", ""}), LiveError);
  try {
    load_tls({(c.ours / "gui.pem").string(), (c.ours / "gui.key").string(), "/nonexistent/ca.pem"});
    ADD_FAILURE();
  } catch (const LiveError& e) {
    EXPECT_TRUE(has(e.what(), "--tls-ca /nonexistent/ca.pem: no such file")) << e.what();
  }
}

}  // namespace
}  // namespace servescope::engine::live
