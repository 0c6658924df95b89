// The Live tab's timeline grows by appending what arrived (TimelineView::append): a view fed a
// run chunk by chunk paints exactly what a view of the run read whole paints, keeps the batch
// the user selected while batches are merged in around it, and lets go of its oldest detail
// with the selection following its batch.
#include <QImage>
#include <QTest>

#include "tests/gui/gui_test_main.h"
#include "tests/gui/synthetic_timeline.h"
#include "tests/support/timeline_chunks.h"
#include "widgets/timeline_view.h"

using servescope::Duration;
using servescope::widgets::BoxColouring;
using servescope::widgets::TimelineView;

class TestTimelineGrowth : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void aViewGrownChunkByChunkPaintsTheRunReadWhole() {
    const auto whole = servescope::test::synthetic_timeline();
    TimelineView grown, read;
    for (auto* view : {&grown, &read})
      view->resize(1400, 400);
    grown.set_timeline(std::make_shared<const servescope::engine::TimelineData>(servescope::test::layout_of(*whole)));
    const auto chunks = servescope::test::chunks_of(*whole, Duration::milliseconds(2));
    std::optional<servescope::engine::BatchId> selected_batch;
    for (std::size_t k = 0; k < chunks.size(); ++k) {
      grown.append(chunks[k]);
      if (k == chunks.size() / 3) {
        // A batch in the middle of what has arrived, with batches still to come around it.
        const auto i = static_cast<std::uint32_t>(grown.timeline()->spans.size() - 8);
        grown.select(i);
        selected_batch = grown.timeline()->spans[i].batch;
      }
    }
    QCOMPARE(batch_selected(grown), selected_batch);
    read.set_timeline(whole);
    QCOMPARE(grown.timeline()->spans.size(), whole->spans.size());
    QCOMPARE(grown.nic_lanes(), read.nic_lanes());
    // The same pixels right of the labels: boxes, late marks, drops, NIC lanes and queues. (The
    // labels' sparklines are redrawn once per 1/40 of the run's growth, so they may lag a little.)
    for (auto* view : {&grown, &read}) {
      view->state()->follow_window(0, whole->end.count_ns());
      view->select(std::nullopt);
    }
    QCOMPARE(picture(grown), picture(read));
    // Zoomed in, and out to where batches narrower than a pixel merge and, coloured by SLO
    // outcome, a late one hidden among them shows (the late counts per row).
    for (const auto colouring : {BoxColouring::Model, BoxColouring::SloOutcome})
      for (const auto& [from, to] :
           {std::pair<std::int64_t, std::int64_t>{9'000'000, 13'000'000}, {0, 2'000'000'000}}) {
        for (auto* view : {&grown, &read}) {
          view->set_colouring(colouring);
          view->state()->follow_window(from, to);
        }
        QCOMPARE(picture(grown), picture(read));
      }
  }

  void lettingGoOfTheOldestKeepsTheSelectedBatch() {
    const auto whole = servescope::test::synthetic_timeline();
    TimelineView view;
    view.resize(1400, 400);
    view.set_timeline(std::make_shared<const servescope::engine::TimelineData>(servescope::test::layout_of(*whole)));
    for (const auto& chunk : servescope::test::chunks_of(*whole, Duration::milliseconds(2)))
      view.append(chunk);
    const auto cut = Duration::milliseconds(20);
    const auto kept = std::ranges::count_if(whole->spans, [&](const auto& s) { return s.start >= cut; });
    const auto later =
        std::ranges::find_if(whole->spans, [&](const auto& s) { return s.start >= Duration::milliseconds(30); });
    view.select(static_cast<std::uint32_t>(later - whole->spans.begin()));
    view.forget_before(cut.count_ns());
    QCOMPARE(static_cast<std::ptrdiff_t>(view.timeline()->spans.size()), kept);
    QVERIFY(view.timeline()->spans.front().start >= cut);
    QCOMPARE(batch_selected(view), std::optional(later->batch));
    view.zoom_to_fit();  // what is kept, not the run since 0
    QCOMPARE(view.from_ns(), cut.count_ns());
    // The index answers for what is kept: every kept batch is hit where it is drawn.
    view.state()->follow_window(cut.count_ns(), whole->end.count_ns());
    for (std::uint32_t i = 0; i < view.timeline()->spans.size(); i += 7) {
      const auto& s = view.timeline()->spans[i];
      const auto row = view.index().row_of_slot(s.gpu);
      QVERIFY(row);
      QCOMPARE(view.index().hit(*row, s.start + Duration::nanoseconds((s.end - s.start).count_ns() / 2)),
               std::optional<std::uint32_t>(i));
    }
    // A batch let go takes the selection with it.
    view.forget_before(whole->end.count_ns() + 1);
    QVERIFY(view.timeline()->spans.empty());
    QVERIFY(!view.selected());
  }

 private:
  static std::optional<servescope::engine::BatchId> batch_selected(const TimelineView& view) {
    const auto i = view.selected();
    return i ? std::optional(view.timeline()->spans[*i].batch) : std::nullopt;
  }
  static QImage picture(TimelineView& view) {
    QImage image(view.size(), QImage::Format_ARGB32);
    view.render(&image);
    return image.copy(view.label_width(), 0, view.width() - view.label_width(), view.height());
  }
};

SERVESCOPE_GUI_TEST(tst_timeline_growth, TestTimelineGrowth)
#include "tst_timeline_growth.moc"
