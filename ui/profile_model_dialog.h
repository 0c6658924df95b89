// Edit → Profile a model… (README "Real models"): the profiler's settings, then its progress while
// it measures, with Cancel. The dialog is not modal: profiling takes minutes and the window stays
// usable meanwhile. The measured profile and device type join the project as one undoable edit,
// unless another project was opened while it measured; a failure shows the profiler's own last
// words, naming the model folder.
#pragma once

#include <QDialog>
#include <cstdint>

#include "ui/profile_model_job.h"

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace servescope::ui {

class ProjectDocument;

class ProfileModelDialog : public QDialog {
  Q_OBJECT
 public:
  ProfileModelDialog(ProjectDocument* document, QString program = default_profiler_program(),
                     QWidget* parent = nullptr);

  // What the form asks for, with the lists' spaces removed.
  ProfileModelRequest request() const;
  void set_request(const ProfileModelRequest& request);
  // Checks the form and starts the profiler; the reason when it did not start.
  QString start();
  bool running() const { return job_->running(); }
  // Message boxes on failure (off in tests: the status line and message() still say it).
  void set_interactive(bool on) { interactive_ = on; }
  QString status_text() const;
  QProgressBar* progress_bar() const { return progress_; }

 Q_SIGNALS:
  void message(const QString& line);  // for the Log dock
  void measured();                    // the profile joined the project

 protected:
  // Escape and the close button cancel a running profiler rather than leave it measuring.
  void reject() override;

 private:
  void browse();
  void progressed(const ProfileProgressLine& line);
  void finished(const ProfileModelOutcome& outcome);
  void set_running(bool on);
  void fail(const QString& title, const QString& why);

  ProjectDocument* doc_;
  ProfileModelJob* job_;
  QLineEdit* folder_;
  QPushButton* browse_;
  QComboBox* device_;
  QLineEdit* batches_;
  QLineEdit* shares_;
  QSpinBox* repeat_;
  QProgressBar* progress_;
  QLabel* status_;
  QDialogButtonBox* buttons_;
  QPushButton* profile_;
  QString running_folder_;
  std::uint64_t generation_ = 0;  // the project the run was started for
  bool interactive_ = true;
};

}  // namespace servescope::ui
