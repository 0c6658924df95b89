// The marked range, summarised beside the timeline (README "The GUI", range summary; Perfetto's
// area-selection details): its length, the batches that started in it, each GPU slot's busy
// share, and the requests that finished, were late or were dropped, with p50 and p99 latency.
// It follows the view state the timeline view has when the panel is made: a new range or a new
// run updates it at once.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "engine/timeline/range_summary.h"

class QLabel;
class QTreeWidget;

namespace servescope::widgets {

class TimelineView;

class RangeSummaryPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RangeSummaryPanel(TimelineView* view, QWidget* parent = nullptr);

  // The summary shown, for tests; nullopt while no range is marked.
  const std::optional<engine::RangeSummary>& summary() const { return summary_; }
  QString text() const;  // the headline figures as shown

 private:
  void refresh();

  TimelineView* view_;
  QLabel* headline_;
  QTreeWidget* busy_;
  std::shared_ptr<const engine::TimelineData> summarised_;  // the run the summariser reads
  std::unique_ptr<engine::RangeSummariser> summariser_;
  std::optional<engine::RangeSummary> summary_;
};

}  // namespace servescope::widgets
