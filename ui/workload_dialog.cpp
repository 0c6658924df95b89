#include "ui/workload_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "model/core/error.h"
#include "model/workload/rate_segments_text.h"

namespace servescope::ui {
namespace {

enum Column { kSent, kKind, kName, kSlo };
enum Process { kPoisson, kGamma, kTrace, kPiecewise };

}  // namespace

WorkloadDialog::WorkloadDialog(const Scenario& scenario, const Workload* editing, QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("workloadDialog"));
  setWindowTitle(editing ? tr("Edit workload %1").arg(QString::fromStdString(editing->name)) : tr("Add workload"));
  name_ = new QLineEdit(editing ? QString::fromStdString(editing->name) : QString(), this);
  name_->setPlaceholderText(tr("named after its first target when left empty"));
  targets_ = new QTableWidget(0, 4, this);
  targets_->setHorizontalHeaderLabels({tr("Sent to"), tr("Kind"), tr("Target"), tr("SLO (ms, 0: default)")});
  targets_->verticalHeader()->hide();
  targets_->horizontalHeader()->setStretchLastSection(true);
  const auto add_row = [&](TargetKind kind, const std::string& name, std::optional<Duration> default_slo) {
    const int row = targets_->rowCount();
    targets_->insertRow(row);
    const WorkloadTarget* current = nullptr;
    if (editing)
      for (const auto& t : editing->targets)
        if (t.kind == kind && t.name == name) current = &t;
    auto* sent = new QTableWidgetItem;
    sent->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
    sent->setCheckState(current ? Qt::Checked : Qt::Unchecked);
    targets_->setItem(row, kSent, sent);
    auto* kind_item = new QTableWidgetItem(kind == TargetKind::Application ? tr("application") : tr("model"));
    kind_item->setData(Qt::UserRole, kind == TargetKind::Application);
    kind_item->setFlags(Qt::ItemIsEnabled);
    targets_->setItem(row, kKind, kind_item);
    auto* name_item = new QTableWidgetItem(QString::fromStdString(name));
    name_item->setFlags(Qt::ItemIsEnabled);
    if (default_slo) name_item->setToolTip(tr("default SLO %1 ms").arg(default_slo->to_ms()));
    targets_->setItem(row, kName, name_item);
    targets_->setItem(
        row, kSlo,
        new QTableWidgetItem(current && current->slo ? QString::number(current->slo->to_ms()) : QStringLiteral("0")));
  };
  for (const auto& a : scenario.applications)
    add_row(TargetKind::Application, a.name, a.slo);
  for (const auto& m : scenario.profiles.models)
    add_row(TargetKind::Model, m.name, m.default_slo);
  targets_->resizeColumnsToContents();
  rate_ = new QDoubleSpinBox(this);
  rate_->setRange(kMinRateRps, kMaxRateRps);
  rate_->setDecimals(3);
  rate_->setSuffix(tr(" req/s"));
  rate_->setValue(editing ? editing->rate_rps : 100);
  rate_->setToolTip(tr("The total mean rate over all its targets"));
  process_ = new QComboBox(this);
  process_->addItems({tr("Poisson"), tr("Gamma (bursty)"), tr("Trace file"), tr("Piecewise segments")});
  cv_ = new QDoubleSpinBox(this);
  cv_->setRange(0.05, 20);
  cv_->setDecimals(2);
  cv_->setValue(2);
  cv_->setToolTip(tr("Coefficient of variation of the gaps between requests: 1 is Poisson, more is burstier"));
  trace_ = new QLineEdit(this);
  trace_->setPlaceholderText(tr("path, relative to the scenario file (docs/formats.md \"Trace files\")"));
  segments_ = new QLineEdit(this);
  segments_->setPlaceholderText(tr("SECONDS:MULTIPLIER, …  e.g. 10:1, 20:2.5, 30:0.5"));
  if (editing) {
    std::visit(
        [&](const auto& p) {
          using P = std::decay_t<decltype(p)>;
          if constexpr (std::is_same_v<P, GammaArrivals>) {
            process_->setCurrentIndex(kGamma);
            cv_->setValue(1 / std::sqrt(p.shape));
          } else if constexpr (std::is_same_v<P, TraceArrivals>) {
            process_->setCurrentIndex(kTrace);
            trace_->setText(QString::fromStdString(p.path));
          } else if constexpr (std::is_same_v<P, PiecewiseArrivals>) {
            process_->setCurrentIndex(kPiecewise);
            segments_->setText(QString::fromStdString(format_rate_segments(p.segments)));
          }
        },
        editing->arrivals);
  }
  problem_ = new QLabel(this);
  problem_->setObjectName(QStringLiteral("workloadProblem"));
  problem_->setWordWrap(true);
  auto* form = new QFormLayout;
  form->addRow(tr("Name"), name_);
  form->addRow(tr("Rate"), rate_);
  form->addRow(tr("Arrivals"), process_);
  form->addRow(tr("CV"), cv_);
  form->addRow(tr("Trace"), trace_);
  form->addRow(tr("Segments"), segments_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &WorkloadDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* box = new QVBoxLayout(this);
  box->addWidget(new QLabel(tr("Send to the ticked models and applications, each at an equal share:"), this));
  box->addWidget(targets_, 1);
  box->addLayout(form);
  box->addWidget(problem_);
  box->addWidget(buttons);
  connect(process_, &QComboBox::currentIndexChanged, this, &WorkloadDialog::show_process_fields);
  show_process_fields();
  resize(560, 520);
}

void WorkloadDialog::show_process_fields() {
  const int process = process_->currentIndex();
  cv_->setEnabled(process == kGamma);
  trace_->setEnabled(process == kTrace);
  segments_->setEnabled(process == kPiecewise);
}

bool WorkloadDialog::choose_target(const QString& name, double slo_ms) {
  for (int row = 0; row < targets_->rowCount(); ++row)
    if (targets_->item(row, kName)->text() == name) {
      targets_->item(row, kSent)->setCheckState(Qt::Checked);
      targets_->item(row, kSlo)->setText(QString::number(slo_ms));
      return true;
    }
  return false;
}

std::optional<Workload> WorkloadDialog::workload(QString* why) const {
  Workload w;
  w.rate_rps = rate_->value();
  w.popularity = Popularity::Equal;
  for (int row = 0; row < targets_->rowCount(); ++row) {
    if (targets_->item(row, kSent)->checkState() != Qt::Checked) continue;
    WorkloadTarget t;
    t.kind = targets_->item(row, kKind)->data(Qt::UserRole).toBool() ? TargetKind::Application : TargetKind::Model;
    t.name = targets_->item(row, kName)->text().toStdString();
    bool ok = false;
    const double slo_ms = targets_->item(row, kSlo)->text().toDouble(&ok);
    if (!ok || slo_ms < 0 || !std::isfinite(slo_ms)) {
      *why = tr("the SLO of %1 must be a time in ms (0 for its default)").arg(QString::fromStdString(t.name));
      return std::nullopt;
    }
    if (slo_ms > 0) t.slo = Duration::from_ms(slo_ms);
    w.targets.push_back(std::move(t));
  }
  if (w.targets.empty()) {
    *why = tr("tick at least one model or application to send to");
    return std::nullopt;
  }
  w.name = name_->text().trimmed().toStdString();
  if (w.name.empty()) w.name = w.targets.front().name;
  switch (process_->currentIndex()) {
    case kGamma:
      w.arrivals = GammaArrivals{1 / (cv_->value() * cv_->value())};  // CV = 1/√shape
      break;
    case kTrace:
      if (trace_->text().trimmed().isEmpty()) {
        *why = tr("give the trace file");
        return std::nullopt;
      }
      w.arrivals = TraceArrivals{trace_->text().trimmed().toStdString()};
      break;
    case kPiecewise:
      try {
        w.arrivals = PiecewiseArrivals{parse_rate_segments(segments_->text().toStdString())};
      } catch (const Error& e) {
        *why = tr("segments: %1").arg(QString::fromStdString(e.what()));
        return std::nullopt;
      }
      break;
    default:
      w.arrivals = PoissonArrivals{};
  }
  return w;
}

void WorkloadDialog::accept() {
  QString why;
  if (!workload(&why)) {
    problem_->setText(why);
    return;
  }
  QDialog::accept();
}

}  // namespace servescope::ui
