// The Charts tab (README "The GUI"): a run's SLO attainment and goodput over time, busy time per
// GPU class, GPUs in use against Symphony's advice, the batch-size histogram and the latency
// CDF; and SLO attainment against load factor for every load sweep of the project, one curve
// per system (PPipe's Fig. 6/7). Curves come from engine/analysis/run_series.h, drawn through
// widgets/chart_facade.h.
#pragma once

#include <QWidget>
#include <vector>

class QComboBox;
class QChartView;
class QGridLayout;
class QLabel;
class QScrollArea;

namespace servescope::ui {

class ProjectDocument;

class ChartsView : public QWidget {
  Q_OBJECT
 public:
  explicit ChartsView(ProjectDocument* document, QWidget* parent = nullptr);

  bool show_run(const QString& name);       // false when the project has no such simulated run
  int chart_count() const;                  // charts with at least one series drawn
  int sweep_curves() const;                 // curves on the attainment-vs-load chart
  int columns() const { return columns_; }  // charts side by side: as many as the width holds, up to 3

 protected:
  void changeEvent(QEvent* event) override;                    // a new palette (dark mode) draws it again
  bool eventFilter(QObject* watched, QEvent* event) override;  // the scroll area's width

 private:
  void refresh();
  void draw_sweeps();
  void reflow();  // the charts in as many columns as fit the scroll area's width

  ProjectDocument* doc_;
  QComboBox* runs_;
  QLabel* status_;
  std::vector<QChartView*> views_;  // attainment, goodput, busy, GPUs, batches, latency, sweeps
  QGridLayout* grid_ = nullptr;
  QScrollArea* scroll_ = nullptr;
  int columns_ = 0;
};

}  // namespace servescope::ui
