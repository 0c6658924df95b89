// The Prediction tab (README "The GUI"; issue 46 item 6): a live run kept in the project beside the
// simulator's prediction of it (the same system or plan, rate, seed and length): attainment,
// goodput and p99 per model side by side, the largest differences with the cause the two runs
// measured (engine/analysis/prediction_report.h), and the two timelines, one under the other on
// one time axis, lined up at their first batch. "Calibrate…" fits the project's profiles to the
// live run's batches (engine/analysis/run_calibration.h) and offers to apply them.
#pragma once

#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QPushButton;
class QSplitter;
class QTableWidget;

namespace servescope::widgets {
class TimelineView;
class TimelineViewState;
}  // namespace servescope::widgets

namespace servescope::ui {

class ProjectDocument;
class RunView;

class PredictionView : public QWidget {
  Q_OBJECT
 public:
  // `runs` simulates the prediction and gives the runs' timelines.
  PredictionView(ProjectDocument* document, RunView* runs, QWidget* parent = nullptr);

  // Shows the kept live run `live` beside its prediction `prediction` (both runs of the project);
  // false with the reason in status_text() when either is missing or malformed.
  bool show_pair(const QString& live, const QString& prediction);
  // Asks the Run tab to simulate the chosen live run's prediction; it shows here when it lands.
  bool predict();
  // Calibrates the project's profiles on the chosen live run; the report goes to `report` and,
  // when `apply` and something moved, the calibrated profiles replace the project's (one undo
  // step). False with the reason in status_text() when it cannot.
  bool calibrate(bool apply, QString* report = nullptr);
  void choose_live_run(const QString& name);

  QString status_text() const;
  QString differences_text() const;
  QTableWidget* table() const { return table_; }
  widgets::TimelineView* live_timeline() const { return live_view_; }
  widgets::TimelineView* predicted_timeline() const { return predicted_view_; }

 Q_SIGNALS:
  void message(const QString& line);

 private:
  void refresh();
  void show_calibrate_dialog();
  QString prediction_for(const QString& live) const;  // the newest prediction of it ("" for none)

  ProjectDocument* doc_;
  RunView* runs_;
  QComboBox* live_runs_;
  QPushButton *predict_, *calibrate_;
  QLabel* status_;
  QTableWidget* table_;
  QLabel* differences_;
  QLabel *live_label_, *predicted_label_;
  widgets::TimelineViewState* state_;
  widgets::TimelineView *live_view_, *predicted_view_;
  bool waiting_ = false;  // for the Run tab's prediction to land
};

}  // namespace servescope::ui
