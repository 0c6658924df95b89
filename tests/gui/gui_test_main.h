// The GUI suites share one executable, gui_tests (tests/gui/CMakeLists.txt): each tst_*.cpp
// registers its QTest class under its suite's name, and `gui_tests NAME [QTest arguments]` runs
// that suite as its own QTEST_MAIN did. One program instead of seventeen parses the Qt and ui
// headers a few times instead of seventeen times, and links once (BENCHMARKS.md, issue 44).
#pragma once

#include <QApplication>
#include <QTest>

namespace servescope::test {

// What a suite runs in place of main(); argv holds the QTest arguments, argv[0] the program.
using GuiSuiteMain = int (*)(int argc, char** argv);

// Called from each suite's SERVESCOPE_GUI_TEST at static initialisation. Returns true so that
// it can initialise a namespace-scope constant.
bool register_gui_suite(const char* name, GuiSuiteMain main);

}  // namespace servescope::test

// QTEST_MAIN's body (Qt 6.4 qtest.h: QTEST_MAIN_WRAPPER with QTEST_QAPP_SETUP(QApplication)),
// registered under NAME instead of defining main().
#define SERVESCOPE_GUI_TEST(NAME, TestObject)                                                               \
  namespace {                                                                                               \
  int NAME##_main(int argc, char** argv) {                                                                  \
    QTest::Internal::callInitMain<TestObject>();                                                            \
    QApplication app(argc, argv);                                                                           \
    QApplication::setAttribute(Qt::AA_Use96Dpi, true);                                                      \
    TestObject tc;                                                                                          \
    QTEST_SET_MAIN_SOURCE_PATH                                                                              \
    return QTest::qExec(&tc, argc, argv);                                                                   \
  }                                                                                                         \
  [[maybe_unused]] const bool NAME##_registered = servescope::test::register_gui_suite(#NAME, NAME##_main); \
  }
