// GoogleTest printers for ServeScope value types, so failures read "5.25 ms", not bytes.
#pragma once

#include <ostream>

#include "model/core/time.h"

namespace servescope {

inline void PrintTo(const Duration& d, std::ostream* os) {
  *os << format_duration(d) << " (" << d.count_ns() << " ns)";
}

}  // namespace servescope
