// A model measured on this machine (`servescope-cli profile`, README "Real models") joining the open
// project. The profiler writes the block profile (-o) and, in its scenario (--scenario-out), the
// device type it measured on; a profile of an unknown device type is refused by every check, so
// both join the project together, in one undoable edit, and one Undo takes both back out.
#pragma once

#include <QString>
#include <string>
#include <vector>

#include "model/gpu/gpu_catalog.h"
#include "model/profile/model_profile.h"

namespace servescope::ui {

class ProjectDocument;

struct MeasuredModel {
  ProfileSet profiles;                // the models measured (one per run of the profiler), and the
                                      // contention between slots measured with them
  std::vector<GpuSpec> devices;       // the device types their tables name
  std::vector<std::string> warnings;  // what the readers said about the files (raised points, …)
};

// Reads the profiler's two output files with the project's own readers. Throws Error naming the
// file, or QueryError when a profile names a device type neither file defines.
MeasuredModel read_measured_model(const QString& profiles_path, const QString& scenario_path);

// Adds the models and the device types the project lacks, as one step on the document's undo
// stack, after checking the whole scenario with them; the reason when refused (a model the
// project already has, a scenario that would not check), else empty.
QString add_measured_model(ProjectDocument& document, const MeasuredModel& measured, const QString& what);

}  // namespace servescope::ui
