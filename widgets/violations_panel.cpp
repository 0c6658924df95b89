#include "widgets/violations_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>

#include "widgets/time_axis.h"
#include "widgets/timeline_view.h"

namespace servescope::widgets {
namespace {

// What a narrow panel shows first: how bad, then why, then the rest.
enum Column { kModel, kOnTime, kLate, kDropped, kReasons, kP99, kP50, kFinished, kColumns };
constexpr int kSortRole = Qt::UserRole;
constexpr int kModelRole = Qt::UserRole + 1;
// A pan or zoom moves the window every frame: summarise once it rests this long.
constexpr int kSettleMs = 150;

// Sorts by the number under kSortRole, whatever the text says ("1.2 ms" after "900 µs").
class NumberItem : public QTableWidgetItem {
 public:
  NumberItem(const QString& text, double value) : QTableWidgetItem(text) {
    setData(kSortRole, value);
    setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  }
  bool operator<(const QTableWidgetItem& other) const override {
    return data(kSortRole).toDouble() < other.data(kSortRole).toDouble();
  }
};

}  // namespace

ViolationsPanel::ViolationsPanel(TimelineView* view, QWidget* parent)
    : QWidget(parent),
      view_(view),
      headline_(new QLabel(this)),
      table_(new QTableWidget(this)),
      settle_(new QTimer(this)) {
  setObjectName(QStringLiteral("violations"));
  headline_->setWordWrap(true);
  headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  table_->setObjectName(QStringLiteral("violationsTable"));
  table_->setColumnCount(kColumns);
  QStringList labels(kColumns);  // by column, so the order is the enum's alone
  labels[kModel] = tr("Model");
  labels[kOnTime] = tr("On time %");
  labels[kLate] = tr("Late");
  labels[kDropped] = tr("Dropped");
  labels[kReasons] = tr("Drops by reason");
  labels[kP99] = tr("p99");
  labels[kP50] = tr("p50");
  labels[kFinished] = tr("Finished");
  table_->setHorizontalHeaderLabels(labels);
  table_->horizontalHeaderItem(kOnTime)->setToolTip(tr("Finished on time over finished and dropped"));
  table_->horizontalHeaderItem(kLate)->setToolTip(tr("Finished after their deadline"));
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setSortingEnabled(true);
  table_->sortByColumn(kOnTime, Qt::AscendingOrder);  // the worst model first
  table_->setToolTip(tr("Click a model to see its worst batch (or its first drop) on the timeline"));
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  box->addWidget(headline_);
  box->addWidget(table_, 1);
  settle_->setSingleShot(true);
  settle_->setInterval(kSettleMs);
  connect(settle_, &QTimer::timeout, this, &ViolationsPanel::refresh_now);
  auto* state = view_->state();
  connect(state, &TimelineViewState::rangeChanged, this, &ViolationsPanel::schedule);
  connect(state, &TimelineViewState::windowChanged, this, &ViolationsPanel::schedule);
  connect(state, &TimelineViewState::extentChanged, this, &ViolationsPanel::schedule);
  connect(table_, &QTableWidget::cellClicked, this, [this](int row, int) { show_row(row); });
  refresh_now();
}

QString ViolationsPanel::headline() const {
  return headline_->text();
}

void ViolationsPanel::schedule() {
  // Hidden, it costs nothing; it summarises when shown.
  if (isVisible()) settle_->start();
}

void ViolationsPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (stale() || !summary_) refresh_now();
}

bool ViolationsPanel::stale() const {
  return summarised_generation_ != view_->content_generation();
}

void ViolationsPanel::refresh_now() {
  settle_->stop();
  const auto* run = view_->timeline();
  if (!run) {
    summary_.reset();
    summariser_.reset();
    summarised_generation_ = view_->content_generation();
    table_->setRowCount(0);
    headline_->setText(tr("No run shown."));
    return;
  }
  // Built over the view's index of this run; a live run that grew is built again (its requests'
  // finishes moved), at most once per settled refresh.
  if (stale() || !summariser_) {
    summariser_ = std::make_unique<engine::RangeSummariser>(*run, view_->index());
    summarised_generation_ = view_->content_generation();
  }
  const auto& range = view_->state()->range();
  const auto from = range ? range->from_ns : view_->from_ns(), to = range ? range->to_ns : view_->to_ns();
  summary_ = summariser_->summarise(engine::Time::nanoseconds(from), engine::Time::nanoseconds(to));
  const auto origin = view_->time_origin();
  headline_->setText((range ? tr("In the marked range, %1 → %2") : tr("In view, %1 → %2"))
                         .arg(format_duration(from - origin), format_duration(to - origin)) +
                     (summary_->models.empty() ? tr(": no request finished or was dropped") : QString()));
  fill();
}

void ViolationsPanel::fill() {
  const auto& run = *view_->timeline();
  const auto sorted_by = table_->horizontalHeader()->sortIndicatorSection();
  const auto order = table_->horizontalHeader()->sortIndicatorOrder();
  table_->setSortingEnabled(false);  // rows are filled unsorted, then sorted once
  table_->setRowCount(static_cast<int>(summary_->models.size()));
  const auto unknown = tr("not kept");
  int row = 0;
  for (const auto& m : summary_->models) {
    auto* name = new QTableWidgetItem(QString::fromStdString(m.model < run.models.size() ? run.models[m.model] : "?"));
    name->setData(kModelRole, m.model);
    table_->setItem(row, kModel, name);
    const auto attainment = m.attainment_pct();
    // Unknown sorts first, with the worst: it needs a look.
    table_->setItem(
        row, kOnTime,
        new NumberItem(attainment ? QString::number(*attainment, 'f', 2) : unknown, attainment.value_or(-1)));
    const auto count = [&](std::uint64_t n) {
      return new NumberItem(m.requests_known ? QString::number(n) : unknown,
                            m.requests_known ? static_cast<double>(n) : -1.0);
    };
    table_->setItem(row, kFinished, count(m.finished));
    table_->setItem(row, kLate, count(m.late));
    table_->setItem(row, kDropped,
                    new NumberItem(QString::number(m.dropped_total()), static_cast<double>(m.dropped_total())));
    QStringList reasons;
    for (int r = 0; r < engine::kDropReasonCount; ++r)
      if (m.dropped[static_cast<std::size_t>(r)] > 0)
        reasons << QStringLiteral("%1 %2")
                       .arg(QString::fromUtf8(engine::to_string(static_cast<engine::DropReason>(r))))
                       .arg(m.dropped[static_cast<std::size_t>(r)]);
    table_->setItem(row, kReasons, new QTableWidgetItem(reasons.join(QStringLiteral(", "))));
    const auto percentile = [&](const std::optional<Duration>& d) {
      return new NumberItem(d                  ? format_duration(d->count_ns())
                            : m.requests_known ? tr("none")
                                               : unknown,
                            d ? static_cast<double>(d->count_ns()) : -1.0);
    };
    table_->setItem(row, kP50, percentile(m.p50));
    table_->setItem(row, kP99, percentile(m.p99));
    ++row;
  }
  table_->setSortingEnabled(true);
  table_->sortByColumn(sorted_by, order);
}

void ViolationsPanel::show_row(int row) {
  if (!summary_ || row < 0 || row >= table_->rowCount()) return;
  const auto model = table_->item(row, kModel)->data(kModelRole).toUInt();
  const auto name = table_->item(row, kModel)->text();
  // The run moved since the table was filled (a live chunk, history let go): its spans' indexes
  // with it. The model clicked, as the run is now.
  if (stale()) refresh_now();
  if (!summary_ || !view_->timeline()) return;
  const auto it = std::ranges::find(summary_->models, model, &engine::ModelViolations::model);
  if (it == summary_->models.end()) {
    Q_EMIT jumped(tr("%1: nothing late or dropped here any more").arg(name));
    return;
  }
  const auto& run = *view_->timeline();
  if (it->worst_span && *it->worst_span < run.spans.size()) {
    const auto& span = run.spans[*it->worst_span];
    view_->select(*it->worst_span);
    view_->reveal(span.end.count_ns(), span.gpu);
    Q_EMIT jumped(tr("%1: its worst batch, #%2 on %3, ended %4 past a request's deadline")
                      .arg(name)
                      .arg(span.batch)
                      .arg(QString::fromStdString(run.gpus[span.gpu]), format_duration(it->worst_lateness.count_ns())));
  } else if (it->first_drop) {
    view_->reveal(it->first_drop->count_ns(), std::nullopt, model);
    Q_EMIT jumped(tr("%1: no late batch here; its first drop, at %2")
                      .arg(name, format_duration(it->first_drop->count_ns() - view_->time_origin())));
  } else {
    Q_EMIT jumped(tr("%1: nothing late or dropped here").arg(name));
  }
}

}  // namespace servescope::widgets
