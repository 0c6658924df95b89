// servescope: the desktop application. Opens the file given on the command line, else the
// built-in demo project.
#include <QApplication>
#include <QCommandLineParser>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "ui/exception_guard.h"
#include "ui/frame_clock.h"
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
  parser.addOption({QStringLiteral("connect"),
                    QStringLiteral("Follow the live deployment at HOST:PORT in the Live tab (token from "
                                   "SERVESCOPE_TOKEN; TLS files from SERVESCOPE_TLS_CERT, _KEY and _CA)"),
                    QStringLiteral("HOST:PORT")});
  parser.addOption({QStringLiteral("frame-log"),
                    QStringLiteral("Write how long the window's frames took, per minute (p50, p99, max), to FILE"),
                    QStringLiteral("FILE")});
  parser.addPositionalArgument(QStringLiteral("file"),
                               QStringLiteral("Project or scenario to open (default: the built-in demo)"));
}

bool asks_only_for_text(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const char* flag : {"-h", "--help", "-?", "--help-all", "-v", "--version"})
      if (std::strcmp(argv[i], flag) == 0) return true;
  return false;
}

bool is_platform_option(const char* arg) {
  return std::strcmp(arg, "-platform") == 0 || std::strcmp(arg, "--platform") == 0;
}

// The arguments without Qt's -platform NAME, which only QApplication understands.
std::vector<char*> without_platform(int argc, char** argv) {
  std::vector<char*> out;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && is_platform_option(argv[i])) {
      ++i;  // and its value
      continue;
    }
    out.push_back(argv[i]);
  }
  return out;
}

// QApplication aborts (qFatal) when it cannot reach a display; say what to do instead. The
// platform plugin is -platform's, else $QT_QPA_PLATFORM's, else Qt's default (X11 or Wayland).
bool has_display(int argc, char** argv) {
  std::string platform;
  if (const char* env = std::getenv("QT_QPA_PLATFORM")) platform = env;
  for (int i = 1; i + 1 < argc; ++i)
    if (is_platform_option(argv[i])) platform = argv[i + 1];
  const auto set = [](const char* var) {
    const char* value = std::getenv(var);
    return value && *value;
  };
  if (platform.starts_with("xcb")) return set("DISPLAY");
  if (platform.starts_with("wayland")) return set("WAYLAND_DISPLAY");
  if (!platform.empty()) return true;  // offscreen, vnc, eglfs, …: no display server needed
  return set("DISPLAY") || set("WAYLAND_DISPLAY");
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
  // Unsaved work from a session that ended badly comes first, if the user wants it; then the file
  // asked for, else (or when it cannot be opened) the demo, on its runs as File → Open Demo opens it.
  if (!window.offer_recovery() && (args.isEmpty() || !window.open_location(args.first()))) window.open_demo(false);
  window.show();
  std::unique_ptr<servescope::ui::FrameClock> frames;
  if (parser.isSet(QStringLiteral("frame-log")))
    frames = std::make_unique<servescope::ui::FrameClock>(parser.value(QStringLiteral("frame-log")));
  if (parser.isSet(QStringLiteral("connect"))) window.follow_live(parser.value(QStringLiteral("connect")));
  return QApplication::exec();
}

}  // namespace

int main(int argc, char** argv) {
  // Help and version need no display: answer them from a core application.
  if (asks_only_for_text(argc, argv)) {
    auto args = without_platform(argc, argv);
    int count = static_cast<int>(args.size());
    QCoreApplication app(count, args.data());
    describe_application();
    QCommandLineParser parser;
    add_options(parser);
    parser.process(app);  // prints and exits
    return 0;
  }
  if (!has_display(argc, argv)) {
    std::fprintf(stderr,
                 "servescope: no display (DISPLAY and WAYLAND_DISPLAY are unset, or the -platform asked for needs "
                 "one). Run it in a desktop session, under xvfb-run, or with -platform offscreen; servescope-cli "
                 "works without one.\n");
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
