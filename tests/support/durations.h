// Short names for the durations in the tests' worked examples: s(1.5), ms(40), us(120). One
// definition for every test file, so that files compiled together (the unity build) agree.
#pragma once

#include "model/core/time.h"

namespace servescope::test {

inline Duration s(double seconds) {
  return Duration::from_s(seconds);
}
inline Duration ms(double milliseconds) {
  return Duration::from_ms(milliseconds);
}
inline Duration us(double microseconds) {
  return Duration::from_us(microseconds);
}

}  // namespace servescope::test
