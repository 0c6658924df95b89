// The edges where the GUI stops exceptions (docs/architecture.md "The GUI"), a last resort: code
// that can fail catches its own errors and says why (document edits return their refusal, readers
// throw our Error, worker threads run their work through run_guarded and hand back its error text).
// What still escapes a slot reaches GuardedApplication::notify, through which Qt delivers every
// event, slot and queued call on the UI thread; it is reported to the main window's Log dock instead
// of ending the program. Qt does not promise to unwind its own frames cleanly on the way, so this
// keeps a bug from losing the user's work (they can still save), not from being a bug.
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
