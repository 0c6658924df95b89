// Finding one's way in a run, as a person does it (README "The GUI" keys), run offscreen and
// again in a real window under Xvfb (ctest tst_timeline_navigation.xvfb): W/S zoom around the
// cursor and A/D pan; F frames and M marks; a drag marks a range whose summary matches a
// brute-force count over the run; a click selects a batch and its flow links the right spans
// and transfer; views sharing one state share window, range and selection; the wheel scrolls
// rows and Ctrl+wheel zooms; a GPU's slots collapse into one row; a zoomed-out row shows its
// models' colours, not grey; and find goes to a request or a model's next batch.
#include <QCursor>
#include <QGuiApplication>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>
#include <map>

#include "tests/gui/gui_test_main.h"
#include "tests/gui/synthetic_timeline.h"
#include "ui/teaching_panel.h"
#include "widgets/model_colors.h"
#include "widgets/nice_scale.h"
#include "widgets/range_summary_panel.h"
#include "widgets/time_axis.h"
#include "widgets/timeline_view.h"

using servescope::engine::FlowStep;
using servescope::widgets::RangeSummaryPanel;
using servescope::widgets::TimelineView;
using servescope::widgets::TimelineViewState;

namespace {

void wheel(QWidget* w, QPointF at, QPoint delta, Qt::KeyboardModifiers modifiers) {
  QWheelEvent e(at, w->mapToGlobal(at), QPoint(), delta, Qt::NoButton, modifiers, Qt::NoScrollPhase, false);
  QCoreApplication::sendEvent(w, &e);
}

bool real_window() {
  return QGuiApplication::platformName() == QLatin1String("xcb");
}

// A shown view, so that keys, the cursor and painting behave as on screen.
struct ShownView {
  std::shared_ptr<servescope::engine::TimelineData> data = servescope::test::synthetic_timeline();
  TimelineView view;
  explicit ShownView(QSize size = {1200, 400}) {
    view.resize(size);
    view.set_timeline(data);
    view.show();
    view.activateWindow();
    if (!QTest::qWaitForWindowExposed(&view)) qWarning("the view never showed");
    view.setFocus();
  }
  double middle() const { return view.label_width() + (view.plot_right() - view.label_width()) / 2.0; }
  std::uint32_t two_stage() const {  // the synthetic run's pipeline batch, first stage
    for (std::uint32_t i = 0; i < data->spans.size(); ++i)
      if (view.index().linked(i).size() == 2) return i;
    return UINT32_MAX;
  }
  QPoint centre_of(std::uint32_t span) const {
    const auto& s = data->spans[span];
    return {static_cast<int>((view.x_of(s.start.count_ns()) + view.x_of(s.end.count_ns())) / 2),
            static_cast<int>(view.row_y(*view.index().row_of_slot(s.gpu)) + 9)};
  }
};

// The view rendered: per colour, its pixels in the plot area of every row, `from`–`to` px below
// each row's top.
std::vector<int> pixels_in_rows(TimelineView& view, int from, int to, const std::vector<QRgb>& colours) {
  QImage image(view.size(), QImage::Format_ARGB32);
  view.render(&image);
  std::vector<int> seen(colours.size(), 0);
  for (std::size_t row = 0; row < view.index().rows(); ++row)
    for (int x = view.label_width() + 1; x < view.plot_right() - 1; ++x)
      for (int dy = from; dy < to; ++dy) {
        const auto c = image.pixelColor(x, static_cast<int>(view.row_y(row)) + dy).rgb();
        for (std::size_t k = 0; k < colours.size(); ++k)
          seen[k] += c == colours[k] ? 1 : 0;
      }
  return seen;
}

}  // namespace

class TestTimelineNavigation : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void keysMoveTheViewAsSpecified() {
    ShownView v;
    auto& view = v.view;
    view.set_window(10'000'000, 20'000'000);
    // W zooms in around the cursor: on screen the cursor is where the mouse moved; offscreen it
    // is nowhere over the view and W zooms around the middle.
    QTest::mouseMove(&view, QPoint(700, 100));
    const auto cursor = view.mapFromGlobal(QCursor::pos());
    if (real_window()) QCOMPARE(cursor, QPoint(700, 100));
    const bool over =
        cursor.x() >= view.label_width() && cursor.x() < view.plot_right() && view.rect().contains(cursor);
    const double anchor = over ? cursor.x() : v.middle();
    const auto fixed = view.time_at(anchor);
    const auto width = view.to_ns() - view.from_ns();
    QTest::keyClick(&view, Qt::Key_W);
    QVERIFY2(std::abs(static_cast<double>(view.to_ns() - view.from_ns()) - static_cast<double>(width) / 1.5) <= 2,
             qPrintable(QString::number(view.to_ns() - view.from_ns())));
    const double ns_per_px =
        static_cast<double>(view.to_ns() - view.from_ns()) / (view.plot_right() - view.label_width());
    QVERIFY(std::abs(static_cast<double>(view.time_at(anchor) - fixed)) <= ns_per_px);
    QTest::keyClick(&view, Qt::Key_S);
    QVERIFY(std::abs(static_cast<double>(view.to_ns() - view.from_ns() - width)) <= 4);
    QVERIFY(std::abs(static_cast<double>(view.time_at(anchor) - fixed)) <= 2 * ns_per_px);
    // A and D pan by 15 % of the window, keeping its width.
    const auto from = view.from_ns();
    QTest::keyClick(&view, Qt::Key_D);
    QCOMPARE(view.from_ns(), from + (view.to_ns() - view.from_ns()) * 15 / 100);
    QTest::keyClick(&view, Qt::Key_A);
    QCOMPARE(view.from_ns(), from);
    // F frames the selected batch with both its stages and the transfer between them.
    const auto staged = v.two_stage();
    QVERIFY(staged != UINT32_MAX);
    view.select(staged);
    QTest::keyClick(&view, Qt::Key_F);
    const auto& flow = view.flow();
    QCOMPARE(flow.size(), std::size_t{3});
    QVERIFY(view.from_ns() < flow.front().start.count_ns() && view.to_ns() > flow.back().end.count_ns());
    // M marks the flow's time as the range, and the range has its duration.
    QTest::keyClick(&view, Qt::Key_M);
    const auto& range = view.state()->range();
    QVERIFY(range.has_value());
    QCOMPARE(range->from_ns, flow.front().start.count_ns());
    QCOMPARE(range->to_ns, flow.back().end.count_ns());
    // Esc clears the selection, then the range; 0 fits the run again.
    QTest::keyClick(&view, Qt::Key_Escape);
    QVERIFY(!view.selected());
    QVERIFY(view.state()->range());
    QTest::keyClick(&view, Qt::Key_Escape);
    QVERIFY(!view.state()->range());
    QTest::keyClick(&view, Qt::Key_0);
    QCOMPARE(view.from_ns(), 0);
    QVERIFY(view.to_ns() >= v.data->end.count_ns());
    // Alt+← goes back through those zooms.
    QVERIFY(view.can_go_back());
    const auto fitted = view.to_ns();
    QTest::keyClick(&view, Qt::Key_Left, Qt::AltModifier);
    QVERIFY(view.to_ns() != fitted);
  }

  void dragMarksARangeWhoseSummaryMatchesABruteForceCount() {
    ShownView v;
    auto& view = v.view;
    RangeSummaryPanel panel(&view);
    QVERIFY(!panel.summary());
    const int y = static_cast<int>(view.row_y(0) + 9);
    QTest::mousePress(&view, Qt::LeftButton, {}, QPoint(300, y));
    QTest::mouseMove(&view, QPoint(500, y));
    QTest::mouseMove(&view, QPoint(900, y));
    QTest::mouseRelease(&view, Qt::LeftButton, {}, QPoint(900, y));
    const auto range = view.state()->range();
    QVERIFY(range.has_value());
    QCOMPARE(range->from_ns, view.time_at(300));
    QCOMPARE(range->to_ns, view.time_at(900));
    QVERIFY(!view.selected());  // a drag is not a click
    QVERIFY(panel.summary().has_value());
    const auto& s = *panel.summary();
    // The brute force: every batch, every request and every drop of the run looked at.
    std::uint64_t batches = 0;
    std::map<std::uint32_t, std::int64_t> busy_ns;
    std::map<std::uint64_t, std::int64_t> finish_ns;  // request id → its last batch's end
    for (std::size_t i = 0; i < v.data->spans.size(); ++i) {
      const auto& span = v.data->spans[i];
      const auto a = span.start.count_ns(), e = span.end.count_ns();
      if (a >= range->from_ns && a < range->to_ns) ++batches;
      busy_ns[span.gpu] += std::max<std::int64_t>(0, std::min(e, range->to_ns) - std::max(a, range->from_ns));
      for (const auto& r : v.data->requests_of(i))
        finish_ns[r.id] = std::max(finish_ns[r.id], e);
    }
    std::uint64_t finished = 0, dropped = 0;
    for (const auto& [id, at] : finish_ns)
      finished += at >= range->from_ns && at < range->to_ns ? 1u : 0u;
    for (const auto& d : v.data->drops)
      dropped += d.time.count_ns() >= range->from_ns && d.time.count_ns() < range->to_ns ? 1u : 0u;
    QVERIFY(batches > 10);
    QCOMPARE(s.batches, batches);
    QCOMPARE(s.finished.value_or(0), finished);
    QCOMPARE(s.dropped, dropped);
    QVERIFY(dropped > 0);
    for (std::size_t row = 0; row < s.busy.size(); ++row) {
      const auto slot = view.index().slot(row);
      const double want = static_cast<double>(busy_ns[slot]) / static_cast<double>(range->length_ns());
      QVERIFY2(std::abs(s.busy[row] - want) < 1e-9,
               qPrintable(QStringLiteral("%1: %2 vs %3").arg(row).arg(s.busy[row]).arg(want)));
    }
    QVERIFY2(panel.text().contains(QStringLiteral("%1 dropped").arg(dropped)), qPrintable(panel.text()));
  }

  void aClickSelectsABatchAndItsFlowLinksTheRightSpans() {
    ShownView v;
    auto& view = v.view;
    const auto staged = v.two_stage();
    const auto stages = view.index().linked(staged);
    QCOMPARE(stages.size(), std::size_t{2});
    const auto& transfer = v.data->transfers.front();
    view.set_window(v.data->spans[stages[0]].start.count_ns() - 500'000,
                    v.data->spans[stages[1]].end.count_ns() + 500'000);
    QTest::mouseClick(&view, Qt::LeftButton, {}, v.centre_of(stages[1]));
    QCOMPARE(view.selected(), std::optional<std::uint32_t>(stages[1]));
    const auto& flow = view.flow();
    QCOMPARE(flow.size(), std::size_t{3});
    QCOMPARE(flow[0].kind, FlowStep::Kind::Batch);
    QCOMPARE(flow[0].index, stages[0]);
    QCOMPARE(flow[1].kind, FlowStep::Kind::Transfer);
    QCOMPARE(flow[1].index, 0u);
    QCOMPARE(transfer.from_gpu, v.data->spans[stages[0]].gpu);
    QCOMPARE(transfer.to_gpu, v.data->spans[stages[1]].gpu);
    QCOMPARE(flow[2].kind, FlowStep::Kind::Batch);
    QCOMPARE(flow[2].index, stages[1]);
    // The arrows are drawn in the highlight colour between the stages' rows.
    QImage image(view.size(), QImage::Format_ARGB32);
    view.render(&image);
    const auto highlight = view.palette().color(QPalette::Highlight).rgb();
    int highlighted = 0;
    const int x0 = static_cast<int>(view.x_of(transfer.start.count_ns())),
              x1 = static_cast<int>(view.x_of(transfer.end.count_ns()));
    for (int x = x0; x <= x1; ++x)
      for (int y = static_cast<int>(view.lanes_top()); y < view.height(); ++y)
        highlighted += image.pixelColor(x, y).rgb() == highlight ? 1 : 0;
    QVERIFY2(highlighted > 10, qPrintable(QString::number(highlighted)));
    // A click on nothing clears it.
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(view.plot_right() - 2, static_cast<int>(view.row_y(3) + 9)));
    if (view.selected()) QVERIFY(view.selected() != stages[1]);
  }

  void viewsSharingAStateShareWindowRangeAndSelection() {
    ShownView a;
    TimelineView b;
    b.resize(1200, 400);
    b.set_state(a.view.state());
    b.set_timeline(a.data);
    const auto& staged = a.data->spans[a.two_stage()];
    const auto from = staged.start.count_ns() - 3'000'000, to = staged.start.count_ns() + 3'000'000;
    a.view.set_window(from, to);
    QCOMPARE(b.from_ns(), from);
    QCOMPARE(b.to_ns(), to);
    QSignalSpy selected(&b, &TimelineView::selectionChanged);
    QTest::mouseClick(&a.view, Qt::LeftButton, {}, a.centre_of(a.two_stage()));
    QCOMPARE(b.selected(), a.view.selected());
    QVERIFY(b.selected().has_value());
    QCOMPARE(selected.size(), 1);
    QCOMPARE(b.flow().size(), std::size_t{3});
    a.view.state()->set_range(servescope::widgets::TimeRange{4'000'000, 5'000'000});
    QCOMPARE(b.state()->range()->from_ns, 4'000'000);
    // One back button for all: the history is the state's.
    QVERIFY(a.view.state()->back_action()->isEnabled());
    a.view.state()->back_action()->trigger();
    QCOMPARE(b.from_ns(), a.view.from_ns());
    // A view of another run ignores the selection: span indices mean nothing across runs.
    TimelineView other;
    other.set_state(a.view.state());
    auto other_run = servescope::test::synthetic_timeline();
    other.set_timeline(other_run);
    QVERIFY(!other.selected());
  }

  void wheelScrollsRowsAndCtrlWheelZooms() {
    ShownView v({900, 200});
    auto& view = v.view;
    // Eight more slots, idle, on two more GPUs: rows taller than the view, and a scroll bar.
    auto more = std::make_shared<servescope::engine::TimelineData>(*v.data);
    for (std::uint32_t k = 0; k < 8; ++k) {
      more->gpus.push_back("g" + std::to_string(2 + k / 4) + "/v" + std::to_string(k % 4));
      more->gpu_physical.push_back(2 + k / 4);
      more->gpu_shares.emplace_back("1/4");
      more->gpu_types.emplace_back("T4");
      more->gpu_server.push_back(1);
    }
    more->physical_names = {"g0", "g1", "g2", "g3"};
    view.set_timeline(more);
    QVERIFY(view.content_height() > view.height() - view.lanes_top());
    QVERIFY(view.plot_right() < view.width());  // room for the bar
    const auto window = view.state()->window();
    wheel(&view, QPointF(500, 80), QPoint(0, -120), Qt::NoModifier);
    QVERIFY(view.scroll_px() > 0);
    QCOMPARE(view.state()->window(), window);
    wheel(&view, QPointF(500, 80), QPoint(0, 120), Qt::NoModifier);
    QCOMPARE(view.scroll_px(), 0.0);
    wheel(&view, QPointF(500, 80), QPoint(0, 240), Qt::ControlModifier);
    QVERIFY(view.to_ns() - view.from_ns() < window.length_ns());
    const auto zoomed = view.from_ns();
    wheel(&view, QPointF(500, 80), QPoint(0, -120), Qt::ShiftModifier);
    QVERIFY(view.from_ns() > zoomed);
  }

  void aGpusSlotsCollapseIntoOneRow() {
    ShownView v;
    auto& view = v.view;
    const auto row0 = *view.index().row_of_slot(0), row1 = *view.index().row_of_slot(1);
    QVERIFY(view.row_y(row1) > view.row_y(row0));
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(20, static_cast<int>(view.row_y(row0) + 9)));
    QVERIFY(view.collapsed(0));
    QCOMPARE(view.row_y(row1), view.row_y(row0));
    QVERIFY(!view.row_in_view(1));
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(20, static_cast<int>(view.row_y(row0) + 9)));
    QVERIFY(!view.collapsed(0));
    QVERIFY(view.row_y(row1) > view.row_y(row0));
  }

  void zoomedOutRowsShowTheirModelsColours() {
    ShownView v({520, 300});
    auto& view = v.view;
    view.set_window(0, v.data->end.count_ns() * 4);  // about 80 px for 40 ms: every batch under 2 px
    const auto seen =
        pixels_in_rows(view, 3, 15,
                       {servescope::widgets::color_for_name(QStringLiteral("alpha"), view.palette()).rgb(),
                        servescope::widgets::color_for_name(QStringLiteral("beta"), view.palette()).rgb(),
                        view.palette().color(QPalette::Mid).rgb()});
    const int seen_alpha = seen[0], seen_beta = seen[1], seen_grey = seen[2];
    QVERIFY2(seen_alpha > 500 && seen_beta > 500, qPrintable(QStringLiteral("%1 %2").arg(seen_alpha).arg(seen_beta)));
    QVERIFY2(seen_grey < (seen_alpha + seen_beta) / 20, qPrintable(QString::number(seen_grey)));
  }

  // Issue 47 §2: zoomed out and coloured by SLO outcome, a merged run shows its share of late
  // batches (every 17th here), not late's colour for the whole run if any batch in it was late
  // (a live run with 97 % on time looked almost all red zoomed out).
  void mergedBoxesShowTheirShareOfLateBatches() {
    ShownView v({520, 300});
    auto& view = v.view;
    view.set_colouring(servescope::widgets::BoxColouring::SloOutcome);
    view.set_window(0, v.data->end.count_ns() * 4);  // every batch under 2 px: all merged
    const auto seen = pixels_in_rows(view, 0, 18,
                                     {servescope::widgets::late_colour(view.palette()).rgb(),
                                      servescope::widgets::on_time_colour(view.palette()).rgb()});
    const int seen_late = seen[0], seen_on_time = seen[1];
    QVERIFY2(seen_late > 0 && seen_on_time > 4 * seen_late,
             qPrintable(QStringLiteral("%1 late, %2 on time").arg(seen_late).arg(seen_on_time)));
  }

  void teachingModeStepsThroughOneRequest();

  // 23 s into a live run at a 100 ns step the axis does not read "23127744.3 µs": the first tick
  // gives the time in seconds, the others the offset from it; counted from the run's start, a
  // coarse axis reads plainly.
  // Chart axes in round numbers: about five intervals of 1, 2, 2.5 or 5 × 10^k, with just the
  // decimals the step needs.
  void chartScalesAreRound() {
    using servescope::widgets::nice_scale;
    const auto check = [](double lo, double hi, double want_lo, double want_hi, double step, int decimals) {
      const auto s = nice_scale(lo, hi);
      QCOMPARE(s.lo, want_lo);
      QCOMPARE(s.hi, want_hi);
      QCOMPARE(s.step, step);
      QCOMPARE(s.decimals, decimals);
      QCOMPARE(s.intervals, static_cast<int>(std::lround((s.hi - s.lo) / s.step)));
      QVERIFY(s.intervals >= 2 && s.intervals <= 7);
      QVERIFY(s.lo <= lo && s.hi >= hi);
    };
    check(0, 20.3, 0, 25, 5, 0);                     // a 20 s run's time axis (Qt's own went to 30)
    check(0, 16590, 0, 17500, 2500, 0);              // goodput in req/s: no "1.5e+04"
    check(0, 1.05, 0, 1.2, 0.2, 1);                  // a fraction
    check(0, 0.75, 0, 0.8, 0.2, 1);                  // the smallest round step that fits wins
    check(-3.2, 7.9, -4, 8, 2, 0);                   // either side of zero
    check(0.001, 0.0042, 0.001, 0.0045, 0.0005, 4);  // need not start at 0
    check(5, 5, 2, 8, 1, 0);                         // a flat series gets a range around it
  }

  void axisLabelsStayShortDeepIntoARun() {
    using servescope::widgets::tick_labels;
    const std::vector<std::int64_t> fine{23'127'744'300, 23'127'744'400, 23'127'744'500};
    QCOMPARE(tick_labels(fine, 100, 0), (std::vector<QString>{QStringLiteral("23.1277443 s"), QStringLiteral("+0.1 µs"),
                                                              QStringLiteral("+0.2 µs")}));
    const std::vector<std::int64_t> coarse{23'500'000'000, 24'000'000'000};
    QCOMPARE(tick_labels(coarse, 500'000'000, 23'000'000'000),
             (std::vector<QString>{QStringLiteral("0.5 s"), QStringLiteral("1.0 s")}));
    // The view counts from its origin.
    ShownView v;
    v.view.set_time_origin(1'000'000);
    QCOMPARE(v.view.time_origin(), 1'000'000);
  }

  // The overview strip's marks at windows narrower than a nanosecond per pixel (it once looped
  // forever where rounding put a column's first nanosecond on a late batch's end).
  void theOverviewPaintsAtEveryZoom() {
    ShownView v;
    auto& view = v.view;
    QImage image(view.size(), QImage::Format_ARGB32);
    for (const auto& s : v.data->spans) {
      if (s.late == 0) continue;
      for (const std::int64_t width : {1'000, 1'337, 7'919, 1'000'000})
        for (const std::int64_t shift : {-width / 2, std::int64_t{-1}, std::int64_t{0}, std::int64_t{1}}) {
          view.set_window(s.end.count_ns() + shift, s.end.count_ns() + shift + width);
          view.render(&image);
        }
    }
  }

  void findGoesToARequestOrAModelsNextBatch() {
    ShownView v;
    auto& view = v.view;
    // A request id: the first batch that carried it.
    const auto& r = v.data->requests[v.data->requests.size() / 2];
    QVERIFY(!view.find_next(QString::number(r.id)).isEmpty());
    const auto found = view.selected();
    QVERIFY(found.has_value());
    const auto carried = v.data->requests_of(*found);
    QVERIFY(std::ranges::any_of(carried, [&](const auto& q) { return q.id == r.id; }));
    QVERIFY(view.from_ns() <= v.data->spans[*found].start.count_ns() &&
            v.data->spans[*found].start.count_ns() <= view.to_ns());
    // A model: its next batch after the selection, each time.
    QVERIFY(!view.find_next(QStringLiteral("BETA")).isEmpty());
    const auto first_beta = *view.selected();
    QCOMPARE(v.data->models[v.data->spans[first_beta].model], std::string("beta"));
    QVERIFY(first_beta > *found);
    QVERIFY(!view.find_next(QStringLiteral("beta")).isEmpty());
    QVERIFY(*view.selected() > first_beta);
    QVERIFY(view.find_next(QStringLiteral("gamma")).isEmpty());
  }
};

// Teaching mode follows the synthetic run's two-stage request: it arrives, waits, runs stage 1,
// crosses the network, runs stage 2 and finishes; each step moves the playback line, selects
// its batch and shows its note on the timeline. A dropped request's story ends in its drop.
void TestTimelineNavigation::teachingModeStepsThroughOneRequest() {
  ShownView v;
  auto& view = v.view;
  servescope::ui::TeachingPanel panel(&view);
  const auto staged = v.two_stage();
  view.select(staged);
  QVERIFY(panel.tell_next(false));
  const auto& story = *panel.story();
  QCOMPARE(story.request, v.data->requests_of(staged).front().id);
  using Kind = servescope::engine::StoryStep::Kind;
  std::vector<Kind> kinds;
  for (const auto& s : story.steps)
    kinds.push_back(s.kind);
  QCOMPARE(kinds,
           (std::vector<Kind>{Kind::Arrival, Kind::Waiting, Kind::Batch, Kind::Transfer, Kind::Batch, Kind::Finished}));
  for (int k = 0; k < static_cast<int>(story.steps.size()); ++k) {
    panel.go_to(k);
    const auto& s = story.steps[static_cast<std::size_t>(k)];
    QCOMPARE(view.now_ns(), std::optional<std::int64_t>(s.at.count_ns()));
    QVERIFY(view.annotation_at(view.now_ns()).contains(QString::fromStdString(s.title)));
    if (s.span) QCOMPARE(view.selected(), s.span);
    QVERIFY(view.from_ns() <= s.at.count_ns() && s.at.count_ns() <= view.to_ns());
  }
  QImage image(view.size(), QImage::Format_ARGB32);
  view.render(&image);  // the note paints
  // Issue 47, defect 5: the note is about its step's moment. Once the playback line moves on (Play
  // on the Run tab, a video of the run) it is not pinned over the rest of the run.
  const auto last = story.steps.back();
  view.set_now(last.until.count_ns() + 1'000'000'000);
  QVERIFY(view.annotation_at(view.now_ns()).isEmpty());
  view.set_now(last.at.count_ns());
  QVERIFY(view.annotation_at(view.now_ns()).contains(QString::fromStdString(last.title)));
  QVERIFY(panel.tell_next(true));
  QCOMPARE(panel.story()->steps.back().kind, Kind::Dropped);
  // Issue 47, defect 6: "A dropped one" tells its arrival and its wait too, not its drop alone.
  QCOMPARE(panel.story()->steps.size(), std::size_t{3});
  QCOMPARE(panel.story()->steps.front().kind, Kind::Arrival);
  QCOMPARE(panel.story()->steps[1].kind, Kind::Waiting);
  // A new run forgets the story and its note.
  view.set_timeline(servescope::test::synthetic_timeline());
  QVERIFY(!panel.story());
  QVERIFY(view.annotation_at(view.now_ns()).isEmpty());
}

SERVESCOPE_GUI_TEST(tst_timeline_navigation, TestTimelineNavigation)
#include "tst_timeline_navigation.moc"
