#include "model/workload/workload.h"

#include <cmath>
#include <numeric>

#include "model/core/text.h"

namespace servescope {

std::string describe(const ArrivalProcess& process) {
  struct Visitor {
    std::string operator()(const PoissonArrivals&) const { return "Poisson"; }
    std::string operator()(const GammaArrivals& g) const { return "Gamma (shape " + format_number(g.shape) + ")"; }
    std::string operator()(const TraceArrivals& t) const { return "trace " + t.path; }
    std::string operator()(const PiecewiseArrivals& p) const {
      return "piecewise (" + std::to_string(p.segments.size()) + " segments)";
    }
  };
  return std::visit(Visitor{}, process);
}

std::vector<double> Workload::shares() const {
  std::vector<double> w(targets.size(), 1.0);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    switch (popularity) {
      case Popularity::Explicit:
        w[i] = targets[i].weight;
        break;
      case Popularity::Equal:
        break;
      case Popularity::Zipf:
        w[i] = 1.0 / std::pow(static_cast<double>(i + 1), zipf_s);
        break;
    }
  }
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  if (total > 0)
    for (auto& x : w)
      x /= total;
  return w;
}

}  // namespace servescope
