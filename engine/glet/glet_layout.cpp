#include "engine/glet/glet_layout.h"

#include <algorithm>

namespace servescope::engine {

std::string_view to_string(GletMode mode) {
  switch (mode) {
    case GletMode::Saturated:
      return "saturated";
    case GletMode::Residue:
      return "residue";
    case GletMode::TimeShared:
      return "time-shared";
  }
  return "?";
}

double Glet::occupancy() const {
  if (models.empty() || duty_cycle <= Duration()) return 0;
  Duration busy;
  for (const auto& a : models)
    busy += a.latency;
  return busy.to_s() / duty_cycle.to_s();
}

double busy_fraction(const Glet& glet, const GletAssignment& a) {
  if (glet.duty_cycle <= Duration()) return 1;
  return std::min(1.0, a.latency.to_s() / glet.duty_cycle.to_s());
}

bool GletGpu::used() const {
  for (const auto& g : glets)
    if (!g.free()) return true;
  return false;
}

int GletLayout::gpus_used() const {
  int n = 0;
  for (const auto& g : gpus)
    n += g.used() ? 1 : 0;
  return n;
}

int GletLayout::total_size_percent() const {
  int s = 0;
  for (const auto& g : gpus)
    for (const auto& l : g.glets)
      if (!l.free()) s += l.size_percent;
  return s;
}

double GletLayout::assigned_rps(int model) const {
  double r = 0;
  for (const auto& g : gpus)
    for (const auto& l : g.glets)
      for (const auto& a : l.models)
        if (a.model == model) r += a.rate_rps;
  return r;
}

}  // namespace servescope::engine
