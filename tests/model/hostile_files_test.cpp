// Inputs from an attack run that used to crash or hang the readers (docs/formats.md
// "Files from elsewhere"): include cycles, devices and FIFOs given as files or includes, and
// weights or multipliers so small that the arrival gaps they imply fit no integer. Each must become
// an InputError naming the file, the place and the reason.
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <sys/stat.h>

#include "model/core/error.h"
#include "model/core/time.h"
#include "model/io/document.h"
#include "model/io/file_io.h"
#include "tests/support/test_support.h"

namespace servescope {
namespace {

std::string scenario_text(const std::string& includes, const std::string& workload_extra = "",
                          const std::string& arrival = R"({"process": "poisson"})") {
  return R"({"schema_version": 1, "kind": "scenario", "name": "s",
  "cluster": {"name": "c", "nodes": [{"name": "n", "gpu": "V100", "gpu_count": 4, "nic_up_gbps": 10, "nic_down_gbps": 10}]},
  "profile_includes": [)" +
         includes + R"(],
  "profiles": [{"name": "lin", "form": "linear", "default_slo_us": 20000, "fits": [{"gpu": "V100", "alpha_us": 100, "beta_us": 1000}]},
               {"name": "lin2", "form": "linear", "default_slo_us": 20000, "fits": [{"gpu": "V100", "alpha_us": 100, "beta_us": 1000}]}],
  "workloads": [{"name": "w", "rate_rps": 100, "arrival": )" +
         arrival + R"(, "targets": [{"model": "lin")" + workload_extra + R"(}, {"model": "lin2"}]}]})";
}

std::string refusal(const std::string& location) {
  try {
    load_document(location);
  } catch (const InputError& e) {
    EXPECT_FALSE(e.file().empty());
    return e.what();
  }
  return "accepted";
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

TEST(HostileFiles, AFileThatIncludesItselfIsRefusedNamingTheCycle) {
  const test::TempDir dir;
  const auto self = dir.write("self.json", scenario_text(R"("self.json")"));
  const auto m = refusal(self);
  EXPECT_TRUE(contains(m, "$.profile_includes[0]")) << m;
  EXPECT_TRUE(contains(m, "the includes form a cycle")) << m;
}

TEST(HostileFiles, IncludesThatFormACycleAreRefusedNamingEveryFile) {
  const test::TempDir dir;
  const auto a = dir.write("a.json", scenario_text(R"("sub/../b.json")"));
  dir.write("b.json", scenario_text(R"("a.json")"));
  const auto m = refusal(a);
  EXPECT_TRUE(contains(m, "a.json → ")) << m;
  EXPECT_TRUE(contains(m, "b.json → ")) << m;
  EXPECT_TRUE(contains(m, "form a cycle")) << m;
}

TEST(HostileFiles, DevicesAndFifosAreRefusedAsFilesAndAsIncludes) {
  const test::TempDir dir;
  const auto fifo = (dir.path() / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {std::string("/dev/zero"), std::string("/dev/null"), fifo}) {
    const auto m = refusal(path);
    EXPECT_TRUE(contains(m, path)) << m;
    EXPECT_TRUE(contains(m, "not a regular file")) << m;
    const auto includer = dir.write("inc.json", scenario_text("\"" + path + "\""));
    const auto mi = refusal(includer);
    EXPECT_TRUE(contains(mi, "$.profile_includes[0]")) << mi;
    EXPECT_TRUE(contains(mi, "not a regular file")) << mi;
  }
  EXPECT_THROW(read_text_file("/dev/zero"), InputError);
}

TEST(HostileFiles, VanishingWeightsAndMultipliersAreRefusedWhereTheyAreRead) {
  const test::TempDir dir;
  const auto weight = dir.write("w.json", scenario_text("", R"(, "weight": 1e-300)"));
  const auto m = refusal(weight);
  EXPECT_TRUE(contains(m, "$.workloads[0].targets[0].weight")) << m;
  const auto multiplier =
      dir.write("m.json", scenario_text("", "", R"({"process": "piecewise", "segments": [{"duration_s": 1,
      "rate_multiplier": 1e-300}]})"));
  const auto mm = refusal(multiplier);
  EXPECT_TRUE(contains(mm, "$.workloads[0].arrival.segments[0].rate_multiplier")) << mm;
  // Zero stays a way to switch a target or a segment off.
  EXPECT_EQ(refusal(dir.write("z.json", scenario_text("", R"(, "weight": 0)"))), "accepted");
}

TEST(HostileFiles, DurationsFromUntrustedNumbersSaturateInsteadOfOverflowing) {
  EXPECT_EQ(Duration::saturated_from_s(1e300), Duration::max());
  EXPECT_EQ(Duration::saturated_from_s(std::numeric_limits<double>::infinity()), Duration::max());
  EXPECT_EQ(Duration::saturated_from_s(std::nan("")), Duration::max());
  EXPECT_EQ(Duration::saturated_from_s(-1e300).count_ns(), -INT64_MAX);
  EXPECT_EQ(Duration::saturated_from_s(1.5), Duration::milliseconds(1500));
  EXPECT_EQ(saturating_add(Duration::seconds(5), Duration::max()), Duration::max());
  EXPECT_EQ(saturating_add(Duration::max(), Duration::max()), Duration::max());
  EXPECT_EQ(saturating_add(Duration::seconds(5), Duration::seconds(-2)), Duration::seconds(3));
}

}  // namespace
}  // namespace servescope
