// servescope: the desktop application. Opens the file given on the command line, else the
// built-in demo project.
#include <QApplication>
#include <QCommandLineParser>
#include <QTabWidget>

#include "ui/main_window.h"
#include "ui/run_view.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("ServeScope"));
  QApplication::setApplicationName(QStringLiteral("ServeScope"));
  QApplication::setApplicationVersion(QStringLiteral(SERVESCOPE_VERSION));
  QApplication::setDesktopFileName(QStringLiteral("org.servescope.ServeScope"));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Plan, simulate and watch DNN inference serving on heterogeneous GPU clusters"));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("file"),
                               QStringLiteral("Project or scenario to open (default: the built-in demo)"));
  parser.process(app);

  servescope::ui::MainWindow window;
  const auto args = parser.positionalArguments();
  const auto location = args.isEmpty() ? QStringLiteral("builtin:projects/demo.json") : args.first();
  // Unsaved work from a session that ended badly comes first, if the user wants it.
  if (!window.offer_recovery() && !window.open_location(location) &&
      location != QStringLiteral("builtin:projects/demo.json"))
    window.open_location(QStringLiteral("builtin:projects/demo.json"), false);
  // The demo opens on something to watch: a short simulated run of its Symphony workload.
  if (window.location() == QStringLiteral("builtin:projects/demo.json") && window.project() &&
      window.project()->runs.empty() && window.run_view()->simulate(QStringLiteral("symphony"), 20))
    window.findChild<QTabWidget*>(QStringLiteral("centralTabs"))->setCurrentWidget(window.run_view());
  window.show();
  return QApplication::exec();
}
