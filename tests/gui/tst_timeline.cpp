// The timeline on the offscreen platform: Ctrl+wheel zooms around the cursor (the time under it
// stays put), the zoom history goes back and forward, hit testing finds the batch under a point
// as a brute-force scan does, and a scripted session simulates the demo, reads a batch, plays
// the run, exports a Chrome trace, and reopens the saved project with its run.
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFile>
#include <QItemSelectionModel>
#include <QPainter>
#include <QProgressBar>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QWheelEvent>
#include <random>
#include <set>

#include "engine/planning/plan_placement.h"
#include "engine/timeline/timeline_data.h"
#include "model/io/document.h"
#include "tests/gui/dark_palette.h"
#include "tests/gui/gui_test_main.h"
#include "tests/gui/synthetic_timeline.h"
#include "tests/support/trace_event_check.h"
#include "ui/charts_view.h"
#include "ui/cluster_editor.h"
#include "ui/main_window.h"
#include "ui/plan_view.h"
#include "ui/planning_panel.h"
#include "ui/project_document.h"
#include "ui/run_view.h"
#include "ui/teaching_panel.h"
#include "widgets/model_colors.h"
#include "widgets/plan_diagram_view.h"
#include "widgets/timeline_view.h"
#include "widgets/violations_panel.h"

using servescope::Duration;
using servescope::engine::TimelineData;
using servescope::engine::TimelineSpan;
using servescope::ui::MainWindow;
using servescope::ui::RunView;
using servescope::widgets::TimelineView;

namespace {

void wheel(QWidget* w, QPointF at, int delta, Qt::KeyboardModifiers modifiers = Qt::ControlModifier) {
  QWheelEvent e(at, w->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton, modifiers, Qt::NoScrollPhase, false);
  QCoreApplication::sendEvent(w, &e);
}

}  // namespace

class TestTimeline : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setApplicationName(QStringLiteral("servescope-tests"));
    QStandardPaths::setTestModeEnabled(true);
  }

  // Issue 47, defect 14: coloured by model, no model's boxes may read as late batches (or the
  // overview's late marks): every name's hue keeps away from late's red and the pinks beside it,
  // on a light window and a dark one.
  void modelColoursNeverReadAsLate() {
    QPalette light;
    light.setColor(QPalette::Window, Qt::white);
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(30, 30, 30));
    const auto circular = [](double a, double b) {
      const double d = std::abs(a - b);
      return std::min(d, 1.0 - d);
    };
    for (const auto& pal : {light, dark}) {
      const double late = servescope::widgets::late_colour(pal).hslHueF();
      for (int i = 0; i < 2000; ++i) {
        const auto name = i < 1000 ? QStringLiteral("model-%1").arg(i) : QStringLiteral("m%1").arg(i * 7919);
        const double hue = servescope::widgets::color_for_name(name, pal).hslHueF();
        QVERIFY2(circular(hue, late) >= 0.06, qPrintable(name));
      }
    }
  }

  // Issue 47 §2: the violations table, per model, for the window in view or the marked range;
  // sorted worst first and by any column as numbers; a click selects the model's worst batch, or
  // shows its first drop.
  void violationsTableShowsTheWorstBatchAndFollowsTheWindow() {
    auto t = servescope::test::synthetic_timeline();
    // Two beta batches finish late, the second by more; beta also loses a request to a worker.
    std::vector<std::uint32_t> beta;
    for (std::uint32_t i = 0; i < t->spans.size() && beta.size() < 2; ++i)
      if (t->spans[i].model == 1 && t->spans[i].start > Duration::milliseconds(10)) beta.push_back(i);
    const Duration by[] = {Duration::microseconds(100), Duration::microseconds(300)};
    for (std::size_t k = 0; k < 2; ++k) {
      const auto& span = t->spans[beta[k]];
      for (auto r = span.requests_at; r < span.requests_at + span.size; ++r)
        t->requests[r].deadline = span.end - by[k];
    }
    t->drops.push_back({Duration::milliseconds(30), 1, servescope::engine::DropReason::WorkerLost, 2'000'000,
                        Duration::milliseconds(29), Duration::milliseconds(34)});
    TimelineView view;
    view.resize(1000, 400);
    view.set_timeline(t);
    servescope::widgets::ViolationsPanel panel(&view);
    panel.refresh_now();
    QVERIFY(panel.headline().startsWith(QStringLiteral("In view")));
    auto* table = panel.table();
    QCOMPARE(table->rowCount(), 2);
    // Worst first: beta lost 8 of its requests' deadlines and one to a worker; alpha only dropped 3.
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("beta"));
    // Columns: model, on time %, late, dropped, drops by reason, p99, p50, finished.
    QCOMPARE(table->horizontalHeaderItem(2)->text(), QStringLiteral("Late"));
    QCOMPARE(table->horizontalHeaderItem(5)->text(), QStringLiteral("p99"));
    QCOMPARE(table->item(0, 2)->text(), QStringLiteral("8"));
    QCOMPARE(table->item(0, 4)->text(), QStringLiteral("worker-lost 1"));
    QCOMPARE(table->item(1, 4)->text(), QStringLiteral("deadline-unreachable 3"));
    QVERIFY(table->item(0, 1)->data(Qt::UserRole).toDouble() < table->item(1, 1)->data(Qt::UserRole).toDouble());
    // Any column sorts as numbers: p99 ascending.
    table->sortByColumn(5, Qt::AscendingOrder);
    QVERIFY(table->item(0, 5)->data(Qt::UserRole).toDouble() <= table->item(1, 5)->data(Qt::UserRole).toDouble());
    // A click on beta selects its worst batch, the later-by-more one.
    QSignalSpy jumped(&panel, &servescope::widgets::ViolationsPanel::jumped);
    const int beta_row = table->item(0, 0)->text() == QStringLiteral("beta") ? 0 : 1;
    panel.show_row(beta_row);
    QCOMPARE(view.selected(), std::optional<std::uint32_t>(beta[1]));
    QVERIFY2(jumped.last().first().toString().contains(QStringLiteral("worst batch")),
             qPrintable(jumped.last().first().toString()));
    // A model with no late batch shows its first drop.
    panel.show_row(1 - beta_row);
    QVERIFY2(jumped.last().first().toString().contains(QStringLiteral("first drop, at 5 ms")),
             qPrintable(jumped.last().first().toString()));
    // The window in view: before the late batches and drops, only alpha's first drop is there.
    view.set_window(0, Duration::milliseconds(6).count_ns());
    panel.refresh_now();
    QCOMPARE(panel.summary()->to.count_ns(), Duration::milliseconds(6).count_ns());
    bool alpha_dropped_once = false;
    for (int r = 0; r < table->rowCount(); ++r)
      if (table->item(r, 0)->text() == QStringLiteral("alpha"))
        alpha_dropped_once = table->item(r, 3)->text() == QStringLiteral("1");
    QVERIFY(alpha_dropped_once);
    // A marked range wins over the window.
    view.state()->set_range(servescope::widgets::TimeRange{0, t->end.count_ns() + 1});
    panel.refresh_now();
    QVERIFY(panel.headline().startsWith(QStringLiteral("In the marked range")));
    QCOMPARE(table->rowCount(), 2);
  }

  // Issue 47 §2: what the serving system said shows where it happened: a notice's line is found
  // under the pointer, with the scheduler's words and its time in the tool tip, and drawn over
  // the rows it concerns.
  void noticesShowWhereTheyHappened() {
    auto t = servescope::test::synthetic_timeline();
    t->notices = {{Duration::milliseconds(10),
                   servescope::engine::NoticeKind::WorkerLost,
                   "worker of s1 lost (closed): 2 batches in flight",
                   {2, 3}},
                  {Duration::milliseconds(30), servescope::engine::NoticeKind::PlanSwitched, "switched to nexus", {}}};
    TimelineView view;
    view.resize(1000, 400);
    view.set_timeline(t);
    view.set_window(0, Duration::milliseconds(40).count_ns());
    const double x = view.x_of(Duration::milliseconds(10).count_ns());
    const auto found = view.notices_at(QPointF(x + 2, view.lanes_top() + 4));
    QCOMPARE(found.size(), std::size_t{1});
    const auto tip = view.describe_notices(found);
    QVERIFY2(tip.contains(QStringLiteral("10 ms")) && tip.contains(QStringLiteral("worker of s1 lost")),
             qPrintable(tip));
    QVERIFY(view.notices_at(QPointF(x + 40, view.lanes_top() + 4)).empty());
    // Drawn: the lost worker's rows carry the late colour at the notice, which they do not
    // without it.
    const auto rendered = [&] {
      QImage out(view.size(), QImage::Format_ARGB32);
      out.fill(Qt::white);
      view.render(&out);
      return out;
    };
    QImage image = rendered();
    const auto late = servescope::widgets::late_colour(view.palette());
    const auto reddish = [&](int px, double y) {
      int n = 0;
      for (int dx = -1; dx <= 1; ++dx) {
        const QColor c = image.pixelColor(px + dx, static_cast<int>(y));
        n += std::abs(c.red() - late.red()) < 40 && std::abs(c.green() - late.green()) < 40 &&
                     std::abs(c.blue() - late.blue()) < 40
                 ? 1
                 : 0;
      }
      return n > 0;
    };
    const int px = static_cast<int>(std::lround(x));
    QVERIFY(view.row_y(*view.index().row_of_slot(2)) > 0);
    QVERIFY(reddish(px, view.row_y(*view.index().row_of_slot(2)) + 9));
    auto quiet = std::make_shared<TimelineData>(*t);
    quiet->notices.clear();
    view.set_timeline(quiet);
    view.set_window(0, Duration::milliseconds(40).count_ns());
    image = rendered();
    QVERIFY(!reddish(px, view.row_y(*view.index().row_of_slot(2)) + 9));
  }

  // Issue 47 §1: the what-if load slider simulates a short window of the chosen source at a share
  // of the workloads' rates and keeps it in place of the previous what-if run.
  void whatIfLoadReplacesItsRun() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    auto* runs = w.run_view();
    auto* sources = runs->findChild<QComboBox*>(QStringLiteral("runSource"));
    sources->setCurrentIndex(sources->findData(QStringLiteral("nexus")));
    const auto before = w.project()->runs.size();
    QSignalSpy done(runs, &RunView::finished);
    QVERIFY(runs->what_if(1.5));
    QVERIFY(done.wait(120000));
    QCOMPARE(w.project()->runs.size(), before + 1);
    const auto first = w.project()->runs.back();
    QCOMPARE(QString::fromStdString(first.name), QStringLiteral("what-if nexus at 150 %"));
    QVERIFY(first.body["config"]["duration_s"].get<double>() <= RunView::kWhatIfSeconds);
    // The slider moved by a key: 100 → 75 %, simulated at once, in place of the 150 % run.
    auto* slider = runs->findChild<QSlider*>(QStringLiteral("whatIfLoad"));
    QCOMPARE(slider->value(), 100);
    slider->triggerAction(QAbstractSlider::SliderPageStepSub);
    QCOMPARE(slider->value(), 75);
    QVERIFY(done.wait(120000));
    QCOMPARE(w.project()->runs.size(), before + 1);
    const auto& second = w.project()->runs.back();
    QCOMPARE(QString::fromStdString(second.name), QStringLiteral("what-if nexus at 75 %"));
    const double ratio = first.body["config"]["offered_rate_rps"].get<double>() /
                         second.body["config"]["offered_rate_rps"].get<double>();
    QVERIFY2(std::abs(ratio - 2.0) < 1e-9, qPrintable(QString::number(ratio)));
    QVERIFY(runs->status_text().startsWith(QStringLiteral("what-if nexus at 75 %")));
    // The slider moved while a what-if runs, then Stop: nothing more runs, nothing is kept.
    QVERIFY(runs->what_if(1.25));
    QVERIFY(!runs->what_if(1.5));  // queued behind the running one
    runs->stop();
    QVERIFY(done.wait(120000));
    QCoreApplication::processEvents();
    QVERIFY(!runs->busy());
    QCOMPARE(w.project()->runs.size(), before + 1);
    QCOMPARE(QString::fromStdString(w.project()->runs.back().name), QStringLiteral("what-if nexus at 75 %"));
  }

  void wheelZoomKeepsTheTimeUnderTheCursor() {
    TimelineView view;
    view.resize(1200, 300);
    view.set_timeline(servescope::test::synthetic_timeline());
    for (const double x : {300.0, 700.0, 1150.0}) {
      const auto before = view.time_at(x);
      const auto width = view.to_ns() - view.from_ns();
      wheel(&view, QPointF(x, 60), 240);  // in
      QVERIFY(view.to_ns() - view.from_ns() < width);
      const double ns_per_px = static_cast<double>(view.to_ns() - view.from_ns()) / (1200 - view.label_width());
      QVERIFY2(std::abs(static_cast<double>(view.time_at(x) - before)) <= ns_per_px,
               qPrintable(QStringLiteral("%1 → %2").arg(before).arg(view.time_at(x))));
      wheel(&view, QPointF(x, 60), -120);  // out
      QVERIFY(std::abs(static_cast<double>(view.time_at(x) - before)) <= 2 * ns_per_px);
    }
  }

  void historyGoesBackAndForward() {
    TimelineView view;
    view.resize(1000, 300);
    view.set_timeline(servescope::test::synthetic_timeline());
    const auto fit = std::pair{view.from_ns(), view.to_ns()};
    view.set_window(1'000'000, 2'000'000);
    view.set_window(1'200'000, 1'300'000);
    QVERIFY(view.back());
    QCOMPARE(view.from_ns(), 1'000'000);
    QVERIFY(view.back());
    QCOMPARE((std::pair{view.from_ns(), view.to_ns()}), fit);
    QVERIFY(!view.back());
    QVERIFY(view.forward());
    QVERIFY(view.forward());
    QCOMPARE(view.to_ns(), 1'300'000);
    QVERIFY(!view.forward());
    // A new zoom after going back drops the forward entries.
    QVERIFY(view.back());
    view.set_window(5'000'000, 6'000'000);
    QVERIFY(!view.can_go_forward());

    // Every change of the history is signalled after it is recorded, so a "back" button can
    // follow: a Shift+drag range zoom, as a user makes it, can be gone back from at once.
    view.set_timeline(servescope::test::synthetic_timeline());
    QVERIFY(!view.can_go_back());
    QSignalSpy history(&view, &TimelineView::historyChanged);
    bool could_go_back = false;
    QObject::connect(&view, &TimelineView::historyChanged, [&] { could_go_back = view.can_go_back(); });
    QTest::mousePress(&view, Qt::LeftButton, Qt::ShiftModifier, QPoint(400, 100));
    QTest::mouseMove(&view, QPoint(600, 100));
    QTest::mouseRelease(&view, Qt::LeftButton, Qt::ShiftModifier, QPoint(600, 100));
    QVERIFY(history.size() >= 1);
    QVERIFY(could_go_back);
    QVERIFY(view.back());
    QVERIFY(!could_go_back);
  }

  // A filter naming a model keeps every row and hides other models' batches; one naming GPUs
  // keeps only their rows.
  void filterByModelOrGpu() {
    TimelineView view;
    view.resize(1000, 300);
    const auto data = servescope::test::synthetic_timeline();
    view.set_timeline(data);
    view.set_window(0, 5'000'000);
    view.set_filter(QStringLiteral("BETA"));
    for (std::size_t r = 0; r < 4; ++r)
      QVERIFY(view.row_y(r) >= 0);
    const auto& alpha = *std::ranges::find(data->spans, 0u, &TimelineSpan::model);
    const auto row = *view.index().row_of_slot(alpha.gpu);
    const QPointF on_alpha((view.x_of(alpha.start.count_ns()) + view.x_of(alpha.end.count_ns())) / 2,
                           view.row_y(row) + 9);
    QVERIFY(!view.span_at(on_alpha).has_value());
    view.set_filter(QStringLiteral("g1/"));
    int shown = 0;
    for (std::size_t r = 0; r < 4; ++r) {
      const bool g1 = data->gpus[view.index().slot(r)].starts_with("g1/");
      QCOMPARE(view.row_y(r) >= 0, g1);
      shown += g1 ? 1 : 0;
    }
    QCOMPARE(shown, 2);
    view.set_filter(QString());
    QVERIFY(view.span_at(QPointF(on_alpha.x(), view.row_y(row) + 9)).has_value());
  }

  void hitTestingMatchesABruteForceScan() {
    TimelineView view;
    view.resize(1400, 300);
    const auto data = servescope::test::synthetic_timeline();
    view.set_timeline(data);
    view.set_window(2'000'000, 12'000'000);  // boxes of 10–90 px
    std::mt19937 rng(11);
    int hits = 0;
    for (int k = 0; k < 500; ++k) {
      const double x =
          view.label_width() + 1 + static_cast<double>(rng() % static_cast<unsigned>(1400 - view.label_width() - 2));
      const auto row = static_cast<std::size_t>(rng() % 4);
      const double y = view.row_y(row) + 9;
      const auto t = view.time_at(x);
      std::optional<std::uint32_t> expected;
      for (std::uint32_t i = 0; i < data->spans.size(); ++i)
        if (data->spans[i].gpu == view.index().slot(row) && data->spans[i].start.count_ns() <= t &&
            t < data->spans[i].end.count_ns())
          expected = i;
      const auto got = view.span_at(QPointF(x, y));
      if (expected) {
        ++hits;
        QCOMPARE(got, expected);
      } else if (got) {  // a gap: only a box within half a pixel may answer
        const auto& s = data->spans[*got];
        QVERIFY(std::abs(view.x_of(s.start.count_ns()) - x) <= 1 || std::abs(view.x_of(s.end.count_ns()) - x) <= 1);
      }
    }
    QVERIFY(hits > 300);
    // Painting culls: at this zoom only the visible boxes are drawn.
    QImage image(view.size(), QImage::Format_ARGB32);
    view.render(&image);
    QVERIFY(view.boxes_painted() > 0 && view.boxes_painted() < data->spans.size());
  }

  // Dark mode: box colours come from the palette and follow a palette change at once.
  void coloursFollowThePalette() {
    TimelineView view;
    view.resize(900, 200);
    const auto data = servescope::test::synthetic_timeline();
    view.set_timeline(data);
    view.set_window(0, 2'000'000);
    const auto& s = data->spans.front();
    const auto row = *view.index().row_of_slot(s.gpu);
    const QPoint at(static_cast<int>((view.x_of(s.start.count_ns()) + view.x_of(s.end.count_ns())) / 2),
                    static_cast<int>(view.row_y(row) + 12));
    const auto colour_at = [&](const QPalette& palette) {
      view.setPalette(palette);
      QImage image(view.size(), QImage::Format_ARGB32);
      view.render(&image);
      return image.pixelColor(at);
    };
    QPalette light;
    light.setColor(QPalette::Window, Qt::white);
    light.setColor(QPalette::Base, Qt::white);
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(30, 30, 30));
    dark.setColor(QPalette::Base, QColor(20, 20, 20));
    const auto model = QString::fromStdString(data->models[s.model]);
    const auto expected_light = servescope::widgets::color_for_name(model, light).rgb();
    const auto expected_dark = servescope::widgets::color_for_name(model, dark).rgb();
    QVERIFY(expected_light != expected_dark);
    QCOMPARE(colour_at(light).rgb(), expected_light);
    QCOMPARE(colour_at(dark).rgb(), expected_dark);
  }

  void demoRunSessionExportAndReopen() {
    QTemporaryDir dir;
    MainWindow w;
    w.set_interactive(false);
    w.resize(1600, 1000);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    auto* runs = w.run_view();
    QSignalSpy done(runs, &RunView::finished);
    QVERIFY(runs->simulate(QStringLiteral("symphony"), 5));
    QVERIFY(!runs->simulate(QStringLiteral("symphony"), 5));  // one at a time
    QVERIFY(done.wait(120000));
    QCOMPARE(w.project()->runs.size(), std::size_t{1});
    const auto* t = runs->timeline()->timeline();
    QVERIFY(t && t->spans.size() > 1000);
    QCOMPARE(t->gpus.size(), std::size_t{64});
    QVERIFY2(runs->status_text().contains(QStringLiteral("on time")), qPrintable(runs->status_text()));

    // Click a batch: its details show.
    w.show();
    w.findChild<QTabWidget*>(QStringLiteral("centralTabs"))->setCurrentWidget(runs);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* view = runs->timeline();
    const auto& first = t->spans[t->spans.size() / 2];
    view->set_window(first.start.count_ns() - 2'000'000, first.end.count_ns() + 2'000'000);
    const auto row = *view->index().row_of_slot(first.gpu);
    QVERIFY(view->row_y(row) >= 0 && view->row_y(row) < view->height());
    const QPoint at(static_cast<int>((view->x_of(first.start.count_ns()) + view->x_of(first.end.count_ns())) / 2),
                    static_cast<int>(view->row_y(row) + 9));
    QTest::mouseClick(view, Qt::LeftButton, {}, at);
    QVERIFY(view->selected().has_value());
    QCOMPARE(t->spans[*view->selected()].gpu, first.gpu);
    QVERIFY2(runs->details_text().contains(QString::fromStdString(t->models[first.model])),
             qPrintable(runs->details_text()));
    // Issue 47, defect 11: its number and its size apart ("batch 8399 of 1" read as one of one).
    const auto& picked = t->spans[*view->selected()];
    const auto size_text =
        picked.size == 1 ? QStringLiteral("1 request,") : QStringLiteral("%1 requests,").arg(picked.size);
    QVERIFY2(runs->details_text().contains(QStringLiteral("batch #%1, %2").arg(picked.batch).arg(size_text)),
             qPrintable(runs->details_text()));
    // With its requests: the first one's id, and how long each waited.
    const auto listed = t->requests_of(*view->selected());
    QVERIFY(!listed.empty());
    QVERIFY(runs->details_text().contains(QStringLiteral("<td>%1</td>").arg(listed.front().id)));
    QVERIFY(runs->details_text().contains(QStringLiteral("waited")));

    // Playback: "now" advances at the chosen speed and the view follows it.
    view->set_now(std::nullopt);
    runs->set_speed(0.5);
    runs->play(true);
    QVERIFY(runs->playing());
    const auto start = *view->now_ns();
    runs->advance(100'000'000);  // 100 ms of wall time
    QCOMPARE(*view->now_ns(), start + 50'000'000);
    runs->play(false);

    // The Charts tab draws the run: six charts with data; no load sweep yet.
    QCOMPARE(w.charts_view()->chart_count(), 6);
    QCOMPARE(w.charts_view()->sweep_curves(), 0);

    // The Run tab as SVG, as File → Export → View does.
    const auto svg_path = dir.filePath(QStringLiteral("run.svg"));
    QCOMPARE(w.export_view(svg_path), QString());
    QFile svg(svg_path);
    QVERIFY(svg.open(QIODevice::ReadOnly));
    const auto svg_text = svg.readAll();
    QVERIFY(svg_text.contains("<svg") && svg_text.size() > 10'000);
    // As PNG, the content itself: every row of the 64 slots with the axis, the whole run, at the
    // width asked for, taller than the view on screen.
    const auto png_path = dir.filePath(QStringLiteral("run.png"));
    servescope::ui::ViewPictureOptions whole;
    whole.stretch = servescope::ui::ViewPictureOptions::Stretch::Run;
    whole.width = 1500;
    QCOMPARE(w.export_view(png_path, whole), QString());
    QImage png(png_path);
    QCOMPARE(png.size(), view->content_size(1500));
    QVERIFY(png.height() > view->height());
    QVERIFY(png.height() >= 64 * 18);

    // Chrome trace of the shown run.
    const auto trace_path = dir.filePath(QStringLiteral("trace.json"));
    QCOMPARE(w.export_trace(trace_path), QString());
    QFile trace(trace_path);
    QVERIFY(trace.open(QIODevice::ReadOnly));
    // Checked against the trace-event format, as Chromium's trace viewer reads it.
    const auto json = nlohmann::json::parse(trace.readAll().toStdString());
    servescope::test::TraceCounts counts;
    QCOMPARE(QString::fromStdString(servescope::test::check_trace_events(json, &counts)), QString());
    QCOMPARE(counts.complete, t->spans.size() + t->transfers.size());
    QCOMPARE(counts.counters, t->queue.size());

    const auto shots = qEnvironmentVariable("SERVESCOPE_SCREENSHOTS_DIR");
    if (!shots.isEmpty()) {
      view->zoom_to_fit();
      view->set_window(1'000'000'000, 1'250'000'000);
      QCoreApplication::processEvents();
      QVERIFY(w.grab().save(shots + QStringLiteral("/run-timeline.png")));
    }

    // Saved and reopened: the run keeps its timeline, packed (engine/timeline/timeline_packing.h).
    const auto& kept = w.project()->runs[0].body["timeline"];
    QVERIFY(kept.contains("packed"));
    QVERIFY(!kept.contains("spans"));
    const auto path = dir.filePath(QStringLiteral("demo.json"));
    QVERIFY(w.save_to(path, false));
    MainWindow again;
    again.set_interactive(false);
    QVERIFY(again.open_location(path, false));
    QCOMPARE(again.project()->runs.size(), std::size_t{1});
    QVERIFY(again.run_view()->show_run(QString::fromStdString(again.project()->runs[0].name)));
    const auto reopened = again.run_view()->timeline()->timeline();
    QCOMPARE(reopened->spans.size(), t->spans.size());
    QCOMPARE(reopened->requests.size(), t->requests.size());
    QCOMPARE(reopened->queue.size(), t->queue.size());
    QCOMPARE(reopened->end, t->end);
  }

  // A simulation and a sweep show how far they are: the bar counts per cent (a sweep: its load
  // points) up to the end and goes away when the run is kept.
  void aRunShowsItsProgress() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    auto* runs = w.run_view();
    auto* bar = runs->findChild<QProgressBar*>(QStringLiteral("runProgress"));
    QVERIFY(bar);
    int highest = -1;
    QObject::connect(bar, &QProgressBar::valueChanged, [&](int v) { highest = std::max(highest, v); });
    QSignalSpy done(runs, &RunView::finished);
    QVERIFY(runs->simulate(QStringLiteral("symphony"), 3));
    QVERIFY(!bar->isHidden());
    QVERIFY(done.wait(120000));
    QCOMPARE(highest, 100);
    QCOMPARE(bar->maximum(), 100);
    QVERIFY(bar->isHidden());

    highest = -1;
    QVERIFY(runs->sweep(QStringLiteral("symphony"), 0.5));
    QVERIFY(done.wait(120000));
    QCOMPARE(bar->maximum(), 12);
    QCOMPARE(highest, 12);
    QVERIFY(bar->isHidden());
  }

  // A run finishing after another project was opened is not added to it.
  void aRunNeverLandsInAnotherProject() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    QSignalSpy done(w.run_view(), &RunView::finished);
    QVERIFY(w.run_view()->simulate(QStringLiteral("symphony"), 3));
    w.new_project();
    QVERIFY(done.wait(120000));
    QCOMPARE(w.project()->runs.size(), std::size_t{0});
    QVERIFY(w.log_text().contains(QStringLiteral("not kept")));
  }

  // Every tab of a project with a plan and a run, at a laptop's 1280×800 and at 1920×1080, light
  // and dark: no chart axis shortens a label to "…", and (with SERVESCOPE_SCREENSHOTS_DIR) a
  // contact sheet of all tabs per size and palette shows the rest.
  void everyTabAtTwoSizesLightAndDark_data() {
    QTest::addColumn<QString>("project");
    QTest::addColumn<QString>("source");  // simulated first (with "plan:" a plan is made first)
    QTest::newRow("ppipe-demo") << QStringLiteral("builtin:projects/ppipe-demo.json") << QStringLiteral("plan:ppipe");
    // Goodput in the tens of thousands: the widest tick labels.
    QTest::newRow("demo") << QStringLiteral("builtin:projects/demo.json") << QStringLiteral("symphony");
  }
  void everyTabAtTwoSizesLightAndDark() {
    QFETCH(QString, project);
    QFETCH(QString, source);
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(project, false));
    if (source.startsWith(QStringLiteral("plan:"))) {
      QSignalSpy planned(w.planning(), &servescope::ui::PlanningPanel::finished);
      QVERIFY(w.planning()->run_planners({source.mid(5)}));
      QVERIFY(planned.wait(120000));
      w.plan_view()->show_plans(0, -1);
    }
    QSignalSpy done(w.run_view(), &RunView::finished);
    QVERIFY(w.run_view()->simulate(source, 2));
    QVERIFY(done.wait(120000));
    auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("centralTabs"));
    const auto shots = qEnvironmentVariable("SERVESCOPE_SCREENSHOTS_DIR");
    const auto light = QApplication::palette();
    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
      for (const bool dark : {false, true}) {
        QApplication::setPalette(dark ? servescope::test::dark_palette() : light);
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // Tabs in a 3 × 3 sheet, each a third of the window.
        QImage sheet(size, QImage::Format_ARGB32);
        sheet.fill(Qt::black);
        QPainter painter(&sheet);
        for (int t = 0; t < tabs->count(); ++t) {
          tabs->setCurrentIndex(t);
          QCoreApplication::processEvents();
          for (auto* chart : tabs->currentWidget()->findChildren<QChartView*>()) {
            if (!chart->isVisible() || !chart->chart()) continue;
            for (const auto* axis : chart->chart()->axes())
              QVERIFY2(!axis->labelsTruncated(), qPrintable(QStringLiteral("%1 at %2x%3: %4 of \"%5\"")
                                                                .arg(tabs->tabText(t))
                                                                .arg(size.width())
                                                                .arg(size.height())
                                                                .arg(axis->titleText(), chart->chart()->title())));
          }
          const QRect cell((t % 3) * size.width() / 3, (t / 3) * size.height() / 3, size.width() / 3,
                           size.height() / 3);
          painter.drawImage(cell,
                            w.grab().toImage().scaled(cell.size(), Qt::KeepAspectRatio, Qt::SmoothTransformation));
        }
        painter.end();
        if (!shots.isEmpty() && source.startsWith(QStringLiteral("plan:")))
          QVERIFY(sheet.save(shots + QStringLiteral("/tabs-%1x%2%3.png")
                                         .arg(size.width())
                                         .arg(size.height())
                                         .arg(dark ? QStringLiteral("-dark") : QString())));
      }
    }
    QApplication::setPalette(light);
  }

  void pipelinePlanRunLinksStages() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/ppipe-demo.json"), false));
    QSignalSpy planned(w.planning(), &servescope::ui::PlanningPanel::finished);
    QVERIFY(w.planning()->run_planners({QStringLiteral("ppipe")}));
    QVERIFY(planned.wait(120000));
    auto* runs = w.run_view();
    QSignalSpy done(runs, &RunView::finished);
    QVERIFY(runs->simulate(QStringLiteral("plan:ppipe"), 3));
    QVERIFY(done.wait(120000));
    const auto* t = runs->timeline()->timeline();
    QVERIFY2(t && !t->spans.empty(), qPrintable(runs->status_text()));
    QVERIFY(!t->transfers.empty());
    // Some batch runs in two stages; selecting it outlines both.
    std::optional<std::uint32_t> staged;
    for (std::uint32_t i = 0; i < t->spans.size() && !staged; ++i)
      if (runs->timeline()->index().linked(i).size() > 1) staged = i;
    QVERIFY(staged);
    runs->timeline()->select(staged);
    QVERIFY2(runs->details_text().contains(QStringLiteral("2-stage")), qPrintable(runs->details_text()));
    // Coloured by batch, the two stages of that batch share a colour on their two vGPUs.
    TimelineView standalone;  // a view of its own size, outside the hidden window's layout
    standalone.resize(1400, 600);
    standalone.set_timeline(runs->timeline_for(QString::fromStdString(w.project()->runs[0].name)));
    auto* view = &standalone;
    // Transfers on the NICs they used: each in one uplink lane and one downlink lane.
    std::size_t up = 0, down = 0;
    for (const auto& [label, count] : view->nic_lanes()) {
      QVERIFY2(label.startsWith(QStringLiteral("NIC ")), qPrintable(label));
      (label.contains(QStringLiteral("↑")) ? up : down) += count;
    }
    QCOMPARE(up, t->transfers.size());
    QCOMPARE(down, t->transfers.size());
    view->set_colouring(servescope::widgets::BoxColouring::Batch);
    const auto stages = view->index().linked(*staged);
    view->set_window(t->spans[stages.front()].start.count_ns() - 1'000'000,
                     t->spans[stages.back()].end.count_ns() + 1'000'000);
    QImage image(view->size(), QImage::Format_ARGB32);
    view->render(&image);
    const auto centre = [&](std::uint32_t i) {  // inside the box, right of its label
      const auto& s = t->spans[i];
      return QPoint(static_cast<int>(view->x_of(s.end.count_ns())) - 4,
                    static_cast<int>(view->row_y(*view->index().row_of_slot(s.gpu)) + 9));
    };
    QVERIFY(view->row_y(*view->index().row_of_slot(t->spans[stages.back()].gpu)) < 600);
    QCOMPARE(image.pixelColor(centre(stages.front())).rgb(), image.pixelColor(centre(stages.back())).rgb());
    // ...and the next batch on the first vGPU (the same model) has another.
    const auto row = *view->index().row_of_slot(t->spans[stages.front()].gpu);
    const auto in_row = view->index().spans(row);
    const auto at = std::ranges::find(in_row, stages.front()) - in_row.begin();
    QVERIFY(at + 1 < static_cast<std::ptrdiff_t>(in_row.size()));
    const auto next = in_row[static_cast<std::size_t>(at + 1)];
    QCOMPARE(t->spans[next].model, t->spans[stages.front()].model);
    view->set_window(t->spans[stages.front()].start.count_ns() - 1'000'000, t->spans[next].end.count_ns() + 1'000'000);
    view->render(&image);
    QVERIFY(image.pixelColor(centre(stages.front())).rgb() != image.pixelColor(centre(next)).rgb());
    const auto* plan_name = "ppipe";
    QVERIFY(w.project()->runs[0].name.starts_with(plan_name));

    // A pool clicked in the Plans tab: its vGPUs outlined on the cluster's chips, their rows
    // marked on the run's timeline, the plan and the pool's model selected in the project tree.
    w.plan_view()->show_plans(0, -1);
    auto* diagram = w.plan_view()->left_diagram();
    diagram->resize(diagram->sizeHint());
    const auto& items = diagram->diagram().items;
    const auto pool =
        std::ranges::find(items, servescope::engine::DiagramItem::Kind::Pool, &servescope::engine::DiagramItem::kind);
    QVERIFY(pool != items.end());
    const auto pool_id = pool->id;
    QTest::mouseClick(diagram, Qt::LeftButton, {},
                      diagram->item_rect(static_cast<std::size_t>(pool - items.begin())).center().toPoint());
    QCOMPARE(diagram->selected(), pool_id);
    const auto placement = servescope::engine::place_plan(w.project()->scenario, w.project()->plans[0].body);
    const auto shares = placement.shares_of(pool_id);
    QVERIFY(!shares.empty());
    std::set<std::uint32_t> slots;
    for (const auto* share : shares)
      slots.insert(share->slot);
    QCOMPARE(runs->timeline()->marked_rows(), slots);
    QVERIFY(w.cluster_editor()->picked_shares() > 0);
    QVERIFY(w.cluster_editor()->picked_shares() <= static_cast<int>(shares.size()));
    QStringList picked;
    for (const auto& index : w.project_tree()->selectionModel()->selectedIndexes())
      picked << index.data().toString();
    QVERIFY2(picked.contains(QString::fromStdString(w.project()->plans[0].name) + QStringLiteral(" (ppipe)")),
             qPrintable(picked.join(QStringLiteral(", "))));
    QVERIFY2(picked.contains(QString::fromStdString(shares.front()->model)),
             qPrintable(picked.join(QStringLiteral(", "))));
    // A run of the plan shown again keeps no stale marks; a cleared pick clears them.
    w.show_plan_item(QString::fromStdString(w.project()->plans[0].name), QString());
    QVERIFY(runs->timeline()->marked_rows().empty());
    w.show_plan_item(QString::fromStdString(w.project()->plans[0].name), QString::fromStdString(pool_id));
    QCOMPARE(runs->timeline()->marked_rows(), slots);

    // Screenshots of the Run tab at a laptop's 1280×800, light and dark: a pipeline batch's flow,
    // its time marked as the range, and teaching mode telling its first request.
    if (const auto shots = qEnvironmentVariable("SERVESCOPE_SCREENSHOTS_DIR"); !shots.isEmpty()) {
      w.resize(1280, 800);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      w.findChild<QTabWidget*>(QStringLiteral("centralTabs"))->setCurrentWidget(runs);
      auto* shown = runs->timeline();
      shown->select(staged);
      shown->zoom_to_selection();
      const auto& s0 = t->spans[stages.front()];
      shown->set_window(s0.start.count_ns() - 6'000'000, t->spans[stages.back()].end.count_ns() + 6'000'000);
      shown->mark_selection();
      QVERIFY(runs->teaching()->tell(t->requests_of(*staged).front().id));
      runs->teaching()->go_to(2);
      w.findChild<QTabWidget*>(QStringLiteral("runSidePanel"))->setCurrentWidget(runs->teaching());
      QCoreApplication::processEvents();
      QVERIFY(w.grab().save(shots + QStringLiteral("/run-flow-teaching.png")));
      const auto light = QApplication::palette();
      QApplication::setPalette(servescope::test::dark_palette());
      QCoreApplication::processEvents();
      QVERIFY(w.grab().save(shots + QStringLiteral("/run-flow-teaching-dark.png")));
      w.plan_view()->show_plans(0, -1);
      w.plan_view()->left_diagram()->select(pool_id);
      w.findChild<QTabWidget*>(QStringLiteral("centralTabs"))->setCurrentWidget(w.plan_view());
      QCoreApplication::processEvents();
      QVERIFY(w.grab().save(shots + QStringLiteral("/plan-diagram-dark.png")));
      QApplication::setPalette(light);
      QCoreApplication::processEvents();
      QVERIFY(w.grab().save(shots + QStringLiteral("/plan-diagram.png")));
      // The picked pool on the cluster's chips.
      w.findChild<QTabWidget*>(QStringLiteral("centralTabs"))->setCurrentWidget(w.cluster_editor());
      QCoreApplication::processEvents();
      QVERIFY(w.grab().save(shots + QStringLiteral("/plan-pick-cluster.png")));
    }

    // A load sweep of the plan: one attainment-vs-load curve on the Charts tab, kept in the
    // project's runs but not offered as a timeline.
    QVERIFY(runs->sweep(QStringLiteral("plan:ppipe"), 1));
    QVERIFY(done.wait(120000));
    QCOMPARE(w.project()->runs.size(), std::size_t{2});
    QVERIFY(w.project()->runs[1].body.value("kind", "") == "load-sweep");
    QVERIFY2(runs->status_text().contains(QStringLiteral("of capacity")), qPrintable(runs->status_text()));
    QCOMPARE(w.charts_view()->sweep_curves(), 1);
    QVERIFY(!runs->show_run(QString::fromStdString(w.project()->runs[1].name)));
    QCOMPARE(w.charts_view()->chart_count(), 7);
    const auto shots = qEnvironmentVariable("SERVESCOPE_SCREENSHOTS_DIR");
    if (!shots.isEmpty()) {
      w.resize(1600, 1000);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      w.findChild<QTabWidget*>(QStringLiteral("centralTabs"))->setCurrentWidget(w.charts_view());
      QCoreApplication::processEvents();
      QVERIFY(w.grab().save(shots + QStringLiteral("/charts.png")));
    }
  }
};

SERVESCOPE_GUI_TEST(tst_timeline, TestTimeline)
#include "tst_timeline.moc"
