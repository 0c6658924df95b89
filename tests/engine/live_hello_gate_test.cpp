// The gate before hello (docs/protocol.md "Frames"), on made-up ids, addresses and times: a
// flood from one address pushes out its own oldest connections, never a newcomer; strangers never
// take the share kept for workers' addresses; the deadline shortens as the room fills; a source
// that keeps failing hellos is held back for a growing while and logged as a count.
#include <gtest/gtest.h>

#include "engine/live/hello_gate.h"

namespace servescope::engine::live {
namespace {

using namespace std::chrono_literals;
using GateTime = HelloGate::Time;

const GateTime t0{};

TEST(HelloGate, AFloodFromOneAddressPushesOutItsOwnOldestNeverTheNewcomer) {
  HelloGate gate;
  std::uint64_t id = 0;
  for (; id < 100; ++id) {
    const auto a = gate.arrive(id, "127.0.0.1", t0 + std::chrono::milliseconds(id));
    EXPECT_TRUE(a.admitted);
    // Past the per-source limit (16), each newcomer closes the oldest from the same address.
    if (id < 16) {
      EXPECT_FALSE(a.evicted) << id;
    } else {
      ASSERT_TRUE(a.evicted) << id;
      EXPECT_EQ(*a.evicted, id - 16);
    }
  }
  EXPECT_EQ(gate.waiting(), 16u);
  // A client from another address is let in without pushing anyone out.
  const auto gui = gate.arrive(id++, "10.0.0.9", t0 + 200ms);
  EXPECT_TRUE(gui.admitted);
  EXPECT_FALSE(gui.evicted);
  // And one from the flooded address gets in too, at the cost of the flood's oldest.
  const auto worker = gate.arrive(id, "127.0.0.1", t0 + 200ms);
  EXPECT_TRUE(worker.admitted);
  EXPECT_EQ(worker.evicted, std::optional<std::uint64_t>(84));
}

TEST(HelloGate, AConnectionThatStartedItsHelloIsSparedWhileASilentOneCanGo) {
  HelloGate gate;
  for (std::uint64_t id = 0; id < 16; ++id)
    gate.arrive(id, "127.0.0.1", t0);
  // 0 and 1 have sent part of a hello: the oldest silent one, 2, goes instead.
  const auto speaking = [](std::uint64_t id) { return id < 2; };
  EXPECT_EQ(gate.arrive(16, "127.0.0.1", t0, speaking).evicted, std::optional<std::uint64_t>(2));
  // When every one of them speaks, the oldest goes all the same: the limit holds.
  EXPECT_EQ(gate.arrive(17, "127.0.0.1", t0, [](std::uint64_t) { return true; }).evicted,
            std::optional<std::uint64_t>(0));
  EXPECT_EQ(gate.waiting(), 16u);
}

TEST(HelloGate, StrangersNeverTakeTheShareKeptForWorkersAddresses) {
  HelloGate gate;
  gate.arrive(1000, "10.0.0.1", t0);
  gate.welcomed(1000, /*worker=*/true);
  EXPECT_TRUE(gate.known_worker_source("10.0.0.1"));
  EXPECT_EQ(gate.waiting(), 0u);
  // Strangers from many addresses (under the per-source limit each) fill their 48 places...
  std::uint64_t id = 0;
  for (; id < 48; ++id)
    EXPECT_FALSE(gate.arrive(id, "192.168.0." + std::to_string(id), t0).evicted);
  // ...then each newcomer among them pushes out the oldest stranger.
  for (; id < 200; ++id) {
    const auto a = gate.arrive(id, "192.168.1." + std::to_string(id % 200), t0);
    EXPECT_TRUE(a.admitted);
    ASSERT_TRUE(a.evicted);
    EXPECT_EQ(*a.evicted, id - 48);
  }
  // The restarting worker's address finds room without pushing anyone out, and stays.
  const auto worker = gate.arrive(5000, "10.0.0.1", t0);
  EXPECT_TRUE(worker.admitted);
  EXPECT_FALSE(worker.evicted);
  for (; id < 400; ++id)
    EXPECT_NE(gate.arrive(id, "192.168.2." + std::to_string(id % 200), t0).evicted, std::optional<std::uint64_t>(5000));
  EXPECT_EQ(gate.waiting(), 49u);
  gate.welcomed(5000, true);
  EXPECT_EQ(gate.waiting(), 48u);
}

TEST(HelloGate, TheDeadlineShortensOnceTheRoomIsHalfFull) {
  HelloGate gate;
  gate.arrive(0, "10.0.0.1", t0);
  EXPECT_EQ(gate.deadline(), 5000ms);
  EXPECT_TRUE(gate.overdue(t0 + 4900ms).empty());
  EXPECT_EQ(gate.overdue(t0 + 5100ms), std::vector<std::uint64_t>{0});
  for (std::uint64_t id = 1; id < 32; ++id)
    gate.arrive(id, "10.0.1." + std::to_string(id), t0 + 500ms);
  EXPECT_EQ(gate.deadline(), 1000ms);
  EXPECT_EQ(gate.overdue(t0 + 1200ms), std::vector<std::uint64_t>{0});
  EXPECT_EQ(gate.overdue(t0 + 1600ms).size(), 32u);
  gate.leave(0);
  gate.leave(1);
  EXPECT_EQ(gate.deadline(), 5000ms);
}

TEST(HelloGate, ASourceThatKeepsFailingIsHeldBackAndLoggedAsACount) {
  HelloGate gate;
  const std::string guesser = "10.9.9.9";
  // The first failure is logged with its reason; the next ones only counted.
  const auto first = gate.failed(guesser, "bad token", t0);
  ASSERT_TRUE(first);
  EXPECT_EQ(*first, "refused a connection from 10.9.9.9: bad token");
  EXPECT_FALSE(gate.failed(guesser, "bad token", t0 + 1ms));
  EXPECT_FALSE(gate.failed(guesser, "bad token", t0 + 2ms));
  // Three failures are free: a mistyped token is not punished.
  EXPECT_FALSE(gate.holds(guesser, t0 + 2ms));
  // Then its hellos are held back for 50 ms, doubling with each failure up to 500 ms.
  EXPECT_FALSE(gate.failed(guesser, "bad token", t0 + 10ms));
  EXPECT_TRUE(gate.holds(guesser, t0 + 59ms));
  EXPECT_FALSE(gate.holds(guesser, t0 + 61ms));
  GateTime at = t0 + 100ms;
  for (const auto held : {100ms, 200ms, 400ms, 500ms, 500ms}) {
    EXPECT_FALSE(gate.failed(guesser, "bad token", at));
    EXPECT_TRUE(gate.holds(guesser, at + held - 1ms));
    EXPECT_FALSE(gate.holds(guesser, at + held + 1ms));
    at += 1s;
  }
  // Another address is not held back for it.
  EXPECT_FALSE(gate.holds("10.0.0.1", t0 + 60ms));
  // Once the interval is over, the count is logged in one line.
  EXPECT_TRUE(gate.summaries(t0 + 4500ms).empty());
  const auto lines = gate.summaries(t0 + 5s);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "8 more refused connections from 10.9.9.9 in the last 5 s (the last refused: bad token)");
  // Then a new interval starts with the next failure logged again.
  EXPECT_TRUE(gate.failed(guesser, "bad token", t0 + 5100ms));
}

TEST(HelloGate, AHeldConnectionIsNotOverdueItsHelloIsOursToRead) {
  HelloGateLimits limits;
  limits.deadline = 100ms;
  limits.free_failures = 0;
  limits.first_backoff = limits.max_backoff = 1s;
  HelloGate gate(limits);
  gate.arrive(1, "10.9.9.9", t0);
  gate.failed("10.9.9.9", "bad token", t0);
  EXPECT_TRUE(gate.overdue(t0 + 500ms).empty());
  EXPECT_EQ(gate.overdue(t0 + 1100ms), std::vector<std::uint64_t>{1});
}

}  // namespace
}  // namespace servescope::engine::live
