#include "ui/exception_guard.h"

#include <QThread>
#include <QtGlobal>
#include <exception>
#include <mutex>

namespace servescope::ui {

namespace {

std::mutex reporter_mutex;
const void* reporter_owner = nullptr;
std::function<void(const QString&)> reporter;

QString describe_current_exception() {
  try {
    throw;
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  } catch (...) {
    return QStringLiteral("an unknown exception");
  }
}

}  // namespace

GuardedApplication::GuardedApplication(int& argc, char** argv) : QApplication(argc, argv) {}

bool GuardedApplication::notify(QObject* receiver, QEvent* event) {
  try {
    return QApplication::notify(receiver, event);
  } catch (...) {
    report_error(tr("internal error, the action was abandoned: %1").arg(describe_current_exception()));
    return false;
  }
}

void set_error_reporter(const void* owner, std::function<void(const QString&)> report) {
  const std::lock_guard lock(reporter_mutex);
  reporter_owner = owner;
  reporter = std::move(report);
}

void clear_error_reporter(const void* owner) {
  const std::lock_guard lock(reporter_mutex);
  if (reporter_owner != owner) return;
  reporter_owner = nullptr;
  reporter = nullptr;
}

void report_error(const QString& message) {
  // Reporters write to widgets: from another thread, report on the UI thread.
  if (auto* app = QCoreApplication::instance(); app && QThread::currentThread() != app->thread()) {
    QMetaObject::invokeMethod(
        app, [message] { report_error(message); }, Qt::QueuedConnection);
    return;
  }
  std::function<void(const QString&)> report;
  {
    const std::lock_guard lock(reporter_mutex);
    report = reporter;
  }
  if (report)
    report(message);
  else
    qCritical("%s", qUtf8Printable(message));
}

QString run_guarded(const std::function<void()>& work) {
  try {
    work();
    return {};
  } catch (...) {
    return describe_current_exception();
  }
}

}  // namespace servescope::ui
