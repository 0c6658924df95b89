// What a project keeps of a run's timeline (docs/formats.md "Packed tables"). Timelines are kept
// packed (engine/timeline/timeline_packing.h), and only while they fit two budgets: one run's,
// and the whole project's, so that a project file stays well inside the 256 MiB a reader accepts
// (model/io/file_io.h) however many runs it keeps. A run over budget keeps its metrics; its
// timeline stays in the session that made it.
#pragma once

#include <cstddef>
#include <string>

#include "model/scenario/scenario.h"

namespace servescope::engine {

struct KeptTimelineBudget {
  std::size_t run_bytes = std::size_t{32} << 20;       // one run's packed text
  std::size_t project_bytes = std::size_t{160} << 20;  // all runs' together
};

// The packed text a kept run holds (0 for none; a timeline kept as rows counts its whole size).
std::size_t kept_timeline_bytes(const SavedArtifact& run);

// Before `run` joins `project`'s runs: packs a timeline kept as rows (a run file imported from
// the CLI), then keeps it only when it fits both budgets. Returns why it was dropped ("" when it
// was kept, or there was none). Throws InputError naming `run` when its timeline is malformed.
std::string fit_kept_timeline(SavedArtifact& run, const Project& project, const KeptTimelineBudget& budget = {});

}  // namespace servescope::engine
