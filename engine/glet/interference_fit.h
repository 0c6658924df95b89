// Fitting gpu-let's linear interference model (seed 003 §3.4, §4.4; digest §4.7): slowdown of a
// model beside another = c1·L2_self + c2·L2_other + c3·DRAM_self + c4·DRAM_other + c5, by ordinary
// least squares over measured co-runs (features already scaled by each glet's share), with a
// seeded train/validation split and the validation error distribution the paper reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/profile/model_profile.h"

namespace servescope::engine {

struct InterferenceSample {
  double l2_self = 0, l2_other = 0, dram_self = 0, dram_other = 0;
  double slowdown = 1;  // L co-located / L alone at the same glet size
};

struct InterferenceFit {
  InterferenceModel model;
  std::size_t train = 0, validation = 0;
  // |predicted − measured| / measured on the validation samples, ascending: the error CDF.
  std::vector<double> validation_errors;
  double mean_validation_error = 0;
  double error_quantile(double q) const;  // from validation_errors
};

// One measured co-run as a sample: each side's utilisation at its batch (measured alone on the
// whole GPU) scaled by its share in [0, 1] (digest §4.7), and the slowdown corun / solo.
InterferenceSample corun_sample(const UtilisationProfile& self, int batch, double share,
                                const UtilisationProfile& other, int other_batch, double other_share, double solo,
                                double corun);

// Shuffles with `seed`, fits on the first train_fraction of the samples and validates on the
// rest (the paper: 1,750 of 2,500). Throws QueryError with fewer than 5 training samples or when
// the features cannot tell the coefficients apart (a singular system).
InterferenceFit fit_interference(std::vector<InterferenceSample> samples, const std::string& gpu,
                                 double train_fraction = 0.7, std::uint64_t seed = 1);

}  // namespace servescope::engine
