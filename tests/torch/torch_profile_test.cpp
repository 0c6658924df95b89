// The profiler (README "Real models") measures every block at every batch and share, writes the
// median and the 99th percentile and the cut bytes, and its profile plans: `servescope-cli profile
// --scenario-out` then `plan --system ppipe` end to end. Nothing here asserts a time.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <thread>

#include "model/core/error.h"
#include "model/io/document.h"
#include "tests/support/test_support.h"
#include "tests/torch/exported_models.h"
#include "torchexec/block_profiler.h"

namespace servescope::torchexec {
namespace {

TEST(TorchProfile, MeasuresEveryBlockBatchAndShare) {
  if (!std::filesystem::exists(::servescope::test::exported_resnet18() / kExportedModelManifest))
    GTEST_SKIP() << "no exported model";
  const TorchModel model(read_exported_model(::servescope::test::exported_resnet18()));
  ProfileRequest request;
  request.batches = {2, 1};
  request.shares = {1};
  request.repeat = RepeatPolicy::fixed(3, 1);
  std::size_t calls = 0, last_done = 0;
  const auto m = profile_model(model, request, [&](const ProfileProgress& p) {
    ++calls;
    EXPECT_GE(p.done, last_done);
    last_done = p.done;
  });
  // 3 rounds (the default) × 2 batches × (3 blocks + the whole model); the 3 runs asked for are
  // one per round, pooled.
  EXPECT_EQ(request.rounds, 3);
  EXPECT_EQ(last_done, 3u * 2u * (3 + 1));
  EXPECT_GT(calls, last_done);
  EXPECT_TRUE(m.device.id.starts_with("cpu-")) << m.device.id;
  const auto& p = m.profile;
  EXPECT_EQ(p.form, ProfileForm::Blocks);
  EXPECT_EQ(p.block_count, 3);
  EXPECT_EQ(p.boundary_bytes,
            (std::vector<std::int64_t>{model.manifest().cut_bytes(1), model.manifest().cut_bytes(2)}));
  ASSERT_EQ(p.block_tables.size(), 1u);
  const auto& t = p.block_tables[0];
  EXPECT_EQ(t.gpu, m.device.id);
  ASSERT_EQ(t.blocks.size(), 3u);
  ASSERT_EQ(t.p99.size(), 3u);
  ASSERT_EQ(t.distributions.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(t.blocks[k].batches(), (std::vector<int>{1, 2}));
    ASSERT_EQ(t.distributions[k].size(), 2u);
    for (std::size_t b = 0; b < 2; ++b) {
      // Percentiles of one sample: the 99th is never below the median, however loaded the
      // machine (the times themselves are never compared with anything).
      EXPECT_GE(t.p99[k].latency()[b], t.blocks[k].latency()[b]);
      // The distribution is the table's: its median and 99th percentile are the rows'.
      const auto& d = t.distributions[k][b];
      EXPECT_EQ(d.runs, 3);
      EXPECT_EQ(d.median(), t.blocks[k].latency()[b]);
      EXPECT_EQ(d.quantile(0.99), t.p99[k].latency()[b]);
      EXPECT_TRUE(std::ranges::is_sorted(d.quantiles));
    }
    // Fitted monotone over batch sizes, level by level.
    for (std::size_t level = 0; level < kDistributionLevels.size(); ++level)
      EXPECT_LE(t.distributions[k][0].quantiles[level], t.distributions[k][1].quantiles[level]);
  }
  EXPECT_EQ(m.entries, 2u * (3 + 1));
  EXPECT_TRUE(m.contention.samples.empty()) << "a whole device has no slots beside it";
  ASSERT_EQ(m.checks.size(), 2u);
  EXPECT_EQ(m.checks.front().whole_runs, 3);
  ASSERT_TRUE(p.default_slo.has_value());
  // Written and read back as a profiles document, unchanged.
  test::TempDir tmp;
  ProfileSet set;
  set.name = "measured";
  set.models.push_back(p);
  const auto file = tmp.path() / "p.json";
  save_profiles(file, set);
  EXPECT_EQ(load_profiles(file.string()).models.front(), p);

  ProfileRequest bad = request;
  bad.batches = {};
  EXPECT_THROW((void)profile_model(model, bad), QueryError);
  bad = request;
  bad.shares = {1000};
  EXPECT_THROW((void)profile_model(model, bad), QueryError);
  bad = request;
  bad.repeat.max_runs = 0;
  EXPECT_THROW((void)profile_model(model, bad), QueryError);
  std::atomic<bool> stop{true};
  EXPECT_THROW((void)profile_model(model, request, {}, &stop), Cancelled);
}

// Slots of share 1/2 measured side by side: one sample per batch size, two slots at once, each
// slot's runs counted. Whatever the machine's load, a slowdown is never below 1 (the figures
// themselves are the benchmark's).
TEST(TorchProfile, MeasuresHowSlotsOfAShareSlowEachOtherRunningAtOnce) {
  if (!std::filesystem::exists(::servescope::test::exported_resnet18() / kExportedModelManifest))
    GTEST_SKIP() << "no exported model";
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "share 1/2 needs two hardware threads";
  const TorchModel model(read_exported_model(::servescope::test::exported_resnet18()));
  ProfileRequest request;
  request.batches = {1, 2};
  request.shares = {2};
  request.repeat = RepeatPolicy::fixed(3, 1);
  std::size_t total = 0, done = 0;
  std::vector<std::string> what;
  const auto m = profile_model(model, request, [&](const ProfileProgress& p) {
    total = p.total;
    done = p.done;
    what.push_back(p.what);
  });
  // Each block and the whole model once per round, and one entry per batch size with two slots
  // at once.
  EXPECT_EQ(total, 3u * 2u * (3 + 1) + 2u);
  EXPECT_EQ(done, total);
  EXPECT_NE(std::ranges::find(what, "2 slots of share 1/2 at once, batch 2"), what.end());
  EXPECT_NE(std::ranges::find(what, "block 2, batch 1, share 1/2, round 2 of 3"), what.end());
  const auto& c = m.contention;
  EXPECT_EQ(c.gpu, m.device.id);
  ASSERT_EQ(c.samples.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(c.samples[i].share, GpuShare::mps(2));
    EXPECT_EQ(c.samples[i].batch, static_cast<int>(i) + 1);
    EXPECT_EQ(c.samples[i].slots, 2);
    EXPECT_GE(c.samples[i].slowdown, 1.0);
    EXPECT_GE(c.samples[i].runs, 3) << "the timed slot's runs at least";
  }
  request.contention = false;
  EXPECT_TRUE(profile_model(model, request).contention.samples.empty());
}

// A new user's path: profile the exported model into a scenario, and plan it with PPipe.
TEST(TorchProfile, AProfiledModelPlansFromTheCommandLine) {
  if (!std::filesystem::exists(::servescope::test::exported_resnet18() / kExportedModelManifest))
    GTEST_SKIP() << "no exported model";
  test::TempDir tmp;
  const auto scenario = (tmp.path() / "scenario.json").string();
  const auto profiles = (tmp.path() / "profiles.json").string();
  const auto plan = (tmp.path() / "plan.json").string();
  const auto run = [&](const std::string& args) {
    const std::string cmd = std::string(SERVESCOPE_CLI) + " " + args + " >" + (tmp.path() / "out").string() + " 2>" +
                            (tmp.path() / "err").string();
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  };
  // A generous default SLO (100 x the measured whole model), so that whether PPipe finds a plan
  // does not depend on how noisy the timings were on a loaded machine.
  ASSERT_EQ(run("profile " + ::servescope::test::exported_resnet18().string() +
                " --batches 1-2 --shares 1,2 --repeat 3 --warmup 1 --slo-multiplier 100 -o " + profiles +
                " --scenario-out " + scenario),
            0)
      << test::read_file(tmp.path() / "err");
  const auto out = test::read_file(tmp.path() / "out");
  EXPECT_NE(out.find("sum of the blocks' medians against the whole model's"), std::string::npos) << out;
  EXPECT_NE(out.find("2 x share 1/2, batch 2: x"), std::string::npos) << out;
  // The device's contention travels with the profile and the scenario made from it.
  const auto written_profiles = load_profiles(profiles);
  ASSERT_EQ(written_profiles.contention.size(), 1u);
  EXPECT_EQ(written_profiles.contention.front().samples.size(), 2u);
  EXPECT_EQ(load_scenario(scenario).profiles.contention, written_profiles.contention);
  ASSERT_EQ(run("plan -s " + scenario + " --system ppipe -o " + plan), 0) << test::read_file(tmp.path() / "err");
  const auto written = nlohmann::json::parse(test::read_file(plan));
  EXPECT_EQ(written["kind"], "pipeline-plan");
  EXPECT_GT(written["models"][0]["throughput_rps"].get<double>(), 0) << written.dump();
  // Refusals: a folder that is not one, a device this LibTorch does not have.
  EXPECT_EQ(run("profile " + tmp.path().string()), 2);
  EXPECT_EQ(run("profile " + ::servescope::test::exported_resnet18().string() + " --device cuda"), 2);
  EXPECT_NE(test::read_file(tmp.path() / "err").find("CPU only"), std::string::npos);
}

// `profile MODEL_DIR --device cuda` measures each MPS share in a process of its own and joins
// their tables. Rehearsed without a GPU: a stand-in for those processes measures on the CPU at
// the share MPS's percentage names (100 % whole, 50 % half the threads), and a stand-in MPS
// control program starts a daemon that holds the control socket.
TEST(TorchProfile, EachGpuShareIsMeasuredInAProcessOfItsOwn) {
  if (!std::filesystem::exists(::servescope::test::exported_resnet18() / kExportedModelManifest))
    GTEST_SKIP() << "no exported model";
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3 to play the MPS daemon";
  test::TempDir tmp;
  const auto bin = tmp.path() / "bin", pipes = tmp.path() / "pipes";
  std::filesystem::create_directories(bin);
  std::filesystem::create_directories(pipes);
  test::write_fake_mps_control(bin, true);
  const auto torch = std::filesystem::path(SERVESCOPE_CLI).parent_path() / "servescope-torch";
  const auto seen = tmp.path() / "percentages";
  // What a share process is asked, on the CPU: "--device cuda" becomes cpu, --share-process goes.
  const auto stand_in = tmp.write("share-process.sh",
                                  "#!/bin/sh\n"
                                  "echo \"$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE\" >>" +
                                      seen.string() +
                                      "\n"
                                      "[ \"$FAIL_AT\" != \"$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE\" ] || "
                                      "{ echo 'stand-in: failed' >&2; exit 3; }\n"
                                      "for a in \"$@\"; do shift; case \"$a\" in cuda) set -- "
                                      "\"$@\" cpu;; --share-process) ;; *) set -- \"$@\" \"$a\";; "
                                      "esac; done\n"
                                      "exec " +
                                      torch.string() + " \"$@\"\n");
  std::filesystem::permissions(stand_in, std::filesystem::perms::owner_all);
  const auto profiles = (tmp.path() / "profiles.json").string();
  const auto scenario = (tmp.path() / "scenario.json").string();
  const auto run = [&](const std::string& env, const std::string& args) {
    const std::string cmd = "PATH=" + bin.string() + " CUDA_MPS_PIPE_DIRECTORY=" + pipes.string() + " " + env + " " +
                            SERVESCOPE_CLI + " " + args + " >" + (tmp.path() / "out").string() + " 2>" +
                            (tmp.path() / "err").string();
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  };
  const auto model = ::servescope::test::exported_resnet18().string();
  ASSERT_EQ(run("", "profile " + model + " --device cuda --shares 1,2 --batches 1-2 --repeat 2 --warmup 1 " +
                        "--share-program " + stand_in + " -o " + profiles + " --scenario-out " + scenario),
            0)
      << test::read_file(tmp.path() / "err");
  const auto err = test::read_file(tmp.path() / "err");
  EXPECT_NE(err.find("started by this process"), std::string::npos) << "shares below 1 need MPS running:\n" << err;
  EXPECT_EQ(test::read_file(seen), "100\n50\n") << "a process per share, told its percentage";
  EXPECT_NE(err.find("sum of the blocks' medians"), std::string::npos) << "each process's report comes through";
  const auto set = load_profiles(profiles);
  ASSERT_EQ(set.models.size(), 1u);
  const auto& p = set.models.front();
  ASSERT_EQ(p.block_tables.size(), 2u);
  EXPECT_EQ(p.block_tables[0].share, GpuShare::whole());
  EXPECT_EQ(p.block_tables[1].share, GpuShare::mps(2));
  EXPECT_EQ(p.block_count, static_cast<int>(read_exported_model(model).blocks.size()));
  EXPECT_TRUE(p.default_slo.has_value());
  const auto planned = load_scenario(scenario);
  ASSERT_EQ(planned.custom_gpus.size(), 1u);
  for (const auto& table : p.block_tables)
    EXPECT_EQ(table.gpu, planned.custom_gpus.front().id);
  EXPECT_EQ(planned.cluster.nodes.front().gpu, planned.custom_gpus.front().id);
  EXPECT_EQ(planned.profiles.models.front().block_tables.size(), 2u);

  // A share whose process fails ends the whole, naming it; nothing is written.
  std::filesystem::remove(profiles);
  EXPECT_EQ(run("FAIL_AT=50", "profile " + model + " --device cuda --shares 1,2 --batches 1 --repeat 1 --warmup 0 " +
                                  "--share-program " + stand_in + " -o " + profiles),
            1);
  EXPECT_NE(test::read_file(tmp.path() / "err").find("profiling share 1/2 failed"), std::string::npos)
      << test::read_file(tmp.path() / "err");
  EXPECT_FALSE(std::filesystem::exists(profiles));
  // Without a daemon to give the shares, shares below 1 are refused before anything is measured.
  std::filesystem::remove(bin / "nvidia-cuda-mps-control");
  for (const char* real : {"/usr/bin/nvidia-cuda-mps-control", "/usr/local/nvidia/bin/nvidia-cuda-mps-control"})
    if (std::filesystem::exists(real)) GTEST_SKIP() << "this machine has the real " << real;
  std::filesystem::remove(pipes / "control");  // the first daemon's, alive or not
  EXPECT_EQ(run("", "profile " + model + " --device cuda --shares 2 --share-program " + stand_in), 1);
  EXPECT_NE(test::read_file(tmp.path() / "err").find("nvidia-cuda-mps-control is not on PATH"), std::string::npos)
      << test::read_file(tmp.path() / "err");
}

}  // namespace
}  // namespace servescope::torchexec
