// The Run tab (README "The GUI"): simulate the project's workloads through a serving system or
// one of its plans on a worker thread, keep the run in the project, and watch it on the timeline:
// colour by model or SLO outcome, filter by model or GPU, zoom history, click a batch for its
// details, and play the run back with a "now" line that can follow, pause and jump to the next
// late batch.
#pragma once

#include <QWidget>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "engine/systems/scenario_simulation.h"
#include "engine/timeline/timeline_data.h"
#include "ui/background_job.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QAction;
class QChartView;
class QCheckBox;
class QSlider;
class QSplitter;
class QTabWidget;
class QTimer;

namespace servescope::widgets {
class RangeSummaryPanel;
class ViolationsPanel;
class TimelineView;
}  // namespace servescope::widgets

namespace servescope::ui {

class ProjectDocument;
class RunOptionsDialog;
class TeachingPanel;

class RunView : public QWidget {
  Q_OBJECT
 public:
  explicit RunView(ProjectDocument* document, QWidget* parent = nullptr);
  ~RunView() override;

  // Simulates `seconds` of the selected workloads with `source`: a serving system's name
  // ("symphony", "nexus", …) or "plan:NAME" for a pipeline, gpu-let or cost plan of the project. False
  // when a simulation is already running or nothing is open; the reason lands in status_text().
  bool simulate(const QString& source, double seconds);
  // Simulates `source` at load factors 0.1–1.2 of its capacity, `seconds_per_point` each, and
  // keeps the attainment curve in the project (a `kind: load-sweep` entry of its runs).
  bool sweep(const QString& source, double seconds_per_point);
  // Simulates what the kept live run `live_run` was offered (engine/analysis/live_run_source.h):
  // its system or the project's plan it served, rate, seed, length and warm-up, with this tab's
  // data-plane options, and keeps it as "prediction of NAME"; predicted() says when it landed.
  bool predict(const QString& live_run);
  // What if the load were `scale` × the workloads' own rates (issue 47 §1): simulates the chosen
  // source for a short window (kWhatIfSeconds, or the duration box's when shorter) and keeps it
  // as "what-if SOURCE at N %" in place of the previous what-if run, so dragging the load slider
  // about leaves one run, not dozens (undo brings the replaced one back). The slider beside New run
  // calls this when let go; asked while a job runs, it runs once that job ends. False as
  // simulate() is.
  bool what_if(double scale);
  static constexpr double kWhatIfSeconds = 5;
  bool busy() const;
  // Presentation mode (issue 47 §5, for a class): the timeline over the shown run's SLO attainment,
  // without the New run row or the side panel; off puts them back as they were.
  void set_presentation(bool on);
  bool presenting() const { return presenting_; }
  // Asks the running simulation or sweep to stop; it ends soon, keeping nothing.
  void stop();
  // Shows a run of the project by name (its timeline from this session, or the one it keeps).
  bool show_run(const QString& name);
  // A run's timeline: from this session, or read from the run when it keeps one (and cached);
  // null with the reason in `why` otherwise.
  std::shared_ptr<const engine::TimelineData> timeline_for(const QString& name, QString* why = nullptr);
  widgets::TimelineView* timeline() const { return view_; }
  TeachingPanel* teaching() const { return teaching_; }
  // Simulate, Sweep load, Stop, Play and Next violation as actions with their keys (F5, Shift+F5,
  // Ctrl+., Ctrl+Space, F8), for the Run menu.
  const QList<QAction*>& run_actions() const { return actions_; }
  QString status_text() const;
  QString details_text() const;

  // Playback: advance "now" by `speed` × wall time; follow keeps it in view.
  void play(bool on);
  bool playing() const;
  void set_speed(double factor);
  // Moves "now" to the next batch with a late request after it, selects it, and returns whether
  // there was one.
  bool next_violation();
  void advance(std::int64_t wall_ns);  // one playback step (the timer calls it)
  // The side panel (Batch, Range, Violations, Teach) beside the timeline: on a tab narrower than
  // kSidePanelMinTabWidth it is folded away so the timeline gets the width, and it opens on the
  // page that has something to show. Once the user shows or hides it, that choice stays.
  static constexpr int kSidePanelMinTabWidth = 900;
  void show_side_panel(bool shown, bool by_user = true);
  bool side_panel_shown() const;

 Q_SIGNALS:
  void message(const QString& line);
  void finished();                                                     // a simulation ended (kept or failed)
  void predicted(const QString& live_run, const QString& prediction);  // predict()'s run was kept

 protected:
  void resizeEvent(QResizeEvent* event) override;
  // The timeline takes the keyboard as the tab shows, so its zoom keys (W/S, A/D) work at once.
  void showEvent(QShowEvent* event) override;

 private:
  struct Job {
    std::shared_ptr<const Scenario> scenario;
    engine::SimulationSpec spec;  // holds the plan it runs, if any
    QString label;
  };
  std::optional<Job> prepare(const QString& source, double seconds);
  // The job `choose` sets up (system or plan, load; it returns the label), with this tab's
  // options and the workloads it can serve; nullopt with the reason in the status when it cannot.
  std::optional<Job> prepare(const std::function<QString(engine::SimulationSpec&)>& choose);
  // Runs `job` on the worker thread; the run lands as `name` (made unique when it lands).
  void start_simulation(Job job, const std::string& name);
  // Sets the system `source` names, or reads the project's plan "plan:NAME" into the spec with
  // the data plane that runs it; QueryError for a plan the project lacks.
  void use_source(engine::SimulationSpec& spec, const QString& source) const;
  struct Outcome {  // what a worker made: a run's timeline and the JSON kept in the project
    std::shared_ptr<engine::TimelineData> timeline;
    nlohmann::json body;  // moved, never printed and parsed again, on its way to the project
  };
  // Runs `work` on the job's thread; `job_finished` keeps what it made in the project.
  void start_worker(const std::string& name, std::function<void(Outcome&, BackgroundJob::Context&)> work);
  QString unique_name(const QString& base) const;
  void refresh();
  void job_finished(const QString& error, bool discarded);
  void show_selection();
  void draw_presentation_chart();

  ProjectDocument* doc_;
  widgets::TimelineView* view_;
  QComboBox* runs_;
  QComboBox* source_;
  QDoubleSpinBox* seconds_;
  QPushButton* simulate_;
  QPushButton* sweep_;
  QWidget* make_row_;               // New run with …
  QChartView* presentation_chart_;  // presentation mode's chart
  bool presenting_ = false, side_was_shown_ = false;
  QSlider* what_if_;            // load, % of the workloads' rates
  QLabel* what_if_label_;       // its value
  QString what_if_running_;     // the what-if run the job makes, when it makes one
  QString last_what_if_;        // the what-if run kept last, which the next replaces
  bool what_if_again_ = false;  // the slider moved while a job ran
  QProgressBar* progress_;      // the running job's, in per cent or load points
  QPushButton* stop_button_;
  QPushButton* options_button_;
  RunOptionsDialog* options_;  // the chosen system's family's options
  QComboBox* colouring_;
  QLineEdit* filter_;
  QLineEdit* find_;
  widgets::RangeSummaryPanel* summary_;
  widgets::ViolationsPanel* violations_;
  TeachingPanel* teaching_;
  QPushButton* play_;
  QDoubleSpinBox* speed_;
  QCheckBox* follow_;
  QLabel* status_;
  QLabel* details_;
  QTabWidget* side_;
  QSplitter* body_;
  QAction* side_action_;            // toggles the side panel
  bool side_follows_width_ = true;  // until the user shows or hides the panel
  QTimer* clock_;
  QList<QAction*> actions_;
  std::int64_t warmup_ns_ = 0;  // of the run shown: Next violation looks after it
  BackgroundJob* job_;          // the running simulation or sweep
  QString running_;             // its name
  QString prediction_of_;       // the live run it predicts, when it does
  Outcome pending_;             // what it handed back
  // Timelines of this session's runs, by run name (large ones are not kept in the project).
  std::map<std::string, std::shared_ptr<const engine::TimelineData>> timelines_;
};

}  // namespace servescope::ui
