#include "widgets/model_colors.h"

#include <cmath>

namespace servescope::widgets {

namespace {
// Hues are fractions of the circle: red 0, green 0.33, blue 0.67, pink about 0.92.
constexpr double kNameHueFrom = 0.07;
constexpr double kNameHueTo = 0.83;
}  // namespace

bool is_dark(const QPalette& palette) {
  return palette.color(QPalette::Window).lightnessF() < 0.5f;
}

QColor color_for_name(const QString& name, const QPalette& palette) {
  // FNV-1a over the UTF-16 text: stable across runs and platforms, unlike qHash's seed.
  quint32 h = 2166136261u;
  for (const QChar c : name) {
    h ^= c.unicode();
    h *= 16777619u;
  }
  // Golden-ratio spacing of the hue spreads similar names apart; the hue then takes the part of
  // the circle from orange to violet, leaving the pinks and reds around late's hue (0) to it.
  const double spread = std::fmod(static_cast<double>(h % 1000u) * 0.618033988749895, 1.0);
  const double hue = kNameHueFrom + spread * (kNameHueTo - kNameHueFrom);
  return is_dark(palette) ? QColor::fromHslF(static_cast<float>(hue), 0.55f, 0.42f)
                          : QColor::fromHslF(static_cast<float>(hue), 0.65f, 0.72f);
}

QColor late_colour(const QPalette& palette) {
  return QColor::fromHslF(0.0f, 0.75f, is_dark(palette) ? 0.45f : 0.6f);
}

QColor dropped_colour(const QPalette& palette) {
  return late_colour(palette).darker(130);
}

QColor on_time_colour(const QPalette& palette) {
  return QColor::fromHslF(0.33f, 0.45f, is_dark(palette) ? 0.35f : 0.7f);
}

}  // namespace servescope::widgets
