// Colours for models, pipelines and GPU types that stay the same from view to view and
// session to session (a hash of the name picks the hue), and that follow the palette: light
// pastels on a light window, deeper tones on a dark one (Hotspot's palette-driven colours).
#pragma once

#include <QColor>
#include <QPalette>
#include <QString>

namespace servescope::widgets {

QColor color_for_name(const QString& name, const QPalette& palette);
bool is_dark(const QPalette& palette);

}  // namespace servescope::widgets
