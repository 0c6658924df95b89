#include "ui/profile_model_job.h"

#include <QCoreApplication>
#include <QDir>
#include <QRegularExpression>
#include <QTimer>
#include <algorithm>

#include "ui/exception_guard.h"

namespace servescope::ui {
namespace {

// Enough of standard error to say why the profiler failed (its error line, the warnings before
// it) without carrying a long log into a message box.
constexpr qsizetype kTailLines = 8;
// The report is a few lines per batch size; more than this is not the profiler's.
constexpr qsizetype kReportBytes = 1 << 20;

}  // namespace

std::optional<ProfileProgressLine> parse_profile_progress(const QString& line) {
  // The model name may hold ": " itself, so the count is the last "N/M" after one.
  static const QRegularExpression pattern(QStringLiteral(R"(^profiling (.+): (\d{1,15})/(\d{1,15})(?: (.*))?$)"));
  const auto match = pattern.match(line.trimmed());
  if (!match.hasMatch()) return std::nullopt;
  ProfileProgressLine p;
  p.model = match.captured(1);
  p.done = match.captured(2).toLongLong();
  p.total = match.captured(3).toLongLong();
  p.what = match.captured(4).trimmed();
  if (p.total < 1 || p.done > p.total) return std::nullopt;
  return p;
}

QStringList profile_arguments(const ProfileModelRequest& request, const QString& profiles_out,
                              const QString& scenario_out) {
  QStringList args{QStringLiteral("profile"),   request.folder,  QStringLiteral("--device"), request.device,
                   QStringLiteral("--batches"), request.batches, QStringLiteral("--shares"), request.shares};
  if (request.repeat > 0) args << QStringLiteral("--repeat") << QString::number(request.repeat);
  args << QStringLiteral("-o") << profiles_out << QStringLiteral("--scenario-out") << scenario_out;
  return args;
}

QString default_profiler_program() {
  return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("servescope-cli"));
}

ProfileModelJob::ProfileModelJob(QString program, QObject* parent) : QObject(parent), program_(std::move(program)) {
  kill_timer_ = new QTimer(this);
  kill_timer_->setSingleShot(true);
  connect(kill_timer_, &QTimer::timeout, this, [this] {
    if (process_) process_->kill();
  });
}

ProfileModelJob::~ProfileModelJob() {
  // A window closed while profiling: the profiler must not outlive it, measuring for nobody.
  if (process_ && process_->state() != QProcess::NotRunning) {
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(2000);
  }
}

QStringList profile_report_notes(const QString& report) {
  QStringList notes;
  const auto lines = report.split(QLatin1Char('\n'));
  for (qsizetype i = 0; i < lines.size(); ++i) {
    const auto& line = lines[i];
    if (line.startsWith(QStringLiteral("timed ")) && line.contains(QStringLiteral(" stopped with "))) {
      notes << line.trimmed();
    } else if (line.contains(QStringLiteral(" fell in two modes"))) {
      QStringList block{line.trimmed()};
      while (i + 1 < lines.size() && lines[i + 1].startsWith(QStringLiteral("  ")))
        block << lines[++i].trimmed();
      notes << block.join(QStringLiteral("\n"));
    }
  }
  return notes;
}

bool ProfileModelJob::running() const {
  return process_ != nullptr;
}

bool ProfileModelJob::start(const ProfileModelRequest& request) {
  if (process_) return false;
  out_dir_ = std::make_unique<QTemporaryDir>();
  if (!out_dir_->isValid()) {
    const auto why = tr("cannot make a temporary folder for the profiler's files: %1").arg(out_dir_->errorString());
    out_dir_.reset();
    // Reported like any other outcome, after start() has returned, so callers see one path.
    QTimer::singleShot(0, this, [this, why] { Q_EMIT finished({ProfileModelOutcome::Status::Failed, {}, why}); });
    return true;
  }
  cancelled_ = false;
  partial_line_.clear();
  tail_.clear();
  process_ = new QProcess(this);
  report_.clear();
  connect(process_, &QProcess::readyReadStandardOutput, this, &ProfileModelJob::read_stdout);
  connect(process_, &QProcess::readyReadStandardError, this, &ProfileModelJob::read_stderr);
  connect(process_, &QProcess::finished, this, &ProfileModelJob::exited);
  connect(process_, &QProcess::errorOccurred, this, &ProfileModelJob::failed_to_start);
  process_->start(program_, profile_arguments(request, out_dir_->filePath(QStringLiteral("profiles.json")),
                                              out_dir_->filePath(QStringLiteral("scenario.json"))));
  return true;
}

void ProfileModelJob::cancel(int kill_after_ms) {
  if (!process_ || cancelled_) return;
  cancelled_ = true;
  process_->terminate();
  kill_timer_->start(kill_after_ms);
}

void ProfileModelJob::read_stderr() {
  if (!process_) return;
  partial_line_ += process_->readAllStandardError();
  qsizetype end = 0;
  while ((end = partial_line_.indexOf('\n')) >= 0) {
    const auto line = QString::fromUtf8(partial_line_.left(end)).trimmed();
    partial_line_.remove(0, end + 1);
    if (line.isEmpty()) continue;
    if (const auto progress = parse_profile_progress(line)) {
      Q_EMIT progressed(*progress);
    } else {
      tail_ << line;
      if (tail_.size() > kTailLines) tail_.removeFirst();
    }
  }
}

void ProfileModelJob::read_stdout() {
  if (!process_) return;
  const auto more = process_->readAllStandardOutput();
  report_ += more.left(std::max<qsizetype>(0, kReportBytes - report_.size()));
}

QString ProfileModelJob::stderr_tail() const {
  auto lines = tail_;
  if (!partial_line_.trimmed().isEmpty()) lines << QString::fromUtf8(partial_line_).trimmed();
  return lines.join(QLatin1Char('\n'));
}

void ProfileModelJob::exited(int code, QProcess::ExitStatus status) {
  read_stderr();
  read_stdout();
  kill_timer_->stop();
  ProfileModelOutcome outcome;
  if (cancelled_) {
    outcome.status = ProfileModelOutcome::Status::Cancelled;
  } else if (status != QProcess::NormalExit || code != 0) {
    const auto how = status == QProcess::NormalExit ? tr("the profiler exited with status %1").arg(code)
                                                    : tr("the profiler crashed");
    const auto tail = stderr_tail();
    outcome.error = tail.isEmpty() ? how : how + QStringLiteral(":\n") + tail;
  } else {
    // The readers throw our Error naming the file; nothing may escape this slot.
    const auto error = run_guarded([&] {
      outcome.measured = read_measured_model(out_dir_->filePath(QStringLiteral("profiles.json")),
                                             out_dir_->filePath(QStringLiteral("scenario.json")));
    });
    outcome.status = error.isEmpty() ? ProfileModelOutcome::Status::Measured : ProfileModelOutcome::Status::Failed;
    outcome.error = error;
    for (const auto& note : profile_report_notes(QString::fromUtf8(report_)))
      outcome.measured.warnings.push_back(note.toStdString());
  }
  finish(outcome);
}

void ProfileModelJob::failed_to_start(QProcess::ProcessError error) {
  // Other errors (a crash, a read error) end in finished() as well; only a failed start does not.
  if (error != QProcess::FailedToStart) return;
  finish({ProfileModelOutcome::Status::Failed,
          {},
          tr("cannot start %1: %2").arg(program_, process_ ? process_->errorString() : QString())});
}

void ProfileModelJob::finish(const ProfileModelOutcome& outcome) {
  if (process_) {
    process_->disconnect(this);
    process_->deleteLater();
    process_ = nullptr;
  }
  out_dir_.reset();
  Q_EMIT finished(outcome);
}

}  // namespace servescope::ui
