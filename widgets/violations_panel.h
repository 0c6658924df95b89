// Which models missed their SLO where the timeline looks (issue 47 §2, "a violations table"; the
// range summary's per-model rows, Perfetto's area-selection tables): for the marked range, or
// the window in view when none is marked, one row per model with its attainment, finished, late
// and dropped requests (by reason), and latency p50 and p99, sortable by any column. A click on a
// row shows that model's worst batch (the one whose request missed its deadline by the most) or,
// where it only dropped, its first drop. Live or recorded: it follows the view as it grows.
#pragma once

#include <QWidget>
#include <cstdint>
#include <memory>
#include <optional>

#include "engine/timeline/range_summary.h"

class QLabel;
class QTableWidget;
class QTimer;

namespace servescope::widgets {

class TimelineView;

class ViolationsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ViolationsPanel(TimelineView* view, QWidget* parent = nullptr);

  // Summarises now, rather than after the view settles (panning coalesces refreshes).
  void refresh_now();
  // What is shown, for tests: nullopt without a run.
  const std::optional<engine::RangeSummary>& summary() const { return summary_; }
  QTableWidget* table() const { return table_; }
  QString headline() const;
  // Shows the table's row `row` (as sorted) on the timeline, as a click does; what it found goes
  // out as jumped().
  void show_row(int row);

 Q_SIGNALS:
  void jumped(const QString& what);

 private:
  void schedule();
  void fill();

  TimelineView* view_;
  QLabel* headline_;
  QTableWidget* table_;
  QTimer* settle_;
  void showEvent(QShowEvent* event) override;
  bool stale() const;

  // Not a share of the run: a third holder would make every live append copy the whole timeline
  // (TimelineView::append). The view's generation says when the run changed under the summariser,
  // which holds references into the view's run and index.
  std::uint64_t summarised_generation_ = UINT64_MAX;
  std::unique_ptr<engine::RangeSummariser> summariser_;
  std::optional<engine::RangeSummary> summary_;
};

}  // namespace servescope::widgets
