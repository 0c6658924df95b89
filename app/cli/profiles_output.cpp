#include "app/cli/profiles_output.h"

#include <iostream>

#include "app/cli/document_summary.h"
#include "model/io/document.h"
#include "model/io/model_json.h"

namespace servescope::cli {

int write_profiles(const GlobalOptions& global, const std::string& out, const ProfileSet& set,
                   const std::vector<std::string>& warnings) {
  check_outputs({out});
  if (out.empty()) {
    print_json(to_json(set));
    for (const auto& w : warnings)
      std::cerr << "warning: " << w << "\n";
    return kExitOk;
  }
  save_profiles(out, set);
  Document doc{DocumentKind::Profiles, set, warnings};
  auto summary = summarize(doc);
  summary["written"] = out;
  if (global.json) {
    print_json(summary);
  } else {
    report_stream() << "wrote " << out << "\n";
    print_summary(report_stream(), summary);
  }
  return kExitOk;
}

}  // namespace servescope::cli
