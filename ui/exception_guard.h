// The edges where the GUI stops exceptions (issue 19): Qt delivers every event, slot and queued
// call on the UI thread through QApplication::notify, so GuardedApplication catches there; worker
// threads run their work through run_guarded and hand back its error text. Nothing thrown may
// unwind through Qt's event loop (undefined behaviour) or end a thread (std::terminate): the error
// goes to the reporter the main window registers (its Log dock), and the document stays open.
#pragma once

#include <QApplication>
#include <QString>
#include <functional>

namespace servescope::ui {

class GuardedApplication : public QApplication {
 public:
  GuardedApplication(int& argc, char** argv);
  bool notify(QObject* receiver, QEvent* event) override;
};

// Where caught errors go; `owner` identifies the registration so that a window being destroyed
// removes only its own. Without a reporter they go to qCritical.
void set_error_reporter(const void* owner, std::function<void(const QString&)> report);
void clear_error_reporter(const void* owner);
void report_error(const QString& message);

// Runs `work`; returns what it threw as text ("" when it returned normally).
QString run_guarded(const std::function<void()>& work);

}  // namespace servescope::ui
