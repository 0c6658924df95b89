// Whether an entry's timed runs fall in two modes (issue 46, "profiles agree"). On a 2-vCPU guest
// a batch on both threads runs in one of two speeds, as the second thread finds a vCPU at once or
// waits for one, and which one a profile's runs mostly fall in decides the entry's median: three
// back-to-back profiles of resnet18's block 1 at batch 3 read 2.67, 4.65 and 4.49 ms
// (docs/reproduction/fidelity.md). A profile says which entries do so, rather than pass such a
// median off as the entry's time.
#pragma once

#include <optional>
#include <vector>

#include "model/core/time.h"

namespace servescope {

struct TwoModes {
  Duration low, high;        // each mode's median
  double high_fraction = 0;  // of the runs, those in the slower mode
};

// The split of the runs' log-times that leaves the least spread within the two parts (Otsu's),
// taken as two modes when each holds at least 15 % of the runs, their medians are 15 % apart or
// more, and they stand apart by at least 4 pooled standard deviations (Ashman's D; one normal
// sample split at its middle gives 2.7, a uniform one 3.5). nullopt for fewer than 20 runs.
std::optional<TwoModes> two_modes(std::vector<Duration> runs);

}  // namespace servescope
