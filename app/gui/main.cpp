// servescope: the desktop application. Opens the file given on the command line, else the
// built-in demo project.
#include <QApplication>
#include <QCommandLineParser>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "ui/exception_guard.h"
#include "ui/main_window.h"

namespace {

void describe_application() {
  QCoreApplication::setOrganizationName(QStringLiteral("ServeScope"));
  QCoreApplication::setApplicationName(QStringLiteral("ServeScope"));
  QCoreApplication::setApplicationVersion(QStringLiteral(SERVESCOPE_VERSION));
}

void add_options(QCommandLineParser& parser) {
  parser.setApplicationDescription(
      QStringLiteral("Plan, simulate and watch DNN inference serving on heterogeneous GPU clusters"));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("file"),
                               QStringLiteral("Project or scenario to open (default: the built-in demo)"));
}

bool asks_only_for_text(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const char* flag : {"-h", "--help", "-?", "--help-all", "-v", "--version"})
      if (std::strcmp(argv[i], flag) == 0) return true;
  return false;
}

// QApplication aborts (qFatal) when it cannot reach a display; say what to do instead.
bool has_display(int argc, char** argv) {
  for (const char* var : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
    if (const char* value = std::getenv(var); value && *value) return true;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "-platform") == 0) return true;
  return false;
}

int run_gui(int argc, char** argv) {
  servescope::ui::GuardedApplication app(argc, argv);
  describe_application();
  QApplication::setDesktopFileName(QStringLiteral("org.servescope.ServeScope"));
  QCommandLineParser parser;
  add_options(parser);
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

}  // namespace

int main(int argc, char** argv) {
  // Help and version need no display: answer them from a core application.
  if (asks_only_for_text(argc, argv)) {
    QCoreApplication app(argc, argv);
    describe_application();
    QCommandLineParser parser;
    add_options(parser);
    parser.process(app);  // prints and exits
    return 0;
  }
  if (!has_display(argc, argv)) {
    std::fprintf(stderr,
                 "servescope: no display (DISPLAY and WAYLAND_DISPLAY are unset). Run it in a desktop session, "
                 "under xvfb-run, or with -platform offscreen; servescope-cli works without one.\n");
    return 1;
  }
  try {
    return run_gui(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "servescope: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "servescope: internal error\n");
  }
  return 1;
}
