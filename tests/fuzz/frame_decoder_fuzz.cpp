// Fuzz target for the live frame decoder (issue 9): any bytes, fed in any split, must neither
// crash nor let through a frame that breaks the format. Built with clang's -fsanitize=fuzzer
// it is a libFuzzer target; otherwise main() below runs it on a bounded, seeded corpus of
// random and mutated valid streams (a ctest, under ASan/UBSan in that preset).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "engine/live/wire_format.h"

using namespace servescope::engine::live;

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
