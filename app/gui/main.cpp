// servescope: the desktop application. Opens the file given on the command line, else the
// built-in demo project.
#include <QApplication>
#include <QCommandLineParser>

#include "ui/main_window.h"

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
  // The demo opens on something to watch: its 37 models served by Symphony and by Nexus for 20 s
  // each, on the timeline, in the charts and side by side.
  if (window.location() == QStringLiteral("builtin:projects/demo.json") && window.project() &&
      window.project()->runs.empty())
    window.start_demo_runs({QStringLiteral("symphony"), QStringLiteral("nexus")}, 20);
  window.show();
  return QApplication::exec();
}
