#include "engine/gpuexec/slot_protocol.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "engine/live/byte_codec.h"

namespace servescope::engine::gpuexec {

using live::ByteReader;
using live::ByteWriter;
using live::ProtocolError;

namespace {

enum Type : std::uint8_t { Ready = 1, Run, Done, Failed = 6, Stop, Tune, Tuned, Time, Timed };

void put_double(ByteWriter& w, double x) {
  w.u64(std::bit_cast<std::uint64_t>(x));
}
double get_double(ByteReader& r, const char* field) {
  return std::bit_cast<double>(r.u64(field));
}
std::uint32_t fraction_code(double f) {
  return static_cast<std::uint32_t>(std::lround(std::clamp(f, 0.0, 1.0) * 1e6));
}
void put_recipe(ByteWriter& w, const gpu::WorkRecipe& r) {
  w.i64(r.gemms);
  w.i64(r.stream_bytes);
}
gpu::WorkRecipe get_recipe(ByteReader& r) {
  gpu::WorkRecipe out;
  out.gemms = r.i64("gemms");
  out.stream_bytes = r.i64("stream_bytes");
  if (out.gemms < 0 || out.stream_bytes < 0) throw ProtocolError("slot frame: a recipe with negative work");
  return out;
}

void put_line(ByteWriter& w, const gpu::LinearCost& c) {
  w.u64(std::bit_cast<std::uint64_t>(c.fixed_ns));
  w.u64(std::bit_cast<std::uint64_t>(c.per_unit_ns));
}
gpu::LinearCost get_line(ByteReader& r) {
  gpu::LinearCost c;
  c.fixed_ns = std::bit_cast<double>(r.u64("fixed_ns"));
  c.per_unit_ns = std::bit_cast<double>(r.u64("per_unit_ns"));
  return c;
}
// Raw bytes travel as byte_codec's length-prefixed text, which reads them in one bounded piece.
void put_bytes(ByteWriter& w, const std::vector<std::uint8_t>& bytes) {
  w.text(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}
std::vector<std::uint8_t> get_bytes(ByteReader& r, const char* field) {
  const auto text = r.text(field);
  return {text.begin(), text.end()};
}

}  // namespace

std::vector<std::uint8_t> encode(const SlotMessage& message) {
  std::vector<std::uint8_t> out(5, 0);
  ByteWriter w(out);
  const auto type = std::visit(
      [&](const auto& m) -> std::uint8_t {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, SlotReady>) {
          w.text(m.device);
          put_line(w, m.gemm);
          put_line(w, m.stream);
          put_double(w, m.gemm_l2_bytes);
          put_double(w, m.l2_bytes_per_ns);
          return Ready;
        } else if constexpr (std::is_same_v<T, SlotRun>) {
          w.u64(m.batch);
          w.i64(m.target_ns);
          w.u32(fraction_code(m.compute_fraction));
          w.u64(m.output_bytes);
          put_bytes(w, m.input);
          return Run;
        } else if constexpr (std::is_same_v<T, SlotDone>) {
          w.u64(m.batch);
          w.i64(m.run_ns);
          w.i64(m.copy_ns);
          put_recipe(w, m.recipe);
          put_bytes(w, m.output);
          return Done;
        } else if constexpr (std::is_same_v<T, SlotFailed>) {
          w.text(m.message);
          return Failed;
        } else if constexpr (std::is_same_v<T, SlotTune>) {
          w.u64(m.tag);
          w.i64(m.target_ns);
          w.u32(fraction_code(m.compute_fraction));
          return Tune;
        } else if constexpr (std::is_same_v<T, SlotTuned>) {
          w.u64(m.tag);
          w.i64(m.check.target_ns);
          w.i64(m.check.measured_ns);
          put_recipe(w, m.check.recipe);
          return Tuned;
        } else if constexpr (std::is_same_v<T, SlotTime>) {
          w.u64(m.tag);
          put_recipe(w, m.recipe);
          w.u32(m.repeats);
          return Time;
        } else if constexpr (std::is_same_v<T, SlotTimed>) {
          w.u64(m.tag);
          w.u32(static_cast<std::uint32_t>(m.runs.size()));
          for (const auto& run : m.runs) {
            w.i64(run.start_ns);
            w.i64(run.end_ns);
            w.i64(run.device_ns);
          }
          return Timed;
        } else {
          return Stop;
        }
      },
      message);
  const auto length = out.size() - 5;
  if (length > kMaxSlotFrameBytes)
    throw ProtocolError("a slot frame of " + std::to_string(length) + " bytes; at most " +
                        std::to_string(kMaxSlotFrameBytes));
  for (int i = 0; i < 4; ++i)
    out[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(length >> (8 * i));
  out[4] = type;
  return out;
}

SlotMessage decode(std::uint8_t type, std::span<const std::uint8_t> payload) {
  ByteReader r(payload, "slot frame");
  SlotMessage out;
  switch (type) {
    case Ready: {
      SlotReady m;
      m.device = r.text("device");
      m.gemm = get_line(r);
      m.stream = get_line(r);
      m.gemm_l2_bytes = get_double(r, "gemm_l2_bytes");
      m.l2_bytes_per_ns = get_double(r, "l2_bytes_per_ns");
      out = std::move(m);
      break;
    }
    case Run: {
      SlotRun m;
      m.batch = r.u64("batch");
      m.target_ns = r.i64("target_ns");
      m.compute_fraction = r.u32("compute_fraction") / 1e6;
      m.output_bytes = r.u64("output_bytes");
      m.input = get_bytes(r, "input");
      out = std::move(m);
      break;
    }
    case Done: {
      SlotDone m;
      m.batch = r.u64("batch");
      m.run_ns = r.i64("run_ns");
      m.copy_ns = r.i64("copy_ns");
      m.recipe = get_recipe(r);
      m.output = get_bytes(r, "output");
      out = std::move(m);
      break;
    }
    case Failed:
      out = SlotFailed{r.text("message")};
      break;
    case Stop:
      out = SlotStop{};
      break;
    case Tune: {
      SlotTune m;
      m.tag = r.u64("tag");
      m.target_ns = r.i64("target_ns");
      m.compute_fraction = r.u32("compute_fraction") / 1e6;
      out = m;
      break;
    }
    case Tuned: {
      SlotTuned m;
      m.tag = r.u64("tag");
      m.check.target_ns = r.i64("target_ns");
      m.check.measured_ns = r.i64("measured_ns");
      m.check.recipe = get_recipe(r);
      out = m;
      break;
    }
    case Time: {
      SlotTime m;
      m.tag = r.u64("tag");
      m.recipe = get_recipe(r);
      m.repeats = r.u32("repeats");
      if (m.repeats == 0 || m.repeats > kMaxTimedRepeats)
        throw ProtocolError("slot frame: " + std::to_string(m.repeats) + " repeats; 1 to " +
                            std::to_string(kMaxTimedRepeats));
      out = m;
      break;
    }
    case Timed: {
      SlotTimed m;
      m.tag = r.u64("tag");
      const auto n = r.count(24, "runs");
      m.runs.resize(n);
      for (auto& run : m.runs) {
        run.start_ns = r.i64("start_ns");
        run.end_ns = r.i64("end_ns");
        run.device_ns = r.i64("device_ns");
      }
      out = std::move(m);
      break;
    }
    default:
      throw ProtocolError("a slot frame of unknown type " + std::to_string(type));
  }
  r.expect_end();
  return out;
}

void SlotFrameReader::feed(std::span<const std::uint8_t> bytes) {
  if (at_ > 0 && at_ == buffer_.size()) {
    buffer_.clear();
    at_ = 0;
  }
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
}

std::optional<SlotMessage> SlotFrameReader::next() {
  const auto left = buffer_.size() - at_;
  if (left < 5) return std::nullopt;
  std::uint32_t length = 0;
  for (int i = 0; i < 4; ++i)
    length |= static_cast<std::uint32_t>(buffer_[at_ + static_cast<std::size_t>(i)]) << (8 * i);
  if (length > kMaxSlotFrameBytes)
    throw ProtocolError("a slot frame of " + std::to_string(length) + " bytes; at most " +
                        std::to_string(kMaxSlotFrameBytes));
  if (left < 5 + static_cast<std::size_t>(length)) return std::nullopt;
  const auto type = buffer_[at_ + 4];
  const std::span payload(buffer_.data() + at_ + 5, length);
  auto message = decode(type, payload);
  at_ += 5 + length;
  if (at_ == buffer_.size()) {
    buffer_.clear();
    at_ = 0;
  }
  return message;
}

}  // namespace servescope::engine::gpuexec
