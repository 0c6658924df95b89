#include <gtest/gtest.h>
#include <set>

#include "model/core/text.h"
#include "model/core/time.h"
#include "model/scenario/scenario.h"

using namespace servescope;

TEST(Duration, UnitsAndRounding) {
  EXPECT_EQ(Duration::microseconds(3).count_ns(), 3000);
  EXPECT_EQ(Duration::milliseconds(2) + Duration::microseconds(5), Duration::nanoseconds(2'005'000));
  EXPECT_EQ(Duration::from_us(4194.304).count_ns(), 4'194'304);
  EXPECT_EQ(Duration::from_us(0.0004).count_ns(), 0);
  EXPECT_EQ(Duration::from_us(0.0006).count_ns(), 1);
  EXPECT_EQ(Duration::from_ms(1.053).count_ns(), 1'053'000);
  EXPECT_DOUBLE_EQ(Duration::microseconds(1500).to_ms(), 1.5);
  EXPECT_THROW(Duration::from_us(std::numeric_limits<double>::quiet_NaN()), std::out_of_range);
  EXPECT_THROW(Duration::from_us(1e300), std::out_of_range);
}

TEST(Duration, Formatting) {
  EXPECT_EQ(format_duration(Duration::nanoseconds(850)), "850 ns");
  EXPECT_EQ(format_duration(Duration::from_us(12.4)), "12.4 µs");
  EXPECT_EQ(format_duration(Duration::from_ms(3.25)), "3.25 ms");
  EXPECT_EQ(format_duration(Duration::from_s(1.5)), "1.5 s");
}

TEST(Text, StrictNumbers) {
  EXPECT_EQ(parse_finite_double("12.5"), 12.5);
  EXPECT_EQ(parse_finite_double(" +3 "), 3.0);
  EXPECT_FALSE(parse_finite_double("nan"));
  EXPECT_FALSE(parse_finite_double("inf"));
  EXPECT_FALSE(parse_finite_double("1e999"));
  EXPECT_FALSE(parse_finite_double("12abc"));
  EXPECT_FALSE(parse_finite_double(""));
  EXPECT_EQ(parse_integer("42"), 42);
  EXPECT_FALSE(parse_integer("4.2"));
  EXPECT_FALSE(parse_integer("99999999999999999999"));
}

TEST(Text, Utf8Validation) {
  EXPECT_TRUE(is_valid_utf8("plain ascii"));
  EXPECT_TRUE(is_valid_utf8("µs → ✓ 😀"));
  EXPECT_FALSE(is_valid_utf8("\xff"));
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("ab\xe2\x82"));        // truncated
  EXPECT_EQ(first_invalid_utf8("ab\xff"), 2u);
}

TEST(Text, QuoteForMessageEscapesAndCuts) {
  EXPECT_EQ(quote_for_message("a\nb"), "'a\\x0Ab'");
  EXPECT_EQ(quote_for_message("\xff"), "'\\xFF'");
  const std::string long_text(100, 'x');
  EXPECT_EQ(quote_for_message(long_text).size(), 60u + 5u);
  // Never cuts a multi-byte character in half.
  std::string accents;
  for (int i = 0; i < 40; ++i)
    accents += "é";
  EXPECT_TRUE(is_valid_utf8(quote_for_message(accents)));
}

TEST(Text, BytesForPeople) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1024), "1.00 KiB");
  EXPECT_EQ(format_bytes(250'880), "245 KiB");
  EXPECT_EQ(format_bytes(std::uint64_t{3} << 19), "1.50 MiB");
  EXPECT_EQ(format_bytes(std::uint64_t{32} << 20), "32.0 MiB");
  EXPECT_EQ(format_bytes(std::uint64_t{1} << 62), "4194304 TiB");
}

TEST(Text, UniqueNamesNeverCollide) {
  std::set<std::string> taken{"ppipe", "ppipe #2", "ppipe #4"};
  const auto in = [&](const std::string& n) { return taken.contains(n); };
  EXPECT_EQ(unique_name("nexus", in), "nexus");
  EXPECT_EQ(unique_name("ppipe", in), "ppipe #3");  // a removed #3 is reused, #4 is not repeated
  EXPECT_EQ(unique_name("ppipe #2", in), "ppipe #2 #2");
  EXPECT_EQ(unique_name("ppipe", in, "-"), "ppipe-2");
  std::vector<SavedArtifact> runs{{"symphony", "symphony", "", {}}, {"symphony #2", "symphony", "", {}}};
  EXPECT_EQ(unique_artifact_name(runs, "symphony"), "symphony #3");
  EXPECT_EQ(unique_artifact_name(runs, "nexus"), "nexus");
}

TEST(Text, ClosestNameSuggestsOnlyNearMisses) {
  const std::vector<std::string> names{"simulate", "sweep", "symphony", "goodput"};
  EXPECT_EQ(closest_name("simulat", names), "simulate");
  EXPECT_EQ(closest_name("symphonie", names), "symphony");
  EXPECT_EQ(closest_name("frobnicate", names), std::nullopt);
  EXPECT_EQ(closest_name("x", names), std::nullopt);
}
