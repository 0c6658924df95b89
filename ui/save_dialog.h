// Where to save: the platform's save dialog, and a name typed without an extension gets the one
// of the filter chosen ("view" with "PNG image (*.png)" becomes "view.png"), so what is written
// is what the user picked and the desktop knows what it is.
#pragma once

#include <QString>

class QWidget;

namespace servescope::ui {

// `filters` as QFileDialog takes them ("PNG image (*.png);;SVG drawing (*.svg)"); empty when the
// user cancelled.
QString ask_save_path(QWidget* parent, const QString& title, const QString& suggested, const QString& filters);
// `path` with the first extension of `filter` ("… (*.png *.PNG)") when its file name has none.
QString with_filter_suffix(const QString& path, const QString& filter);

}  // namespace servescope::ui
