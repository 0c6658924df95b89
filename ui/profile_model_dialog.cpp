#include "ui/profile_model_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

#include "ui/exception_guard.h"
#include "ui/project_document.h"

namespace servescope::ui {
namespace {

QString without_spaces(QString text) {
  return text.remove(QRegularExpression(QStringLiteral(R"(\s)")));
}

// The profiler checks the numbers; this only catches what is not a list at all before minutes of
// start-up, in the profiler's own syntax (N, N-M, comma-separated).
bool is_int_list(const QString& text) {
  static const QRegularExpression pattern(QStringLiteral(R"(^\d+(-\d+)?(,\d+(-\d+)?)*$)"));
  return pattern.match(text).hasMatch();
}

}  // namespace

ProfileModelDialog::ProfileModelDialog(ProjectDocument* document, QString program, QWidget* parent)
    : QDialog(parent), doc_(document), job_(new ProfileModelJob(std::move(program), this)) {
  setObjectName(QStringLiteral("profileModelDialog"));
  setWindowTitle(tr("Profile a model"));
  setMinimumWidth(560);  // room for a model folder's path
  folder_ = new QLineEdit(this);
  folder_->setObjectName(QStringLiteral("profileFolder"));
  folder_->setPlaceholderText(tr("a folder written by scripts/export_model.py"));
  browse_ = new QPushButton(tr("Browse…"), this);
  connect(browse_, &QPushButton::clicked, this, &ProfileModelDialog::browse);
  auto* folder_row = new QHBoxLayout;
  folder_row->addWidget(folder_, 1);
  folder_row->addWidget(browse_);
  device_ = new QComboBox(this);
  device_->addItem(QStringLiteral("cpu"));
  auto* device_note = new QLabel(tr("CUDA is not available in this build (Debian's LibTorch is CPU-only)."), this);
  device_note->setWordWrap(true);
  batches_ = new QLineEdit(QStringLiteral("1-8"), this);
  batches_->setToolTip(tr("Batch sizes: N, N-M, or a comma-separated list such as 1,2,4,8"));
  shares_ = new QLineEdit(QStringLiteral("1"), this);
  shares_->setToolTip(tr("Shares of the CPU as divisors s (share 1/s = hardware threads / s), e.g. 1,2"));
  repeat_ = new QSpinBox(this);
  repeat_->setRange(0, 100000);
  repeat_->setSpecialValueText(tr("until the median is within ±2 %"));
  repeat_->setValue(0);
  repeat_->setToolTip(
      tr("Timed runs per block, batch and share; at the lowest, each is timed until its median's 95 % interval is "
         "within ±2 % (10 to 400 runs)"));
  auto* form = new QFormLayout;
  form->addRow(tr("Model folder:"), folder_row);
  form->addRow(tr("Device:"), device_);
  form->addRow(QString(), device_note);
  form->addRow(tr("Batches:"), batches_);
  form->addRow(tr("Shares:"), shares_);
  form->addRow(tr("Repeat:"), repeat_);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1);
  progress_->setValue(0);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Close, this);
  profile_ = buttons_->addButton(tr("Profile"), QDialogButtonBox::ActionRole);
  profile_->setDefault(true);
  connect(profile_, &QPushButton::clicked, this, [this] {
    const auto why = start();
    if (!why.isEmpty()) status_->setText(why);
  });
  connect(buttons_, &QDialogButtonBox::rejected, this, &ProfileModelDialog::reject);
  auto* box = new QVBoxLayout(this);
  box->addLayout(form);
  box->addWidget(progress_);
  box->addWidget(status_);
  box->addWidget(buttons_);
  connect(job_, &ProfileModelJob::progressed, this, &ProfileModelDialog::progressed);
  connect(job_, &ProfileModelJob::finished, this, &ProfileModelDialog::finished);
  set_running(false);
}

ProfileModelRequest ProfileModelDialog::request() const {
  ProfileModelRequest r;
  r.folder = folder_->text().trimmed();
  r.device = device_->currentText();
  r.batches = without_spaces(batches_->text());
  r.shares = without_spaces(shares_->text());
  r.repeat = repeat_->value();
  return r;
}

void ProfileModelDialog::set_request(const ProfileModelRequest& request) {
  folder_->setText(request.folder);
  device_->setCurrentText(request.device);
  batches_->setText(request.batches);
  shares_->setText(request.shares);
  repeat_->setValue(request.repeat);
}

QString ProfileModelDialog::status_text() const {
  return status_->text();
}

void ProfileModelDialog::browse() {
  const auto dir =
      QFileDialog::getExistingDirectory(this, tr("Model folder (holding servescope-model.json)"), folder_->text());
  if (!dir.isEmpty()) folder_->setText(dir);
}

QString ProfileModelDialog::start() {
  if (job_->running()) return tr("the profiler is already running");
  if (!doc_->project()) return tr("open a project first");
  const auto r = request();
  if (r.folder.isEmpty()) return tr("choose the model folder");
  if (!QFileInfo(QDir(r.folder).filePath(QStringLiteral("servescope-model.json"))).isFile())
    return tr("%1 holds no servescope-model.json: export the model with scripts/export_model.py").arg(r.folder);
  if (!is_int_list(r.batches)) return tr("batches: '%1' is not N, N-M or a comma-separated list").arg(r.batches);
  if (!is_int_list(r.shares)) return tr("shares: '%1' is not N, N-M or a comma-separated list").arg(r.shares);
  running_folder_ = r.folder;
  generation_ = doc_->generation();
  if (!job_->start(r)) return tr("the profiler is already running");
  set_running(true);
  status_->setText(tr("Starting the profiler on %1…").arg(r.folder));
  Q_EMIT message(
      tr("profiling %1 (batches %2, shares %3, %4)")
          .arg(r.folder, r.batches, r.shares,
               r.repeat > 0 ? tr("%1 runs each").arg(r.repeat) : tr("each until its median is within ±2 %")));
  return {};
}

void ProfileModelDialog::reject() {
  if (!job_->running()) {
    QDialog::reject();
    return;
  }
  job_->cancel();
  status_->setText(tr("Stopping the profiler…"));
}

void ProfileModelDialog::set_running(bool on) {
  for (QWidget* w : std::initializer_list<QWidget*>{folder_, browse_, device_, batches_, shares_, repeat_, profile_})
    w->setEnabled(!on);
  buttons_->button(QDialogButtonBox::Close)->setText(on ? tr("Cancel") : tr("Close"));
  if (on) progress_->setRange(0, 0);  // busy until the first progress line gives the count
}

void ProfileModelDialog::progressed(const ProfileProgressLine& line) {
  // A QProgressBar counts in int; a profile of more entries than that is scaled down.
  const qint64 scale = line.total / 1'000'000 + 1;
  progress_->setRange(0, static_cast<int>(line.total / scale));
  progress_->setValue(static_cast<int>(line.done / scale));
  status_->setText(line.what.isEmpty() ? line.model : tr("%1: %2").arg(line.model, line.what));
}

void ProfileModelDialog::fail(const QString& title, const QString& why) {
  status_->setText(why);
  Q_EMIT message(why);
  if (interactive_) QMessageBox::warning(this, title, why);
}

void ProfileModelDialog::finished(const ProfileModelOutcome& outcome) {
  set_running(false);
  progress_->setRange(0, 1);
  progress_->setValue(outcome.status == ProfileModelOutcome::Status::Measured ? 1 : 0);
  switch (outcome.status) {
    case ProfileModelOutcome::Status::Cancelled:
      status_->setText(tr("Cancelled."));
      Q_EMIT message(tr("profiling %1 cancelled").arg(running_folder_));
      return;
    case ProfileModelOutcome::Status::Failed:
      fail(tr("Profiling failed"), tr("Profiling %1 failed: %2").arg(running_folder_, outcome.error));
      return;
    case ProfileModelOutcome::Status::Measured:
      break;
  }
  for (const auto& w : outcome.measured.warnings)
    Q_EMIT message(tr("warning: %1").arg(QString::fromStdString(w)));
  if (generation_ != doc_->generation()) {
    fail(
        tr("Profile not added"),
        tr("%1 was measured for a project that has been closed since; the profile was not added").arg(running_folder_));
    return;
  }
  QStringList names, devices;
  for (const auto& m : outcome.measured.profiles.models)
    names << QString::fromStdString(m.name);
  for (const auto& d : outcome.measured.devices)
    devices << QString::fromStdString(d.id);
  QString why;
  const auto error = run_guarded([&] {
    why = add_measured_model(
        *doc_, outcome.measured,
        tr("Profile %1 on %2").arg(names.join(QStringLiteral(", ")), devices.join(QStringLiteral(", "))));
  });
  if (!error.isEmpty()) why = error;
  if (!why.isEmpty()) {
    fail(tr("Profile not added"), tr("The profile of %1 was not added: %2").arg(running_folder_, why));
    return;
  }
  status_->setText(
      tr("Added %1, measured on %2.").arg(names.join(QStringLiteral(", ")), devices.join(QStringLiteral(", "))));
  Q_EMIT message(tr("profiled %1 on %2 from %3")
                     .arg(names.join(QStringLiteral(", ")), devices.join(QStringLiteral(", ")), running_folder_));
  Q_EMIT measured();
  accept();
}

}  // namespace servescope::ui
