// What File → Export → View draws (README "The GUI", exports): the content of the tab, not a
// screenshot of it. The Run tab's timeline with every row and its axis over the window, the
// marked range or the whole run, at a chosen width; the Compare tab's timelines stacked on one
// axis; the Plans tab's two diagrams side by side at full size; any other tab as it is drawn.
#pragma once

#include <QSize>
#include <functional>
#include <optional>

class QPainter;
class QWidget;

namespace servescope::ui {

struct ViewPictureOptions {
  enum class Stretch { Window, Range, Run } stretch = Stretch::Window;  // of a timeline
  int width = 0;                                                        // of a timeline; 0: as wide as on screen
};

struct ViewPicture {
  QSize size;
  std::function<void(QPainter&)> paint;
};

ViewPicture picture_of(QWidget* tab, const ViewPictureOptions& options = {});

// Asks the stretch and width when `tab` shows timelines (the Run and Compare tabs); the defaults
// otherwise. nullopt when the user cancelled.
std::optional<ViewPictureOptions> ask_picture_options(QWidget* parent, QWidget* tab);

}  // namespace servescope::ui
