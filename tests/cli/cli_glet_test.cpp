// servescope-cli end to end, gpu-lets: planning with every gpu-let system and simulating the plan,
// glet-serving, and fit-interference recovering the interference coefficients from co-runs.
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/cli/cli_test_support.h"
#include "tests/support/glet_fixture.h"
#include "tests/support/test_support.h"

using servescope::test::cli;
using servescope::test::TempDir;

TEST(Cli, GletPlansEverySystemAndSimulatesThePlan) {
  TempDir dir;
  const auto scenario = dir.write("scenario.json", servescope::test::glet_scenario_json(1200));
  for (const auto* system : {"glet", "glet-noint", "sbp", "sbp-even", "greedy-bestfit", "ideal"}) {
    const auto out = (dir.path() / (std::string(system) + ".json")).string();
    const auto r = cli({"plan", "-s", scenario, "--system", system, "-o", out});
    ASSERT_EQ(r.status, 0) << system << ": " << r.err;
    EXPECT_NE(r.out.find(std::string(system) + ": fits on"), std::string::npos) << r.out;
    const auto plan = nlohmann::json::parse(servescope::test::read_file(out));
    EXPECT_EQ(plan["kind"], "glet-plan");
    EXPECT_EQ(plan["system"], system);
    EXPECT_TRUE(plan["feasible"].get<bool>());
  }
  const auto run = cli({"--json", "simulate", "-s", scenario, "--plan", (dir.path() / "glet.json").string(),
                        "--load-factor", "0.8", "-d", "10"});
  ASSERT_EQ(run.status, 0) << run.err;
  const auto result = nlohmann::json::parse(run.out);
  EXPECT_EQ(result["system"], "glet");
  EXPECT_GE(result["summary"]["slo_attainment"].get<double>(), 0.99);
  // Too much for four GPUs: the plan says which model does not fit, and the command fails.
  const auto heavy = dir.write("heavy.json", servescope::test::glet_scenario_json(40000));
  const auto over = cli({"plan", "-s", heavy, "--system", "glet"});
  EXPECT_EQ(over.status, 1);
  EXPECT_NE(over.out.find("do not fit on 4 GPU(s)"), std::string::npos) << over.out;
  // --sizes narrows the partition sizes: every glet of the plan is one of them.
  const auto halves = cli({"--json", "plan", "-s", scenario, "--system", "glet", "--sizes", "50,100"});
  ASSERT_EQ(halves.status, 0) << halves.err;
  const auto halves_plan = nlohmann::json::parse(halves.out);
  for (const auto& gpu : halves_plan["layout"])
    for (const auto& glet : gpu["glets"])
      EXPECT_TRUE(glet["size_percent"] == 50 || glet["size_percent"] == 100) << glet.dump();
  EXPECT_EQ(cli({"plan", "-s", scenario, "--system", "glet", "--sizes", "50,150"}).status, 2);
  // glet-serving schedules by itself and reports each schedule it ran.
  const auto served = cli({"--json", "simulate", "-s", scenario, "--system", "glet-serving", "-d", "25", "--period",
                           "10", "--reorganisation", "2"});
  ASSERT_EQ(served.status, 0) << served.err;
  const auto served_json = nlohmann::json::parse(served.out);
  ASSERT_GE(served_json["reorganisations"].size(), 1u);
  EXPECT_EQ(served_json["reorganisations"][0]["active_s"].get<double>(), 0.0);
  EXPECT_GE(served_json["summary"]["slo_attainment"].get<double>(), 0.99);
  // A glet plan runs only on the glet data plane.
  const auto wrong =
      cli({"simulate", "-s", scenario, "--plan", (dir.path() / "glet.json").string(), "--system", "reservation"});
  EXPECT_EQ(wrong.status, 2) << wrong.err;
  EXPECT_NE(wrong.err.find("glet data plane"), std::string::npos) << wrong.err;
}

TEST(Cli, FitInterferenceRecoversCoefficientsFromCoRuns) {
  TempDir dir;
  const auto scenario = dir.write("scenario.json", servescope::test::glet_scenario_json(100));
  // Co-runs of the fixture's models a and b made from known coefficients. Their utilisation is
  // linear in batch between 1 and 32 (half at batch 1), so features vary enough to fit all five.
  const double c1 = 0.1, c2 = 0.6, c3 = 0.3, c4 = 0.1, c5 = 0.92;
  const auto feature = [](double full, int b) { return full / 2 + (full / 2) * (b - 1) / 31.0; };
  std::ostringstream csv;
  csv.precision(15);  // the co-run latencies carry the coefficients: do not round them away
  csv << "model,batch,size_percent,other_model,other_batch,other_size_percent,solo_ms,corun_ms\n";
  const std::map<std::string, std::pair<double, double>> util = {{"a", {0.2, 0.4}}, {"b", {0.3, 0.5}}};
  for (const auto* self : {"a", "b"})
    for (const auto* other : {"a", "b"})
      for (const int b : {1, 4, 8, 16, 32})
        for (const int ob : {2, 8, 32})
          for (const auto& [p, q] : std::vector<std::pair<int, int>>{{20, 80}, {40, 60}, {50, 50}, {80, 20}}) {
            const auto [l2, dram] = util.at(self);
            const auto [ol2, odram] = util.at(other);
            const double slowdown = c1 * feature(l2, b) * p / 100 + c2 * feature(ol2, ob) * q / 100 +
                                    c3 * feature(dram, b) * p / 100 + c4 * feature(odram, ob) * q / 100 + c5;
            csv << self << "," << b << "," << p << "," << other << "," << ob << "," << q << ",10," << 10 * slowdown
                << "\n";
          }
  const auto coruns = dir.write("coruns.csv", csv.str());
  const auto out = (dir.path() / "int.json").string();
  const auto r = cli({"fit-interference", "--coruns", coruns, "--profiles", scenario, "--gpu", "RTX2080Ti", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("validation on"), std::string::npos) << r.err;
  const auto set = nlohmann::json::parse(servescope::test::read_file(out));
  ASSERT_EQ(set["interference"].size(), 1u);
  const auto& m = set["interference"][0];
  EXPECT_NEAR(m["l2_self"].get<double>(), c1, 1e-6);
  EXPECT_NEAR(m["l2_other"].get<double>(), c2, 1e-6);
  EXPECT_NEAR(m["dram_self"].get<double>(), c3, 1e-6);
  EXPECT_NEAR(m["dram_other"].get<double>(), c4, 1e-6);
  EXPECT_NEAR(m["constant"].get<double>(), c5, 1e-6);
  // A model without utilisation is named, with its line.
  const auto bad = dir.write("bad.csv",
                             "model,batch,size_percent,other_model,other_batch,other_size_percent,solo_ms,"
                             "corun_ms\nd,1,50,a,1,50,10,11\n");
  const auto refused = cli({"fit-interference", "--coruns", bad, "--profiles", scenario, "--gpu", "RTX2080Ti"});
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("line 2"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("no L2/DRAM utilisation for d"), std::string::npos) << refused.err;
}

// --headroom plans for the prototype's rate headroom (×1.5 under 125 req/s, ×1.2 above): each
// model's planned rate is the workload's raised by it, where without it the rate is the
// workload's own. (The flag was once parsed and then dropped.)
TEST(Cli, GletHeadroomRaisesThePlannedRates) {
  TempDir dir;
  const auto scenario = dir.write("scenario.json", servescope::test::glet_scenario_json(1200));
  const auto plain = cli({"--json", "plan", "-s", scenario, "--system", "glet"});
  const auto raised = cli({"--json", "plan", "-s", scenario, "--system", "glet", "--headroom"});
  ASSERT_EQ(plain.status, 0) << plain.err;
  ASSERT_EQ(raised.status, 0) << raised.err;
  const auto a = nlohmann::json::parse(plain.out)["models"];
  const auto b = nlohmann::json::parse(raised.out)["models"];
  ASSERT_EQ(a.size(), b.size());
  ASSERT_FALSE(a.empty());
  for (std::size_t m = 0; m < a.size(); ++m) {
    const double rate = a[m]["rate_rps"].get<double>();
    EXPECT_NEAR(b[m]["rate_rps"].get<double>(), rate < 125 ? 1.5 * rate : 1.2 * rate, 1e-6) << b[m].dump();
  }
}
