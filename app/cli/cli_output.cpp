#include <iostream>

#include "app/cli/cli_context.h"

namespace servescope::cli {

void print_json(const nlohmann::json& j) {
  std::cout << j.dump(2) << "\n";
}

}  // namespace servescope::cli
