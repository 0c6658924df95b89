#include "ui/measured_profile_import.h"

#include <algorithm>

#include "model/core/error.h"
#include "model/io/document.h"
#include "model/scenario/scenario.h"
#include "ui/project_document.h"

namespace servescope::ui {
namespace {

bool has_device(const std::vector<GpuSpec>& devices, const std::string& id) {
  return std::ranges::any_of(devices, [&](const GpuSpec& g) { return g.id == id; });
}

}  // namespace

MeasuredModel read_measured_model(const QString& profiles_path, const QString& scenario_path) {
  MeasuredModel m;
  m.profiles = load_profiles(profiles_path.toStdString(), &m.warnings);
  if (m.profiles.models.empty()) throw QueryError(profiles_path.toStdString() + ": the profiler measured no model");
  const auto scenario = load_scenario(scenario_path.toStdString(), &m.warnings);
  for (const auto& model : m.profiles.models)
    for (const auto& [gpu, share] : model.configurations()) {
      if (has_device(m.devices, gpu)) continue;
      const auto it = std::ranges::find(scenario.custom_gpus, gpu, &GpuSpec::id);
      if (it == scenario.custom_gpus.end())
        throw QueryError(scenario_path.toStdString() + ": no device type '" + gpu + "', which " + model.name +
                         " was measured on");
      m.devices.push_back(*it);
    }
  return m;
}

QString add_measured_model(ProjectDocument& document, const MeasuredModel& measured, const QString& what) {
  auto profiles = measured.profiles;
  for (auto& model : profiles.models)
    model.origin.clear();  // measured here: the project owns it, and saves and edits it inline
  for (auto& contention : profiles.contention)
    contention.origin.clear();
  return document.add_profiles(profiles, what, measured.devices);
}

}  // namespace servescope::ui
