// The planning workflow on the offscreen platform: planners run on a worker thread while the
// event loop keeps turning, each plan lands in the project through the undo stack, the
// comparison table (checked by Qt's model tester) shows them side by side, and a planner that
// cannot plan the scenario says why in the log.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <cmath>

#include "tests/gui/gui_test_main.h"
#include "ui/main_window.h"
#include "ui/plan_comparison_model.h"
#include "ui/plan_view.h"
#include "ui/planning_panel.h"
#include "ui/project_document.h"
#include "ui/run_view.h"
#include "widgets/plan_diagram_view.h"
#include "widgets/timeline_view.h"

using servescope::ui::MainWindow;
using servescope::ui::PlanComparisonModel;
using servescope::ui::PlanningPanel;
using servescope::ui::RunView;

class TestPlanning : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { QCoreApplication::setApplicationName(QStringLiteral("servescope-tests")); }

  void ppipeAndNpSideBySide() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/ppipe-demo.json"), false));
    auto* panel = w.planning();
    auto* table = panel->comparison();
    QAbstractItemModelTester tester(table, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy done(panel, &PlanningPanel::finished);
    QVERIFY(panel->run_planners({QStringLiteral("ppipe"), QStringLiteral("np")}));
    QVERIFY(panel->busy());
    QVERIFY(!panel->run_planners({QStringLiteral("np")}));  // one run at a time
    QVERIFY(done.wait(120000));
    QVERIFY(!panel->busy());
    QCOMPARE(w.project()->plans.size(), std::size_t{2});
    QCOMPARE(table->rowCount(), 2);
    const auto value = [&](int row, int column) { return table->index(row, column).data(Qt::UserRole).toDouble(); };
    QCOMPARE(table->index(0, PlanComparisonModel::System).data().toString(), QStringLiteral("ppipe"));
    QCOMPARE(table->index(1, PlanComparisonModel::System).data().toString(), QStringLiteral("np"));
    QVERIFY(value(0, PlanComparisonModel::Capacity) > value(1, PlanComparisonModel::Capacity));
    QVERIFY(value(1, PlanComparisonModel::Capacity) > 0);
    QVERIFY(value(0, PlanComparisonModel::Gpus) > 0);
    // Issue 47, defect 8: a column holds one quantity. A pipeline plan's rate is its capacity,
    // in the Capacity column; the Sized-for column (glet and cost plans) is empty for it.
    QCOMPARE(table->headerData(PlanComparisonModel::Capacity, Qt::Horizontal).toString(),
             QStringLiteral("Capacity, req/s"));
    QCOMPARE(table->index(0, PlanComparisonModel::SizedFor).data().toString(), QString());
    QVERIFY(table->index(0, PlanComparisonModel::Capacity)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("Capacity")));
    // Issue 47, defect 1: the arrows between pools show their whole label in the gap (it was cut
    // at both ends by the pool boxes, "0.27 ms" read "27 ms") and say what crosses in a tooltip.
    w.plan_view()->show_plans(0, 1);
    auto* diagram = w.plan_view()->findChild<servescope::widgets::PlanDiagramView*>(QStringLiteral("planDiagram"));
    QVERIFY(diagram);
    int labelled = 0;
    for (std::size_t k = 0; k < diagram->diagram().arrows.size(); ++k) {
      const auto& arrow = diagram->diagram().arrows[k];
      if (arrow.label.empty()) continue;
      ++labelled;
      QCOMPARE(diagram->arrow_label_lines(k).join(QStringLiteral(" · ")), QString::fromStdString(arrow.label));
      const auto band = diagram->arrow_band(k);
      QVERIFY(!band.intersects(diagram->item_rect(arrow.from)) && !band.intersects(diagram->item_rect(arrow.to)));
      QCOMPARE(diagram->arrow_at(band.center()), std::optional<std::size_t>(k));
      QVERIFY2(QString::fromStdString(arrow.tooltip).contains(QStringLiteral("feature maps")), arrow.tooltip.c_str());
    }
    QVERIFY(labelled > 0);
    QCOMPARE(w.document()->undo_stack()->undoText(), QStringLiteral("Add plan np"));
    w.document()->undo_stack()->undo();
    QCOMPARE(table->rowCount(), 1);
    QVERIFY(w.log_text().contains(QStringLiteral("ppipe: planned")));
  }

  // The UI thread keeps turning while planners run: its timer fires while the planners are still
  // busy on their thread. (How long a tick waits depends on the machine's load: the worst gap is
  // printed, not asserted; a planner on the UI thread would let no tick through while busy.)
  void windowStaysResponsiveWhilePlanning() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/cost-demo.json"), false));
    auto* panel = w.planning();
    QSignalSpy done(panel, &PlanningPanel::finished);
    QElapsedTimer clock;
    qint64 last = 0, worst = 0;
    int ticks_while_planning = 0;
    QTimer tick;
    tick.setInterval(5);
    QObject::connect(&tick, &QTimer::timeout, [&] {
      const auto now = clock.elapsed();
      worst = std::max(worst, now - last);
      last = now;
      if (panel->busy() && done.isEmpty()) ++ticks_while_planning;
    });
    clock.start();
    tick.start();
    // Several cost planners with their simulator checks: seconds of work off the UI thread.
    QVERIFY(panel->run_planners({QStringLiteral("harpagon"), QStringLiteral("piccolo"), QStringLiteral("nexus"),
                                 QStringLiteral("scrooge"), QStringLiteral("inferline"), QStringLiteral("clipper")}));
    QVERIFY(done.wait(300000));
    tick.stop();
    QCOMPARE(w.project()->plans.size(), std::size_t{6});
    qInfo("planning took %lld ms; the longest wait between ticks was %lld ms; %d ticks while planning", clock.elapsed(),
          worst, ticks_while_planning);
    QVERIFY(ticks_while_planning > 0);
  }

  // Plans that finish after another project was opened do not land in it, and the progress bar
  // counts the planners that ran.
  void plansNeverLandInAnotherProject() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/cost-demo.json"), false));
    auto* panel = w.planning();
    auto* bar = panel->findChild<QProgressBar*>();
    QVERIFY(bar);
    QSignalSpy done(panel, &PlanningPanel::finished);
    QVERIFY(panel->run_planners({QStringLiteral("harpagon"), QStringLiteral("piccolo")}));
    QVERIFY(!panel->run_planners({QStringLiteral("nexus")}));  // one job at a time
    QVERIFY(done.wait(120000));
    QCOMPARE(w.project()->plans.size(), std::size_t{2});
    QCOMPARE(bar->value(), 2);
    QVERIFY(panel->run_planners({QStringLiteral("harpagon"), QStringLiteral("piccolo")}));
    w.new_project();
    QVERIFY(done.wait(120000));
    QCOMPARE(w.project()->plans.size(), std::size_t{0});
    QVERIFY2(w.log_text().contains(QStringLiteral("not kept")), qPrintable(w.log_text()));
    QVERIFY(!panel->busy());
  }

  // Issue 47, defect 10: a project reopened shows the plans it keeps (the pickers read "(no plan)").
  void aReopenedProjectShowsItsPlans() {
    QTemporaryDir dir;
    const auto path = dir.filePath(QStringLiteral("with-plans.json"));
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/cost-demo.json"), false));
    QSignalSpy done(w.planning(), &PlanningPanel::finished);
    QVERIFY(w.planning()->run_planners({QStringLiteral("harpagon"), QStringLiteral("piccolo")}));
    QVERIFY(done.wait(120000));
    QCOMPARE(w.project()->plans.size(), std::size_t{2});
    QVERIFY(w.save_to(path, false));
    w.new_project();
    QVERIFY(w.plan_view()->left_text().contains(QStringLiteral("Pick a plan")));
    QVERIFY(w.open_location(path, false));
    auto* left = w.plan_view()->findChild<QComboBox*>(QStringLiteral("planPickLeft"));
    auto* right = w.plan_view()->findChild<QComboBox*>(QStringLiteral("planPickRight"));
    QVERIFY(left && right);
    QCOMPARE(left->currentText(), QString::fromStdString(w.project()->plans[0].name));
    QCOMPARE(right->currentText(), QString::fromStdString(w.project()->plans[1].name));
    QVERIFY(!w.plan_view()->left_text().contains(QStringLiteral("Pick a plan")));
  }

  void costPlannerAndARefusal() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/cost-demo.json"), false));
    auto* panel = w.planning();
    QSignalSpy done(panel, &PlanningPanel::finished);
    // glet needs utilisation and interference data the demo has not got.
    QVERIFY(panel->run_planners({QStringLiteral("harpagon"), QStringLiteral("glet")}));
    QVERIFY(done.wait(120000));
    QCOMPARE(w.project()->plans.size(), std::size_t{1});
    const auto* table = panel->comparison();
    QCOMPARE(table->index(0, PlanComparisonModel::Feasible).data().toString(), QStringLiteral("yes"));
    QVERIFY(table->index(0, PlanComparisonModel::Cost).data(Qt::UserRole).toDouble() > 0);
    // Defect 8: the cost has its unit, and a cost plan's rate is what it was sized for.
    QVERIFY2(table->index(0, PlanComparisonModel::Cost).data().toString().endsWith(QStringLiteral(" $/h")),
             qPrintable(table->index(0, PlanComparisonModel::Cost).data().toString()));
    QCOMPARE(table->index(0, PlanComparisonModel::Capacity).data().toString(), QString());
    QVERIFY(table->index(0, PlanComparisonModel::SizedFor).data(Qt::UserRole).toDouble() > 0);
    QVERIFY(w.plan_view()->left_text().contains(QStringLiteral(" $/h on ")));
    QVERIFY2(w.log_text().contains(QStringLiteral("harpagon: sized for ")) &&
                 w.log_text().contains(QStringLiteral(" machines, ")),
             qPrintable(w.log_text()));
    // Defect 11: a cost plan's diagram narrower than itself is drawn smaller to fit (its second
    // column was cut off at 1280×800), and a click still picks what is under the pointer.
    auto* diagram = w.plan_view()->left_diagram();
    const double full = diagram->diagram().width;
    diagram->resize(static_cast<int>(full * 0.75), diagram->height());
    QVERIFY(std::abs(diagram->scale() - 0.75) < 0.01);
    QVERIFY(diagram->minimumWidth() <=
            static_cast<int>(std::ceil(full * servescope::widgets::PlanDiagramView::kMinScale)));
    const auto& items = diagram->diagram().items;
    const auto module = std::ranges::find_if(items, [](const auto& item) { return !item.id.empty(); });
    QVERIFY(module != items.end());
    const auto centre =
        diagram->item_rect(static_cast<std::size_t>(module - items.begin())).center() * diagram->scale();
    QTest::mouseClick(diagram, Qt::LeftButton, {}, centre.toPoint());
    QCOMPARE(diagram->selected(), module->id);
    QVERIFY2(w.log_text().contains(QStringLiteral("glet could not plan")), qPrintable(w.log_text()));
    // The plan view follows the application's path with each module's budget.
    const auto text = w.plan_view()->left_text();
    QVERIFY2(text.contains(QStringLiteral("detect → classify")), qPrintable(text.left(600)));
    QVERIFY(w.plan_view()->right_text().contains(QStringLiteral("Pick a plan")));
    // The Run tab runs the cost plan like any other: its machines are the timeline's rows.
    const QString plan = QStringLiteral("plan:") + QString::fromStdString(w.project()->plans.front().name);
    auto* sources = w.run_view()->findChild<QComboBox*>(QStringLiteral("runSource"));
    QVERIFY(sources && sources->findData(plan) >= 0);
    QSignalSpy ran(w.run_view(), &RunView::finished);
    QVERIFY2(w.run_view()->simulate(plan, 5), qPrintable(w.run_view()->status_text()));
    QVERIFY(ran.wait(120000));
    const auto timeline = w.run_view()->timeline()->timeline();
    QVERIFY2(timeline, qPrintable(w.run_view()->status_text()));
    QCOMPARE(QString::fromStdString(timeline->system), QStringLiteral("cost"));
    QVERIFY(!timeline->spans.empty());
    QVERIFY2(timeline->gpus.front().starts_with("detect/"), timeline->gpus.front().c_str());
    // Its machines are the plan's, not the cluster's: Import run takes it back into its project.
    QTemporaryDir runs;
    const auto run_file = runs.filePath(QStringLiteral("cost-run.json"));
    {
      QFile out(run_file);
      QVERIFY(out.open(QIODevice::WriteOnly));
      out.write(QByteArray::fromStdString(w.project()->runs.back().body.dump()));
    }
    QCOMPARE(w.import_run(run_file), QString());
    const auto dir = qEnvironmentVariable("SERVESCOPE_SCREENSHOTS_DIR");
    if (!dir.isEmpty()) {
      w.resize(1600, 1000);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      QVERIFY(w.grab().save(dir + QStringLiteral("/cost-plan.png")));
    }
  }
};

SERVESCOPE_GUI_TEST(tst_planning, TestPlanning)
#include "tst_planning.moc"
