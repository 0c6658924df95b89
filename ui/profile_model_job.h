// Profiling a model from the GUI (README "Real models") without LibTorch in the GUI and without
// blocking it: `servescope-cli profile` runs as a child process (which hands over to
// servescope-torch), its progress lines on standard error drive a progress bar, and its two output
// files (the profile, and a scenario holding the measured device type) are read once it exits 0.
// Cancel asks it to stop (SIGTERM: it removes its temporary files) and kills it when it does not.
#pragma once

#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>
#include <memory>
#include <optional>

#include "ui/measured_profile_import.h"

class QTimer;

namespace servescope::ui {

// One progress line of `servescope-cli profile`: "profiling NAME: DONE/TOTAL WHAT".
struct ProfileProgressLine {
  QString model;
  qint64 done = 0, total = 0;
  QString what;  // "block 3, batch 4, share 1/2", "whole model, …", "done"; may be empty
};
// Nothing for any other line (errors, warnings, a line cut short).
std::optional<ProfileProgressLine> parse_profile_progress(const QString& line);

// What of the profiler's report on standard output the user should see beside the profile: the
// entries whose median's interval stayed wide, and those whose runs fell in two modes (their
// median can move between profiles of the machine), each a line or a block of lines as printed.
QStringList profile_report_notes(const QString& report);

struct ProfileModelRequest {
  QString folder;  // holds servescope-model.json and the blocks
  QString device = QStringLiteral("cpu");
  QString batches = QStringLiteral("1-8");
  QString shares = QStringLiteral("1");
  int repeat = 0;  // timed runs per entry; 0: until its median is known to ±2 % (the profiler's default)
};
// The profiler's arguments, writing the profile to `profiles_out` and the scenario (for its
// device type) to `scenario_out`.
QStringList profile_arguments(const ProfileModelRequest& request, const QString& profiles_out,
                              const QString& scenario_out);
// servescope-cli beside the running executable, where the build and the package put it.
QString default_profiler_program();

struct ProfileModelOutcome {
  enum class Status { Measured, Failed, Cancelled };
  Status status = Status::Failed;
  MeasuredModel measured;  // when Measured
  QString error;           // when Failed: why, with the profiler's last lines on standard error
};

class ProfileModelJob : public QObject {
  Q_OBJECT
 public:
  explicit ProfileModelJob(QString program = default_profiler_program(), QObject* parent = nullptr);
  ~ProfileModelJob() override;

  // False (and nothing started) while a run is going on.
  bool start(const ProfileModelRequest& request);
  bool running() const;
  // Asks the profiler to stop; it is killed when it has not exited within kill_after_ms.
  void cancel(int kill_after_ms = 2000);

 Q_SIGNALS:
  void progressed(const servescope::ui::ProfileProgressLine& line);
  void finished(const servescope::ui::ProfileModelOutcome& outcome);

 private:
  void read_stderr();
  void read_stdout();
  void exited(int code, QProcess::ExitStatus status);
  void failed_to_start(QProcess::ProcessError error);
  void finish(const ProfileModelOutcome& outcome);
  QString stderr_tail() const;

  QString program_;
  QProcess* process_ = nullptr;
  QTimer* kill_timer_ = nullptr;
  std::unique_ptr<QTemporaryDir> out_dir_;
  QByteArray partial_line_;  // standard error read so far past its last newline
  QByteArray report_;        // standard output: the report, kept up to kReportBytes
  QStringList tail_;         // the last lines that were not progress
  bool cancelled_ = false;
};

}  // namespace servescope::ui
