// How commands that produce a profile set end (import, estimate): written atomically to --out
// with a summary of what it holds, or printed as JSON when no file is named.
#pragma once

#include <string>
#include <vector>

#include "app/cli/cli_context.h"
#include "model/profile/model_profile.h"

namespace servescope::cli {

int write_profiles(const GlobalOptions& global, const std::string& out, const ProfileSet& set,
                   const std::vector<std::string>& warnings);

}  // namespace servescope::cli
