// Between a worker and its slot processes (engine/gpuexec/slot_protocol.h): every message
// survives the round trip whole, frames cut anywhere are reassembled, and what is malformed or
// too large is refused before it is buffered.
#include "engine/gpuexec/slot_protocol.h"

#include <gtest/gtest.h>

#include "engine/live/byte_codec.h"

namespace servescope::engine::gpuexec {
namespace {

std::vector<SlotMessage> every_kind() {
  SlotRun run;
  run.batch = 41;
  run.target_ns = 2'700'000;
  run.compute_fraction = 0.625;
  run.input = {1, 2, 3, 250};
  run.output_bytes = 1 << 20;
  SlotTimed timed{5, {{100, 350, 240}, {360, 700, 330}}};
  return {SlotReady{"model GPU at 50 %", {4000, 9000.5}, {4100, 0.66}, 3.3e7, 7.25},
          run,
          SlotDone{41, 2'690'000, 1234, {17, std::int64_t{4096} * 9}, std::vector<std::uint8_t>(70'000, 0xab)},
          SlotFailed{"cudaSetDevice(options_.gpu) failed: cudaErrorNoDevice"},
          SlotStop{},
          SlotTune{4, 1'000'000, 0.25},
          SlotTuned{4, {1'000'000, 1'010'000, {12, 8192}}},
          SlotTime{5, {12, 8192}, 2},
          timed};
}

void expect_same(const SlotMessage& a, const SlotMessage& b) {
  ASSERT_EQ(a.index(), b.index());
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        const auto& y = std::get<T>(b);
        if constexpr (std::is_same_v<T, SlotReady>) {
          EXPECT_EQ(x.device, y.device);
          EXPECT_EQ(x.gemm.per_unit_ns, y.gemm.per_unit_ns);
          EXPECT_EQ(x.stream.per_unit_ns, y.stream.per_unit_ns);
          EXPECT_EQ(x.stream.fixed_ns, y.stream.fixed_ns);
          EXPECT_EQ(x.gemm_l2_bytes, y.gemm_l2_bytes);
          EXPECT_EQ(x.l2_bytes_per_ns, y.l2_bytes_per_ns);
        } else if constexpr (std::is_same_v<T, SlotRun>) {
          EXPECT_EQ(x.batch, y.batch);
          EXPECT_EQ(x.target_ns, y.target_ns);
          EXPECT_NEAR(x.compute_fraction, y.compute_fraction, 1e-6);
          EXPECT_EQ(x.input, y.input);
          EXPECT_EQ(x.output_bytes, y.output_bytes);
        } else if constexpr (std::is_same_v<T, SlotDone>) {
          EXPECT_EQ(x.batch, y.batch);
          EXPECT_EQ(x.run_ns, y.run_ns);
          EXPECT_EQ(x.copy_ns, y.copy_ns);
          EXPECT_EQ(x.recipe, y.recipe);
          EXPECT_EQ(x.output, y.output);
        } else if constexpr (std::is_same_v<T, SlotFailed>) {
          EXPECT_EQ(x.message, y.message);
        } else if constexpr (std::is_same_v<T, SlotTune>) {
          EXPECT_EQ(x.tag, y.tag);
          EXPECT_EQ(x.target_ns, y.target_ns);
          EXPECT_NEAR(x.compute_fraction, y.compute_fraction, 1e-6);
        } else if constexpr (std::is_same_v<T, SlotTuned>) {
          EXPECT_EQ(x.tag, y.tag);
          EXPECT_EQ(x.check.measured_ns, y.check.measured_ns);
          EXPECT_EQ(x.check.recipe, y.check.recipe);
        } else if constexpr (std::is_same_v<T, SlotTime>) {
          EXPECT_EQ(x.tag, y.tag);
          EXPECT_EQ(x.recipe, y.recipe);
          EXPECT_EQ(x.repeats, y.repeats);
        } else if constexpr (std::is_same_v<T, SlotTimed>) {
          EXPECT_EQ(x.tag, y.tag);
          EXPECT_EQ(x.runs, y.runs);
        }
      },
      a);
}

TEST(SlotProtocol, EveryMessageSurvivesTheRoundTripCutAnywhere) {
  const auto messages = every_kind();
  std::vector<std::uint8_t> stream;
  for (const auto& m : messages) {
    const auto bytes = encode(m);
    stream.insert(stream.end(), bytes.begin(), bytes.end());
  }
  for (const std::size_t piece : {std::size_t{1}, std::size_t{3}, std::size_t{4096}, stream.size()}) {
    SlotFrameReader reader;
    std::vector<SlotMessage> got;
    for (std::size_t at = 0; at < stream.size(); at += piece) {
      reader.feed(std::span(stream).subspan(at, std::min(piece, stream.size() - at)));
      while (auto m = reader.next())
        got.push_back(std::move(*m));
    }
    ASSERT_EQ(got.size(), messages.size()) << "pieces of " << piece;
    EXPECT_FALSE(reader.mid_frame());
    for (std::size_t i = 0; i < got.size(); ++i)
      expect_same(messages[i], got[i]);
  }
}

TEST(SlotProtocol, RefusesWhatIsMalformed) {
  // A frame that says more than the cap is refused from its header alone.
  SlotFrameReader huge;
  huge.feed(std::vector<std::uint8_t>{0xff, 0xff, 0xff, 0x7f, 2});
  EXPECT_THROW(huge.next(), live::ProtocolError);
  // An unknown type, a payload cut short, bytes left over.
  EXPECT_THROW(decode(99, {}), live::ProtocolError);
  auto run = encode(SlotTune{1, 2, 0.5});
  EXPECT_THROW(decode(run[4], std::span(run).subspan(5, run.size() - 6)), live::ProtocolError);
  run.push_back(0);
  EXPECT_THROW(decode(run[4], std::span(run).subspan(5)), live::ProtocolError);
  // Timing that asks for no runs, or a million and one; a recipe of negative work.
  auto time = encode(SlotTime{1, {1, 0}, 1});
  for (const std::uint32_t repeats : {0u, kMaxTimedRepeats + 1}) {
    auto bad = time;
    for (int i = 0; i < 4; ++i)
      bad[bad.size() - 4 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(repeats >> (8 * i));
    EXPECT_THROW(decode(bad[4], std::span(bad).subspan(5)), live::ProtocolError) << repeats;
  }
  EXPECT_THROW(decode(time[4],
                      [&] {
                        auto bad = encode(SlotTime{1, {-1, 0}, 1});
                        return std::vector<std::uint8_t>(bad.begin() + 5, bad.end());
                      }()),
               live::ProtocolError);
  // Bytes whose length field claims more than follows.
  SlotDone done{3, 4, 5, {6, 7}, {1, 2, 3}};
  auto bytes = encode(done);
  bytes[5 + 8 * 5] = 200;  // the output's length
  EXPECT_THROW(decode(bytes[4], std::span(bytes).subspan(5)), live::ProtocolError);
}

}  // namespace
}  // namespace servescope::engine::gpuexec
