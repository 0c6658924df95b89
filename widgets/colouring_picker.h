// The timeline's "Colour by …" choice (model, SLO outcome, batch), one combo box wired to a view:
// the Run tab and the Live tab offer the same choices with the same words.
#pragma once

#include <QComboBox>

namespace servescope::widgets {

class TimelineView;

// A combo box child of `parent` whose choice sets `view`'s colouring.
QComboBox* make_colouring_picker(TimelineView* view, QWidget* parent);

}  // namespace servescope::widgets
