// Fuzz target for the live frame decoder (docs/protocol.md): any bytes, fed in any split, must
// neither crash nor let through a frame that breaks the format; every frame that does come through
// is then given to the payload decoder for its type (requests, outcomes, orders, reports, feature
// maps, run events folded into a LiveRun), which must accept it or refuse it with ProtocolError. Built with clang's
// -fsanitize=fuzzer it is a libFuzzer target; otherwise main() below runs it on a bounded, seeded corpus of random and
// mutated valid streams (a ctest, under ASan/UBSan in that preset).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "engine/live/byte_codec.h"
#include "engine/live/event_stream.h"
#include "engine/live/live_run.h"
#include "engine/live/messages.h"
#include "engine/live/wire_format.h"

using namespace servescope::engine::live;

namespace {

// A small run for event records to name: two models, three GPUs on two servers.
servescope::engine::SimulationResult fuzz_run() {
  servescope::engine::SimulationResult r;
  r.system = "fuzz";
  r.models = {"a", "b"};
  r.model_slo = {servescope::Duration::milliseconds(10), servescope::Duration::milliseconds(20)};
  r.gpus = {"g0", "g1", "g2"};
  r.gpu_types = {"A100", "A100", "A100"};
  r.gpu_shares = {"1", "1", "1"};
  r.gpu_physical = {0, 1, 2};
  r.gpu_server = {0, 0, 1};
  r.gpu_duty_cycle.resize(3);
  r.server_names = {"s0", "s1"};
  return r;
}

void decode_payload(const Frame& f) {
  try {
    switch (f.type) {
      case FrameType::Request:
        (void)decode_requests(f.payload);
        break;
      case FrameType::Outcome:
        (void)decode_outcomes(f.payload);
        break;
      case FrameType::Batch:
        (void)decode_order(f.payload);
        break;
      case FrameType::BatchDone:
        (void)decode_report(f.payload);
        break;
      case FrameType::FeatureMap:
        (void)decode_feature_map(f.payload);
        break;
      case FrameType::Events: {
        LiveRun run(fuzz_run(), servescope::Duration());
        run.apply(f.payload);
        (void)run.snapshot();
        break;
      }
      default:
        break;
    }
  } catch (const ProtocolError&) {
    // Refused with a reason: what a peer's malformed payload must get.
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The first byte picks where to split the rest, so split handling is fuzzed too.
  const std::size_t cut = size > 0 ? data[0] % (size + 1) : 0;
  FrameDecoder decoder(1 << 16);
  std::vector<Frame> frames;
  decoder.feed({data, cut}, frames);
  decoder.feed({data + cut, size - cut}, frames);
  for (std::size_t k = 0; k < frames.size(); ++k)
    if (frames[k].sequence != k || frames[k].payload.size() > (1u << 16) ||
        static_cast<unsigned>(frames[k].type) - 1 >= kLastFrameType)
      std::abort();  // a frame that should have been refused
  (void)decoder.error_text();
  for (const auto& f : frames)
    decode_payload(f);
  // The bytes as a payload of every type too, without the framing in the way.
  for (const auto type : {FrameType::Request, FrameType::Outcome, FrameType::Batch, FrameType::BatchDone,
                          FrameType::FeatureMap, FrameType::Events})
    decode_payload(Frame{type, 0, std::vector<std::uint8_t>(data, data + size)});
  return 0;
}

#ifndef SERVESCOPE_LIBFUZZER
int main(int argc, char** argv) {
  const long rounds = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 20000;
  std::mt19937_64 rng(2026);
  FrameEncoder encoder;
  auto valid = FrameEncoder::preamble();
  for (unsigned k = 0; k < 8; ++k) {
    const auto frame =
        encoder.encode(static_cast<FrameType>(1 + k % kLastFrameType), std::string(std::size_t{k} * 37, 'p'));
    valid.insert(valid.end(), frame.begin(), frame.end());
  }
  // Well-formed payloads of every binary type, so mutations reach deep into their decoders.
  {
    using servescope::Duration;
    using namespace servescope::engine;
    EventEncoder events;
    Batch b;
    b.id = 1;
    b.gpu = 2;
    b.model = 1;
    b.requests = {Request{1, 1, 0, Duration::milliseconds(1), Duration::milliseconds(11)}};
    events.on_arrival(b.requests[0]);
    events.on_dispatch(b, Duration::milliseconds(2));
    events.on_batch(b, Duration::milliseconds(2), Duration::milliseconds(4), true);
    events.on_complete(b.requests[0], Duration::milliseconds(2), Duration::milliseconds(4));
    events.on_drop(b.requests[0], DropReason::WorkerLost, Duration::milliseconds(5));
    Transfer t;
    t.to_gpu = 1;
    events.on_transfer(t, Duration::milliseconds(3), Duration::milliseconds(4));
    const SendOrder send{.transfer = 3,
                         .to_slot = 2,
                         .bytes = 64,
                         .peer_host = "127.0.0.1",
                         .peer_port = 9000,
                         .boundary = 4,
                         .requests = {7, 8}};
    const std::vector<std::pair<FrameType, std::vector<std::uint8_t>>> payloads{
        {FrameType::Events, events.take()},
        {FrameType::Request, encode_requests(std::vector<ClientRequest>{{1, 0, 0}, {2, 1, 0}})},
        {FrameType::Outcome, encode_outcomes(std::vector<ClientOutcome>{{1, OutcomeStatus::Late}})},
        {FrameType::Batch,
         encode_order(
             RunOrder{.batch = 1, .slot = 2, .model = 1, .start_in_ns = 100, .run_ns = 2000, .requests = {7}})},
        {FrameType::Batch, encode_order(send)},
        {FrameType::BatchDone, encode_report(RunReport{1, 2, 1500})},
        {FrameType::FeatureMap, encode_feature_map(send, 64, feature_map_pattern(3, 0, 64))}};
    for (const auto& [type, payload] : payloads) {
      const auto frame = encoder.encode(type, payload);
      valid.insert(valid.end(), frame.begin(), frame.end());
    }
  }
  for (long r = 0; r < rounds; ++r) {
    std::vector<std::uint8_t> input;
    if (r % 2 == 0) {  // a valid stream with a few bytes flipped, cut short or extended
      input = valid;
      for (int flips = 1 + static_cast<int>(rng() % 4); flips > 0; --flips)
        input[rng() % input.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
      input.resize(rng() % (input.size() + 64), 0);
    } else {
      input.resize(rng() % 512);
      for (auto& b : input)
        b = static_cast<std::uint8_t>(rng());
    }
    input.insert(input.begin(), static_cast<std::uint8_t>(rng()));
    LLVMFuzzerTestOneInput(input.data(), input.size());
  }
  std::printf("frame decoder: %ld inputs, no crash, no bad frame let through\n", rounds);
  return 0;
}
#endif
