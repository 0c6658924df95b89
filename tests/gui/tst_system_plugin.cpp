// A serving system registered at run time (tests/support/fifo_test_system.h) appears in the GUI
// with no list to edit: the planning dock offers its planner with its options, and the Run tab its
// data plane.
#include <QComboBox>
#include <QDialog>
#include <QDoubleSpinBox>
#include <QListWidget>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTest>

#include "tests/gui/gui_test_main.h"
#include "tests/support/fifo_test_system.h"
#include "ui/main_window.h"
#include "ui/planning_panel.h"
#include "ui/run_view.h"
#include "widgets/timeline_view.h"

using servescope::ui::MainWindow;
using servescope::ui::RunView;

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
    // Its planner's options are a tab of their own, made from its schema; ticking it shows them.
    auto* form = w.planning()->findChild<QWidget*>(QStringLiteral("options:test FIFO"));
    QVERIFY(form);
    auto* limit = form->findChild<QDoubleSpinBox*>(QStringLiteral("option:test-plan-limit"));
    QVERIFY(limit);
    QCOMPARE(limit->value(), 60.0);
    planners->item(planners->count() - 1)->setCheckState(Qt::Checked);
    auto* tabs = w.planning()->findChild<QTabWidget*>(QStringLiteral("plannerOptions"));
    QVERIFY(tabs);
    QCOMPARE(tabs->tabText(tabs->currentIndex()), QStringLiteral("test FIFO"));
    auto* sources = w.findChild<QComboBox*>(QStringLiteral("runSource"));
    QVERIFY(sources);
    QVERIFY(sources->findData(QStringLiteral("symphony")) >= 0);
    QVERIFY(sources->findData(QStringLiteral("test-fifo")) >= 0);
  }

  // Its data plane's options are a tab of the Run tab's Options dialog, and a run takes them:
  // with one GPU asked for, every batch runs on the first.
  void theRunTabTakesItsOptions() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    auto* dialog = w.run_view()->findChild<QDialog*>(QStringLiteral("runOptions"));
    QVERIFY(dialog);
    auto* gpus = dialog->findChild<QSpinBox*>(QStringLiteral("option:test-fifo-gpus"));
    QVERIFY(gpus);
    gpus->setValue(1);
    QSignalSpy done(w.run_view(), &RunView::finished);
    QVERIFY(w.run_view()->simulate(QStringLiteral("test-fifo"), 1));
    QVERIFY(done.wait(60000));
    const auto timeline = w.run_view()->timeline()->timeline();
    QVERIFY2(timeline, qPrintable(w.run_view()->status_text()));
    QVERIFY(!timeline->spans.empty());
    for (const auto& span : timeline->spans)
      QCOMPARE(span.gpu, 0u);
  }
};

SERVESCOPE_GUI_TEST(tst_system_plugin, TestSystemPlugin)
#include "tst_system_plugin.moc"
