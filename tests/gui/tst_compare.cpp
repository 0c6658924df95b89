// The demo as it opens (README "The GUI", Compare tab): Symphony and Nexus simulated one after the
// other, the Run tab's timeline, the Charts tab and the Compare tab filled. The comparison table
// passes Qt's model checker, its figures are the runs' own, a load sweep gives the
// "max load at 99 %" column, and zooming one compared timeline moves the other.
#include <QAbstractItemModelTester>
#include <QChart>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>

#include "engine/analysis/saved_artifacts.h"
#include "tests/gui/gui_test_main.h"
#include "ui/charts_view.h"
#include "ui/compare_view.h"
#include "ui/main_window.h"
#include "ui/project_document.h"
#include "ui/run_comparison_model.h"
#include "ui/run_view.h"
#include "widgets/chart_facade.h"
#include "widgets/timeline_view.h"

using servescope::ui::MainWindow;
using servescope::ui::RunComparisonModel;
using servescope::ui::RunView;

class TestCompare : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // Chart axes step in round numbers (1, 2, 2.5 or 5 times a power of ten) over a range widened
  // to them, not the data's raw extremes (9674.7 batches); a range the caller fixes stays.
  void chartsUseRoundTicks() {
    servescope::widgets::ChartSpec spec;
    spec.series.push_back({"batches", {{0, 0}, {3.3, 9674.7}, {7.9, 120}}});
    std::unique_ptr<QChart> chart(servescope::widgets::build_chart(spec, QPalette()));
    const auto round_step = [](const QValueAxis* axis) {
      const double step = (axis->max() - axis->min()) / (axis->tickCount() - 1);
      const double scale = std::pow(10.0, std::floor(std::log10(step)));
      const double mantissa = step / scale;
      return std::ranges::any_of(std::array{1.0, 2.0, 2.5, 5.0, 10.0},
                                 [&](double m) { return std::abs(mantissa - m) < 1e-9; });
    };
    const auto* y = qobject_cast<QValueAxis*>(chart->axes(Qt::Vertical).front());
    const auto* x = qobject_cast<QValueAxis*>(chart->axes(Qt::Horizontal).front());
    QVERIFY(y && x);
    QVERIFY(y->max() >= 9674.7);
    QVERIFY2(round_step(y),
             qPrintable(QStringLiteral("%1..%2, %3 ticks").arg(y->min()).arg(y->max()).arg(y->tickCount())));
    QVERIFY2(round_step(x),
             qPrintable(QStringLiteral("%1..%2, %3 ticks").arg(x->min()).arg(x->max()).arg(x->tickCount())));

    spec.y_range = std::pair{0.9, 1.0};
    chart.reset(servescope::widgets::build_chart(spec, QPalette()));
    const auto* fixed = qobject_cast<QValueAxis*>(chart->axes(Qt::Vertical).front());
    QCOMPARE(fixed->min(), 0.9);
    QCOMPARE(fixed->max(), 1.0);
  }

  void initTestCase() {
    QCoreApplication::setApplicationName(QStringLiteral("servescope-tests"));
    QStandardPaths::setTestModeEnabled(true);
  }

  void demoOpensWithRunsChartsAndComparison() {
    MainWindow w;
    w.set_interactive(false);
    w.resize(1600, 1000);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    QSignalSpy done(w.run_view(), &RunView::finished);
    QVERIFY(w.start_demo_runs({QStringLiteral("symphony"), QStringLiteral("nexus")}, 4));
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 2, 120000);
    QCoreApplication::processEvents();
    QCOMPARE(w.project()->runs.size(), std::size_t{2});

    // Run tab: the first run on the timeline. Charts: the newest run's six charts.
    QVERIFY(w.run_view()->timeline()->timeline() != nullptr);
    QCOMPARE(QString::fromStdString(w.run_view()->timeline()->timeline()->system), QStringLiteral("symphony"));
    QCOMPARE(w.charts_view()->chart_count(), 6);

    // Compare: both runs, with their own figures.
    auto* table = w.compare_view()->table();
    QAbstractItemModelTester tester(table, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(table->rowCount(), 2);
    for (int row = 0; row < 2; ++row) {
      const auto& body = w.project()->runs[static_cast<std::size_t>(row)].body;
      QCOMPARE(table->index(row, RunComparisonModel::Attainment).data(Qt::UserRole).toDouble(),
               body["summary"]["slo_attainment"].get<double>());
      QCOMPARE(table->index(row, RunComparisonModel::GpusUsed).data(Qt::UserRole).toInt(),
               body["summary"]["gpus_used"].get<int>());
      QVERIFY(table->index(row, RunComparisonModel::LeastBusy).data().toString().startsWith(QStringLiteral("A100")));
    }
    const double symphony = table->index(0, RunComparisonModel::Attainment).data(Qt::UserRole).toDouble();
    const double nexus = table->index(1, RunComparisonModel::Attainment).data(Qt::UserRole).toDouble();
    QVERIFY2(symphony > nexus, qPrintable(QStringLiteral("%1 vs %2").arg(symphony).arg(nexus)));
    QVERIFY(!table->index(0, RunComparisonModel::MaxLoad).data(Qt::UserRole).isValid());

    // Nexus drops requests: "Next violation" finds a late batch or a drop after the warm-up, at
    // the zoom the user chose, with its row in view; pressed again, it moves on.
    QVERIFY(w.run_view()->show_run(QStringLiteral("nexus")));
    auto* timeline = w.run_view()->timeline();
    timeline->resize(1000, 300);
    timeline->set_now(0);
    timeline->set_window(0, 500'000'000);
    const auto width = timeline->to_ns() - timeline->from_ns();
    const auto& runs = w.project()->runs;
    const auto nexus_run = std::ranges::find(runs, std::string("nexus"), &servescope::SavedArtifact::name);
    QVERIFY(nexus_run != runs.end());
    const auto warmup = servescope::engine::run_warmup(nexus_run->body, "nexus").count_ns();
    QVERIFY(warmup > 0);
    std::int64_t last = 0;
    for (int press = 0; press < 3; ++press) {
      QVERIFY(w.run_view()->next_violation());
      const auto status = w.run_view()->status_text();
      const bool dropped =
          status.startsWith(QStringLiteral("Dropped")) || status.contains(QStringLiteral("dropped at"));
      QVERIFY2(dropped || status.startsWith(QStringLiteral("Late")), qPrintable(status));
      const auto now = *timeline->now_ns();
      QVERIFY(now >= warmup && now >= last);
      // Issue 47 §2: drops at one instant are one stop (the next press moves on in time), and a
      // late batch's row is marked.
      if (press > 0 && dropped) QVERIFY(now > last || status.startsWith(QStringLiteral("Late")));
      if (!dropped) QCOMPARE(timeline->marked_rows().size(), std::size_t{1});
      last = now;
      QCOMPARE(timeline->to_ns() - timeline->from_ns(), width);
      QVERIFY(timeline->from_ns() <= now && now <= timeline->to_ns());
      if (const auto selected = timeline->selected())
        QVERIFY(timeline->row_in_view(timeline->timeline()->spans[*selected].gpu));
    }

    // Past the last violation it goes round to the first after the warm-up, and says so.
    timeline->set_now(timeline->timeline()->end.count_ns() + 1);
    timeline->select(std::nullopt);
    QVERIFY(w.run_view()->next_violation());
    QVERIFY2(w.run_view()->status_text().contains(QStringLiteral("back to the start")),
             qPrintable(w.run_view()->status_text()));
    const auto first = *timeline->now_ns();
    QVERIFY(first >= warmup);
    timeline->set_now(warmup);
    timeline->select(std::nullopt);
    QVERIFY(w.run_view()->next_violation());
    QCOMPARE(*timeline->now_ns(), first);

    // One time axis: zooming one timeline moves the other.
    const auto& views = w.compare_view()->timelines();
    QCOMPARE(views.size(), std::size_t{2});
    views[0]->set_window(1'000'000'000, 1'100'000'000);
    QCOMPARE(views[1]->from_ns(), views[0]->from_ns());
    QCOMPARE(views[1]->to_ns(), views[0]->to_ns());
    views[1]->zoom_around(800, 2.0);
    QCOMPARE(views[0]->to_ns() - views[0]->from_ns(), views[1]->to_ns() - views[1]->from_ns());

    // A load sweep of Symphony fills its "max load at 99 %" cell.
    QVERIFY(w.run_view()->sweep(QStringLiteral("symphony"), 0.5));
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 3, 120000);
    QVERIFY(w.compare_view()->compare({QStringLiteral("symphony"), QStringLiteral("nexus")}));
    const auto max_load = table->index(0, RunComparisonModel::MaxLoad).data(Qt::UserRole);
    QVERIFY2(max_load.isValid() && max_load.toDouble() > 0.5, qPrintable(max_load.toString()));
    QCOMPARE(w.charts_view()->sweep_curves(), 1);

    // File → Export → Run metrics as CSV.
    QTemporaryDir dir;
    const auto csv_path = dir.filePath(QStringLiteral("symphony.csv"));
    QCOMPARE(w.export_metrics_csv(QStringLiteral("symphony"), csv_path), QString());
    QFile csv(csv_path);
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QVERIFY(csv.readLine().startsWith("chart,series,x,y"));
    QVERIFY(!w.export_metrics_csv(QStringLiteral("no such run"), csv_path).isEmpty());

    const auto shots = qEnvironmentVariable("SERVESCOPE_SCREENSHOTS_DIR");
    if (!shots.isEmpty()) {
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("centralTabs"));
      tabs->setCurrentWidget(w.compare_view());
      views[0]->set_window(2'000'000'000, 2'060'000'000);
      QCoreApplication::processEvents();
      QVERIFY(w.grab().save(shots + QStringLiteral("/compare.png")));
      tabs->setCurrentWidget(w.charts_view());
      w.charts_view()->show_run(QStringLiteral("symphony"));
      QCoreApplication::processEvents();
      QVERIFY(w.grab().save(shots + QStringLiteral("/charts-demo.png")));
    }
  }
};

SERVESCOPE_GUI_TEST(tst_compare, TestCompare)
#include "tst_compare.moc"
