#include "widgets/model_colors.h"

#include <cmath>

namespace servescope::widgets {

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
  // Golden-ratio spacing of the hue spreads similar names apart.
  const double hue = std::fmod(static_cast<double>(h % 1000u) * 0.618033988749895, 1.0);
  return is_dark(palette) ? QColor::fromHslF(static_cast<float>(hue), 0.55f, 0.42f)
                          : QColor::fromHslF(static_cast<float>(hue), 0.65f, 0.72f);
}

}  // namespace servescope::widgets
