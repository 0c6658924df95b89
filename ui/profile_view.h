// A model's profile (README "The GUI", Profile tab): latency against batch size for every GPU type
// and share it was profiled on, as a chart (one line per configuration) and a table, with the
// least-squares α·b + β fit of each curve — the linear model Symphony, Nexus and Clockwork plan
// with — so a user sees at a glance how well it holds. A measured profile (servescope-cli profile)
// also shows its spread, a band from the median up to the 99th percentile. Inline profiles are
// edited in place: a linear fit's α and β, and each measured point of a table or block profile
// (checked: positive, and the curve stays non-decreasing in batch), every edit undoable.
#pragma once

#include <QString>
#include <QWidget>

#include "model/profile/model_profile.h"

class QTableWidget;
class QLabel;
class QChartView;
class QDoubleSpinBox;
class QChart;

namespace servescope::ui {

class ProjectDocument;

struct LinearFitResult {
  double alpha_us = 0;   // per item
  double beta_us = 0;    // per batch
  double max_error = 0;  // largest relative deviation of the fit from the profile
};
// Least squares over the profiled batch sizes of (gpu, share).
LinearFitResult fit_linear(const ModelProfile& profile, std::string_view gpu, GpuShare share);

class ProfileView : public QWidget {
  Q_OBJECT
 public:
  explicit ProfileView(ProjectDocument* document, QWidget* parent = nullptr);
  void show_model(int index);  // index into the scenario's profiles; −1: none
  int model() const { return model_; }
  int curve_count() const;  // lines on the chart
  // Translucent p50–p99 bands on the chart: one per configuration measured with its spread.
  int band_count() const;
  int block_bars() const;  // bars per configuration on the per-block chart (0: not a block profile)
  QTableWidget* table() const { return table_; }
  // Sets α or β (µs) of the linear fit shown in table row `row`; the reason when refused.
  QString edit_linear(int row, bool alpha, double value_us);
  // The measured points of configuration `row` (a table or block profile) in points(): one row
  // per profiled batch, a column per block (one for a table profile).
  void show_points(int row);
  QTableWidget* points() const { return points_; }
  // Sets the latency of configuration `row` at its `batch_index`-th profiled batch (of `block`;
  // 0 for a table profile); the reason when refused.
  QString edit_point(int row, int batch_index, int block, double latency_us);
  // Sets the model's default SLO (what a workload sending to it gets unless it sets its own);
  // the reason when refused.
  QString set_default_slo_ms(double slo_ms);

 Q_SIGNALS:
  void refused(const QString& why);

 protected:
  void changeEvent(QEvent* event) override;  // a new palette (dark mode) draws it again

 private:
  void rebuild();
  void rebuild_blocks(const ModelProfile& profile);
  void cell_edited(int row, int column);
  void point_edited(int row, int column);

  ProjectDocument* doc_;
  int model_ = -1;
  QLabel* title_;
  QDoubleSpinBox* slo_;  // the model's default SLO, ms
  QChartView* chart_view_;
  QChartView* blocks_view_;  // per-block latency at batch 1, for block profiles
  QWidget* tables_;          // the configurations and the measured points
  QTableWidget* table_;
  QLabel* points_title_;
  QTableWidget* points_;
  int points_row_ = -1;                                 // the configuration points_ shows
  std::vector<std::pair<std::string, GpuShare>> rows_;  // each table row's configuration
};

}  // namespace servescope::ui
