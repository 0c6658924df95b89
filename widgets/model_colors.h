// Colours for models, pipelines and GPU types that stay the same from view to view and
// session to session (a hash of the name picks the hue), and that follow the palette: light
// pastels on a light window, deeper tones on a dark one (Hotspot's palette-driven colours).
// Outcomes have their own colours (late and dropped in red, on time in green), and no name's
// colour comes near late's red: a model's boxes must never read as late batches.
#pragma once

#include <QColor>
#include <QPalette>
#include <QString>

namespace servescope::widgets {

QColor color_for_name(const QString& name, const QPalette& palette);
bool is_dark(const QPalette& palette);

// A batch that made a request late, and the overview's late marks.
QColor late_colour(const QPalette& palette);
// A request dropped, in the overview strip: late's red, darker.
QColor dropped_colour(const QPalette& palette);
// A batch whose requests all met their SLO.
QColor on_time_colour(const QPalette& palette);

}  // namespace servescope::widgets
