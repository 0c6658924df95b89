// The live scheduler's bookkeeping objects on made-up plans and times: the roster of workers
// (which slots are usable as workers join, fall into doubt and leave, and a plan switch that keeps
// the workers) and its timers (what is due comes out in time order, timers before completions at
// one time, and a switch clears it all).
#include <gtest/gtest.h>

#include "engine/live/live_timers.h"
#include "engine/live/worker_roster.h"
#include "model/core/error.h"

namespace servescope::engine::live {
namespace {

Time at_ms(std::int64_t ms) {
  return Time() + Duration::milliseconds(ms);
}

TEST(WorkerRoster, SlotsAreUsableWhileTheirWorkerIsHereAndAnswering) {
  WorkerRoster roster({"a", "b", "c"});
  roster.set_plan({0, 0, 1});  // slots 0 and 1 on a, slot 2 on b; c unused
  EXPECT_EQ(roster.slots_of(0), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(roster.server_of(2), 1u);
  EXPECT_EQ(roster.missing(), (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(roster.slot_usable(0));
  EXPECT_FALSE(roster.doubt(0)) << "a server without a worker is not doubted";

  roster.join(0, 7);
  EXPECT_EQ(roster.worker(0), 7u);
  EXPECT_TRUE(roster.slot_usable(0) && roster.slot_usable(1));
  EXPECT_FALSE(roster.slot_usable(2));
  EXPECT_EQ(roster.connected(), 1u);
  EXPECT_EQ(roster.missing(), (std::vector<std::string>{"b"}));

  EXPECT_TRUE(roster.doubt(0));
  EXPECT_FALSE(roster.doubt(0)) << "already in doubt";
  EXPECT_FALSE(roster.slot_usable(0));
  EXPECT_TRUE(roster.clear_doubt(0));
  EXPECT_FALSE(roster.clear_doubt(0));
  EXPECT_TRUE(roster.slot_usable(0));

  roster.doubt(0);
  roster.leave(0);  // a lost worker takes its doubt with it
  EXPECT_FALSE(roster.doubted(0));
  EXPECT_EQ(roster.worker(0), 0u);
  EXPECT_EQ(roster.connected(), 0u);
}

TEST(WorkerRoster, ANewPlanKeepsTheWorkersAndSaysWhichServersItUses) {
  WorkerRoster roster({"a", "b"});
  roster.set_plan({0});
  roster.join(1, 3);
  EXPECT_TRUE(roster.missing() == std::vector<std::string>{"a"});
  roster.set_plan({1, 1});
  EXPECT_TRUE(roster.missing().empty());
  EXPECT_TRUE(roster.slot_usable(1));
  const auto status = roster.status();
  ASSERT_EQ(status.size(), 2u);
  EXPECT_EQ(status[0], (nlohmann::json{{"server", "a"}, {"connected", false}, {"used", false}}));
  EXPECT_EQ(status[1], (nlohmann::json{{"server", "b"}, {"connected", true}, {"used", true}}));
  EXPECT_EQ(roster.find("b"), 1u);
  EXPECT_FALSE(roster.find("z"));
  EXPECT_THROW(roster.set_plan({2}), QueryError);
}

TEST(LiveTimers, WhatIsDueComesOutInTimeOrderTimersFirst) {
  LiveTimers timers;
  const auto early = timers.create(11);
  const auto late = timers.create(22);
  timers.arm(late, at_ms(30));
  timers.arm(early, at_ms(10));
  timers.complete_at(at_ms(10), BatchDone{5, 0, 0, 1, at_ms(0), at_ms(0)});
  timers.deliver_at(at_ms(20), TransferDone{6, 5, 0, 1, at_ms(0), at_ms(20)});
  EXPECT_EQ(timers.next_due(), at_ms(10));
  EXPECT_FALSE(timers.take_due(at_ms(9)));

  auto due = timers.take_due(at_ms(25));
  ASSERT_TRUE(due);
  EXPECT_EQ(std::get<std::uint64_t>(due->what), 11u);  // a timer before a completion at one time
  due = timers.take_due(at_ms(25));
  ASSERT_TRUE(due);
  EXPECT_EQ(std::get<BatchDone>(due->what).id, 5u);
  due = timers.take_due(at_ms(25));
  ASSERT_TRUE(due);
  EXPECT_EQ(due->at, at_ms(20));
  EXPECT_EQ(std::get<TransferDone>(due->what).id, 6u);
  EXPECT_FALSE(timers.take_due(at_ms(25)));

  timers.arm(late, at_ms(26));  // re-armed: moved, not doubled
  EXPECT_EQ(timers.next_due(), at_ms(26));
  timers.disarm(late);
  EXPECT_FALSE(timers.next_due());

  timers.arm(early, at_ms(40));
  timers.complete_at(at_ms(50), BatchDone{});
  timers.clear();
  EXPECT_FALSE(timers.next_due());
}

}  // namespace
}  // namespace servescope::engine::live
