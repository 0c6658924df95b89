// A serving system registered at run time (tests/support/fifo_test_system.h) appears in the GUI
// with no list to edit: the planning dock offers its planner, and the Run tab its data plane.
#include <QComboBox>
#include <QListWidget>
#include <QTest>

#include "tests/support/fifo_test_system.h"
#include "ui/main_window.h"
#include "ui/planning_panel.h"

using servescope::ui::MainWindow;

class TestSystemPlugin : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setApplicationName(QStringLiteral("servescope-tests"));
    servescope::testing::register_fifo_test_system();
  }

  void thePlanningDockAndTheRunTabOfferIt() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    auto* planners = w.planning()->findChild<QListWidget*>(QStringLiteral("planners"));
    QVERIFY(planners);
    QStringList names;
    for (int i = 0; i < planners->count(); ++i)
      names << planners->item(i)->data(Qt::UserRole).toString();
    QVERIFY2(names.contains(QStringLiteral("ppipe")), qPrintable(names.join(u',')));
    QCOMPARE(names.last(), QStringLiteral("test-plan"));
    auto* sources = w.findChild<QComboBox*>(QStringLiteral("runSource"));
    QVERIFY(sources);
    QVERIFY(sources->findData(QStringLiteral("symphony")) >= 0);
    QVERIFY(sources->findData(QStringLiteral("test-fifo")) >= 0);
  }
};

QTEST_MAIN(TestSystemPlugin)
#include "tst_system_plugin.moc"
