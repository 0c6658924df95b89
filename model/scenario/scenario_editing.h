// Editing a scenario's applications as wholes, without any view (the DAG editor edits inside
// one: model/app/application_editing.h): a name no application has, an application to start
// drawing from, and a rename that keeps every workload sending to the application. Each returns
// the edited copy or throws QueryError saying why, so the GUI, the CLI and the tests share the
// rules, and the project document checks the whole scenario before it takes the edit.
#pragma once

#include <string>
#include <string_view>

#include "model/scenario/scenario.h"

namespace servescope {

// `base`, or `base 2`, `base 3`, … : the first name no application of `scenario` has.
std::string unique_application_name(const Scenario& scenario, std::string_view base);

// The SLO an application gets until its user sets one: the costliest source-to-sink path, each
// DNN module costed at its model's default SLO (100 ms where the model has none, or is not
// profiled) and each CPU step at its latency. A new application's, and one whose SLO was still
// this when a module or an edge changed gets the new DAG's.
Duration derived_slo(const Application& app, const ProfileSet& profiles);

// A new application called `name` with one module, since an application needs one: a DNN module
// running the scenario's first profiled model under that model's default SLO (100 ms when it has
// none), or a 1 ms CPU step under 100 ms when the scenario has no models yet.
Application starter_application(const Scenario& scenario, std::string name);

// The scenario with application `from` called `to`, and every workload target that named `from`
// naming `to`. Refused: an unknown application, an empty name, or one another application has.
Scenario with_renamed_application(Scenario scenario, std::string_view from, const std::string& to);

// The scenario with `replacement`'s model profiles in place of its own of the same names (added
// where it has none) and its contention models in place of those of the same device types. Every
// profile is kept inline, the includes dropped, so that the file stands alone: what calibration
// from a live run writes (engine/analysis/calibration.h).
Scenario with_replaced_profiles(Scenario scenario, const ProfileSet& replacement);

}  // namespace servescope
