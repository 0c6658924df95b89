// One summary of a loaded document, used for both `info` outputs: the JSON form is the data,
// the text form is a rendering of that same JSON, so the two can never disagree.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "model/io/document.h"

namespace servescope::cli {

nlohmann::json summarize(const Document& doc);
nlohmann::json summarize(const Scenario& scenario);
void print_summary(std::ostream& out, const nlohmann::json& summary);

}  // namespace servescope::cli
