// Presentation mode (issue 47 §5, for a class): the run's timeline and its SLO attainment, large
// enough for the back of a room. The docks go, the fonts grow, the Run tab shows; turned off,
// everything is put back as it was (docks, font, tab).
#include <QDockWidget>
#include <QTabWidget>
#include <cmath>

#include "ui/main_window.h"
#include "ui/run_view.h"

namespace servescope::ui {

void MainWindow::set_presentation(bool on) {
  if (on == presenting()) return;
  if (on) {
    before_presentation_ = Presenting{font(), tabs_->currentIndex(), {}};
    for (auto* dock : findChildren<QDockWidget*>())
      if (dock->isVisible()) {
        before_presentation_->docks.push_back(dock);
        dock->hide();
      }
    QFont larger = font();
    if (larger.pointSizeF() > 0)
      larger.setPointSizeF(larger.pointSizeF() * kPresentationFontScale);
    else  // a font sized in pixels
      larger.setPixelSize(static_cast<int>(std::lround(larger.pixelSize() * kPresentationFontScale)));
    setFont(larger);
    tabs_->setCurrentWidget(run_view_);
    run_view_->set_presentation(true);
  } else {
    const auto before = *std::exchange(before_presentation_, std::nullopt);
    run_view_->set_presentation(false);
    setFont(before.font);
    for (auto* dock : before.docks)
      dock->show();
    tabs_->setCurrentIndex(before.tab);
  }
  if (presentation_action_) presentation_action_->setChecked(on);
}

}  // namespace servescope::ui
