#include "widgets/range_summary_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <cmath>

#include "widgets/time_axis.h"
#include "widgets/timeline_view.h"

namespace servescope::widgets {

RangeSummaryPanel::RangeSummaryPanel(TimelineView* view, QWidget* parent)
    : QWidget(parent), view_(view), headline_(new QLabel(this)), busy_(new QTreeWidget(this)) {
  setObjectName(QStringLiteral("rangeSummary"));
  headline_->setTextFormat(Qt::RichText);
  headline_->setWordWrap(true);
  headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  busy_->setColumnCount(2);
  busy_->setHeaderLabels({tr("GPU slot"), tr("Busy %")});
  busy_->setRootIsDecorated(false);
  busy_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  busy_->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  busy_->setSortingEnabled(true);
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  box->addWidget(headline_);
  box->addWidget(busy_, 1);
  // A new range, a new run (reset) or a grown one (live).
  connect(view_->state(), &TimelineViewState::rangeChanged, this, &RangeSummaryPanel::refresh);
  connect(view_->state(), &TimelineViewState::extentChanged, this, &RangeSummaryPanel::refresh);
  refresh();
}

QString RangeSummaryPanel::text() const {
  return headline_->text();
}

void RangeSummaryPanel::refresh() {
  const auto run = view_->shared_timeline();
  const auto& range = view_->state()->range();
  if (run != summarised_) {
    // Built over the view's index of this very run; holding the run keeps the two alive together.
    summariser_ = run ? std::make_unique<engine::RangeSummariser>(*run, view_->index()) : nullptr;
    summarised_ = run;
  }
  busy_->clear();
  if (!run || !range) {
    summary_.reset();
    headline_->setText(
        tr("<b>Range</b><br>Drag across the timeline (or select a batch and press M) to mark a "
           "range: its batches, busy GPUs, finished, late and dropped requests and latency show "
           "here."));
    busy_->hide();
    return;
  }
  summary_ = summariser_->summarise(engine::Time::nanoseconds(range->from_ns), engine::Time::nanoseconds(range->to_ns));
  const auto& s = *summary_;
  const auto na = tr("not kept");
  const auto percentile = [&](const std::optional<Duration>& d) {
    return d ? format_duration(d->count_ns()) : s.finished ? tr("none finished") : na;
  };
  QString text =
      tr("<b>Range %1 → %2</b> (Δ %3)<br>")
          .arg(format_duration(range->from_ns), format_duration(range->to_ns), format_duration(range->length_ns()));
  text += tr("%n batch(es) started", nullptr, static_cast<int>(s.batches)) + QStringLiteral("<br>");
  text += s.finished ? tr("%1 requests finished, %2 late").arg(*s.finished).arg(*s.late) : tr("requests: %1").arg(na);
  text += QStringLiteral("<br>") + tr("%1 dropped").arg(s.dropped);
  text += QStringLiteral("<br>") + tr("latency p50 %1 · p99 %2").arg(percentile(s.p50), percentile(s.p99));
  headline_->setText(text);
  busy_->setSortingEnabled(false);
  for (std::size_t row = 0; row < s.busy.size(); ++row) {
    auto* item = new QTreeWidgetItem(busy_);
    item->setText(0, QString::fromStdString(run->gpus[view_->index().slot(row)]));
    item->setData(1, Qt::DisplayRole, std::round(s.busy[row] * 1000) / 10);  // a number, so it sorts as one
    item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
  }
  busy_->setSortingEnabled(true);
  busy_->show();
}

}  // namespace servescope::widgets
