// Chart value axes in round numbers (README "The GUI", Charts tab): a range widened to
// multiples of a step of 1, 2, 2.5 or 5 × 10^k, about five intervals of it, and labels with just
// the decimals the step needs ("0, 2500, 5000 …", "0, 0.25, 0.5 …"), never "1.5e+04". Qt's
// applyNiceNumbers picks from fewer steps (a 0–20.3 s axis went to 30) and leaves the labels'
// format to the caller.
#pragma once

namespace servescope::widgets {

struct NiceScale {
  double lo = 0, hi = 1, step = 1;
  int intervals = 1;  // (hi − lo) / step
  int decimals = 0;   // what a label needs to tell ticks apart
};

// The smallest round step that covers [lo, hi] in at most `max_intervals` (at least 2).
NiceScale nice_scale(double lo, double hi, int max_intervals = 7);

}  // namespace servescope::widgets
