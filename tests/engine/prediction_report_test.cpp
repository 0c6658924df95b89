// A live run beside its prediction (engine/analysis/prediction_report.h) and what predicting a kept
// live run simulates (live_run_source.h), on runs written by hand so that every difference is known
// exactly. No clock anywhere.
#include "engine/analysis/prediction_report.h"

#include <algorithm>
#include <gtest/gtest.h>

#include "engine/analysis/decision_record.h"
#include "engine/analysis/live_run_source.h"
#include "engine/timeline/timeline_data.h"
#include "model/core/error.h"
#include "tests/support/durations.h"

namespace servescope::engine {
namespace {

using test::ms;

// Two slots of one device. Slot 0 runs ten batches of 4 of model a taking `took_ms` each, every
// 100 ms from `first_ms`; slot 1 ten of model b taking 20 ms, `slot1_start_ms` after each (< 0: none).
nlohmann::json timeline(double first_ms, double took_ms, double slot1_start_ms) {
  TimelineData t;
  t.models = {"a", "b"};
  t.gpus = {"d/v0", "d/v1"};
  t.gpu_types = {"dev", "dev"};
  t.gpu_shares = {"1/2", "1/2"};
  t.gpu_physical = {0, 0};
  t.gpu_server = {0, 0};
  t.gpu_duty_cycle = {Duration(), Duration()};
  t.server_names = {"s"};
  for (int i = 0; i < 10; ++i) {
    TimelineSpan s;
    s.gpu = 0;
    s.model = 0;
    s.size = 4;
    s.start = ms(first_ms + 100 * i);
    s.end = ms(first_ms + 100 * i + took_ms);
    t.spans.push_back(s);
    if (slot1_start_ms >= 0) {
      s.gpu = 1;
      s.model = 1;
      s.start = ms(first_ms + slot1_start_ms + 100 * i);
      s.end = s.start + ms(20);
      t.spans.push_back(s);
    }
  }
  std::ranges::sort(t.spans, {}, [](const TimelineSpan& s) { return std::pair(s.start, s.gpu); });
  t.end = t.spans.back().end;
  return to_json(t);
}

nlohmann::json model(const std::string& name, int arrivals, int on_time, int late, nlohmann::json drops,
                     double p99_ms) {
  return {{"name", name},
          {"arrivals", arrivals},
          {"on_time", on_time},
          {"late", late},
          {"dropped", arrivals - on_time - late},
          {"latency_ms", {{"p50", p99_ms / 2}, {"p99", p99_ms}}},
          {"drops_by_reason", drops.is_null() ? nlohmann::json::object() : std::move(drops)}};
}

// A run: models a and b with 1,000 arrivals each.
nlohmann::json run(bool live, int a_on_time, nlohmann::json a_drops, int a_late, nlohmann::json tl) {
  const int on_time = a_on_time + 1000;
  nlohmann::json body = {
      {"kind", "run-result"},
      {"system", "symphony"},
      {"config",
       {{"duration_s", 40.0},
        {"warmup_s", 7.0},
        {"seed", 7},
        {"offered_rate_rps", 5000.0},
        {"latency_quantile", 0.99},
        {"runtime", "sampled"}}},
      {"summary",
       {{"arrivals", 2000},
        {"on_time", on_time},
        {"late", a_late},
        {"goodput_rps", on_time / 10.0},
        {"latency_ms", {{"p99", 50.0}}}}},
      {"models", {model("a", 1000, a_on_time, a_late, std::move(a_drops), 40), model("b", 1000, 1000, 0, {}, 9)}},
      {"subclusters", {{"partition", live ? "live" : "ok"}, {"parts", nlohmann::json::array()}}},
      {"pipeline", nullptr}};
  // The load ran from 5 s to 15 s of the scheduler's 40: 200 arrivals a second.
  std::vector<int> arrivals(40, 0);
  std::fill(arrivals.begin() + 5, arrivals.begin() + 15, 200);
  body["timeseries"] = {{"bin_s", 1.0}, {"arrivals", arrivals}};
  if (!tl.is_null()) body["timeline"] = std::move(tl);
  return body;
}

TEST(PredictionReport, ListsEachMissAndItsMeasuredCauseLargestFirst) {
  // Live: model a loses 80 requests to a lost worker and 20 finish late; its batches take 30 ms
  // against 20 predicted, and slot 1's (b's, 20 ms on both sides) run 10 ms into each of them;
  // predicted, the slots never overlap.
  const auto live = run(true, 900, {{"worker-lost", 80}}, 20, timeline(5000, 30, 10));
  const auto predicted = run(false, 995, {{"deadline-unreachable", 5}}, 0, timeline(0, 20, 50));
  EXPECT_TRUE(is_live_run(live));
  EXPECT_FALSE(is_live_run(predicted));
  const auto r = compare_with_prediction(live, predicted, "live", "predicted");
  ASSERT_EQ(r.models.size(), 2u);
  EXPECT_EQ(r.models[0].model, "a");
  EXPECT_DOUBLE_EQ(r.models[0].live_attainment, 0.9);
  EXPECT_DOUBLE_EQ(r.models[0].predicted_attainment, 0.995);
  // Goodput over the load's 8 s after the warm-up (15 s less 7), not the run's recorded window.
  EXPECT_DOUBLE_EQ(r.models[0].live_goodput_rps, 900 / 8.0);
  EXPECT_DOUBLE_EQ(r.models[0].predicted_goodput_rps, 995 / 8.0);
  EXPECT_DOUBLE_EQ(r.models[0].live_p99_ms, 40.0);
  EXPECT_DOUBLE_EQ(r.total.live_attainment, 0.95);
  ASSERT_TRUE(r.notes.empty());
  std::vector<std::string> texts;
  for (const auto& d : r.differences)
    texts.push_back(d.text);
  ASSERT_EQ(texts.size(), 6u) << ::testing::PrintToString(texts);
  // Of every 50 ms of slot time live, 40 ran beside the other slot (both during [10, 30) of each
  // cycle); then a's batches at 1.5x (50 % longer).
  EXPECT_EQ(texts[0],
            "slots ran beside another busy slot of their device 80.0 % of their busy time live, 0.0 % "
            "predicted (contention slows both)");
  EXPECT_EQ(texts[1], "a: live batches took 1.50x the predicted time (median per batch size, 10 live batches)");
  EXPECT_EQ(texts[2], "a: 90.00 % on time live, 99.50 % predicted (-9.50 points)");
  EXPECT_EQ(texts[3], "a: dropped: worker-lost 80 live (8.00 %), 0 predicted (0.00 %)");
  EXPECT_EQ(texts[4], "a: late 20 live (2.00 %), 0 predicted (0.00 %)");
  EXPECT_EQ(texts[5], "a: dropped: deadline-unreachable 0 live (0.00 %), 5 predicted (0.50 %)");
  // Model b ran at the same pace and met every deadline on both sides: nothing said of it.
  for (const auto& t : texts)
    EXPECT_NE(t.rfind("b:", 0), 0u) << t;
}

TEST(PredictionReport, SaysWhatItCouldNotCompareAndNamesAMalformedRun) {
  const auto live = run(true, 1000, {}, 0, nullptr);
  const auto r = compare_with_prediction(live, run(false, 1000, {}, 0, timeline(0, 20, -1)), "live", "predicted");
  EXPECT_TRUE(r.differences.empty());
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0], "batch times and contention not compared: live: the run keeps no timeline");
  auto broken = live;
  broken["models"][0].erase("name");
  try {
    compare_with_prediction(broken, live, "kept live run", "p");
    FAIL() << "a model without a name was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("kept live run"), std::string::npos) << e.what();
  }
}

TEST(LiveRunSource, PredictsTheLoadItWasOfferedNotTheSchedulersWorkloadOrLifetime) {
  Project project;
  SavedArtifact kept{"live 1", "symphony", "", run(true, 1000, {}, 0, nullptr)};
  const auto source = live_run_source(project, kept);
  EXPECT_EQ(source.spec.system, "symphony");
  EXPECT_EQ(source.label, "symphony");
  // 2,000 arrivals in the 10 s the load ran, not the scheduler's workload rate over its 40 s;
  // its 7-s warm-up is 2 s of the load.
  EXPECT_DOUBLE_EQ(*source.spec.rate_rps, 200.0);
  EXPECT_EQ(source.spec.duration, Duration::seconds(10));
  EXPECT_EQ(source.spec.warmup, Duration::seconds(2));
  EXPECT_EQ(source.spec.seed, 7u);
  EXPECT_DOUBLE_EQ(source.spec.latency_quantile, 0.99);
  EXPECT_FALSE(source.spec.exact_runtime);
  EXPECT_FALSE(source.spec.controller) << "no decision time in the record: decisions are free";
  // An older record of the live scheduler's decisions, a mean without quantiles: said, on time.
  auto measured = kept;
  measured.body["scheduler"] = {{"dispatch_overhead_us", {{"mean", 250.0}, {"p50", 150.0}, {"count", 178}}}};
  const auto noted = live_run_source(project, measured);
  EXPECT_FALSE(noted.spec.controller);
  EXPECT_EQ(noted.notes.front(),
            "the live scheduler's decisions took 250 µs on average; its record keeps no distribution of them, so "
            "the prediction's are on time");
  const auto cost = recorded_decision_cost(measured.body, "m");
  ASSERT_TRUE(cost);
  EXPECT_EQ(cost->cores, 1);
  EXPECT_EQ(cost->per_event, Duration::microseconds(250));
  EXPECT_FALSE(recorded_decision_lateness(measured.body, "m"));
  // With its quantiles (`live scheduler --record` now): the prediction's decisions are as late,
  // drawn from them, and not charged as work.
  measured.body["scheduler"]["dispatch_overhead_us"]["quantiles_us"] = {20, 30, 60, 150, 260, 500, 700, 1400, 2500};
  const auto late = live_run_source(project, measured);
  ASSERT_TRUE(late.spec.controller);
  EXPECT_EQ(late.spec.controller->per_event, Duration());
  ASSERT_TRUE(late.spec.controller->lateness);
  EXPECT_EQ(late.spec.controller->lateness->median(), Duration::microseconds(150));
  EXPECT_EQ(late.spec.controller->lateness->quantile(0.99), Duration::microseconds(1400));
  EXPECT_EQ(late.notes.front(),
            "each decision is as late as the live scheduler's were (median 150 µs, p99 1400 µs, drawn)");
  // The block alone reads the same (the file fidelity.py keeps of a calibration run).
  EXPECT_EQ(recorded_decision_lateness(measured.body["scheduler"]["dispatch_overhead_us"], "block"),
            late.spec.controller->lateness);
  // Quantiles that fall, or too few, are refused where they are.
  auto falling = measured.body;
  falling["scheduler"]["dispatch_overhead_us"]["quantiles_us"][3] = 10;
  try {
    recorded_decision_lateness(falling, "f.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("$.scheduler.dispatch_overhead_us.quantiles_us[3]"), std::string::npos)
        << e.what();
  }
  falling["scheduler"]["dispatch_overhead_us"]["quantiles_us"] = {1, 2};
  EXPECT_THROW(recorded_decision_lateness(falling, "f.json"), Error);
  // The loop's hops (engine/sim/live_hops.h): drawn alike, each said; none where none was kept.
  EXPECT_FALSE(late.spec.hops.any());
  const std::vector<double> hop_us{40, 50, 80, 120, 170, 260, 330, 430, 900};
  measured.body["scheduler"]["batch_hop_us"] = {{"count", 800}, {"quantiles_us", hop_us}};
  measured.body["scheduler"]["transfer_overhead_us"] = {{"count", 0}, {"quantiles_us", hop_us}};
  const auto hopped = live_run_source(project, measured);
  ASSERT_TRUE(hopped.spec.hops.batch);
  EXPECT_FALSE(hopped.spec.hops.transfer) << "no transfer in the run: none drawn";
  EXPECT_EQ(hopped.spec.hops.batch->median(), Duration::microseconds(120));
  EXPECT_EQ(hopped.spec.hops.seed, hopped.spec.seed);
  EXPECT_NE(std::ranges::find(hopped.notes,
                              "each batch ordered to start at once starts as late as the live run's did "
                              "(median 120 µs, p99 430 µs, drawn)"),
            hopped.notes.end());
  measured.body["scheduler"]["transfer_overhead_us"]["count"] = 300;
  // The record's scheduler block alone reads the same (the file fidelity.py keeps).
  const auto hops = recorded_live_hops(measured.body["scheduler"], "loop.json");
  ASSERT_TRUE(hops.transfer);
  EXPECT_EQ(hops.transfer->quantiles, hops.batch->quantiles);
  EXPECT_EQ(hops.batch, hopped.spec.hops.batch);
  measured.body["scheduler"]["batch_hop_us"]["quantiles_us"][0] = 100;
  try {
    recorded_live_hops(measured.body, "r.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("$.scheduler.batch_hop_us.quantiles_us[1]"), std::string::npos) << e.what();
  }
  measured.body["scheduler"].erase("batch_hop_us");
  measured.body["scheduler"].erase("transfer_overhead_us");
  measured.body["scheduler"]["dispatch_overhead_us"]["count"] = 0;
  EXPECT_FALSE(recorded_decision_cost(measured.body, "m"));
  EXPECT_FALSE(recorded_decision_lateness(measured.body, "m"));
  // A simulated run is refused, naming it; so is a live run of a plan the project lacks.
  SavedArtifact simulated{"sim", "symphony", "", run(false, 1000, {}, 0, nullptr)};
  EXPECT_THROW(live_run_source(project, simulated), QueryError);
  auto planned = kept;
  planned.body["system"] = "reservation";
  planned.body["pipeline"] = {{"plan_system", "ppipe"}};
  try {
    live_run_source(project, planned);
    FAIL();
  } catch (const QueryError& e) {
    EXPECT_STREQ(e.what(), "'live 1' served a ppipe plan, and the project holds none to run");
  }
}

}  // namespace
}  // namespace servescope::engine
