// The Help menu's windows (README "The GUI"): the user guide (the README, rendered, so the guide
// and the repository's front page are one text), every key the window answers to (read from its
// actions, so the list cannot go stale, and the timeline's own keys), and the licence.
#pragma once

#include <QList>

class QAction;
class QWidget;

namespace servescope::ui {

void show_user_guide(QWidget* parent);
// `actions`: the window's, each listed with its shortcut when it has one.
void show_keys(QWidget* parent, const QList<QAction*>& actions);
void show_licence(QWidget* parent);

}  // namespace servescope::ui
