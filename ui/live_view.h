// The Live tab (README "Live deployment", GUI live mode): connect to a running deployment (address,
// token), watch its per-vGPU timeline grow and follow "now" (scrolling back pauses following), live
// SLO-attainment and goodput charts, a side panel with the violations table and the picked batch,
// and a status line with the event rate, how far the stream lags the scheduler and which workers
// are connected. What the scheduler says of itself (a worker lost or late, a plan switch) shows
// on the timeline where it happened and in the Log. The stream is followed by the engine's
// LiveSubscriber on a thread of its own; four times a second this view takes what arrived since
// and appends it to the timeline, keeping the last minutes of detail (the charts cover the whole
// session; the scheduler's --record keeps all of it), so an hours-long session costs the same per
// refresh, and the same memory, as its first minutes. "Keep run" puts what was watched into the
// project as a run, to save and reopen like any other.
#pragma once

#include <QElapsedTimer>
#include <QWidget>
#include <atomic>
#include <memory>
#include <thread>

#include "engine/analysis/run_series.h"
#include "engine/live/tls.h"

class QCheckBox;
class QChartView;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTimer;

namespace servescope::engine::live {
class LiveSubscriber;
}

namespace servescope::widgets {
class TimelineView;
class ViolationsPanel;
}  // namespace servescope::widgets

namespace servescope::ui {

class ProjectDocument;

class LiveView : public QWidget {
  Q_OBJECT
 public:
  explicit LiveView(ProjectDocument* document, QWidget* parent = nullptr);
  ~LiveView() override;

  // Follows the deployment at `address` ("HOST:PORT"), over mutual TLS with `tls`'s files when
  // given; false with the reason in status_text() when the address is malformed or the TLS files
  // do not load. Connection trouble shows in the status line as it happens.
  bool connect_to(const QString& address, const QString& token, const engine::live::TlsFiles& tls = {});
  void disconnect_from();
  bool following_stream() const { return subscriber_ != nullptr; }
  // "Follow now": the window slides with the scheduler's clock; panning or zooming stops it.
  void set_follow(bool on);
  bool follow() const;
  // Adds what was watched to the project as a run: the session's aggregates and the timeline the
  // tab kept (its last minutes); says so in message(). The reason when it could not.
  // `timeline_note` receives why its timeline was left out, when it was (ProjectDocument::add_run).
  QString keep_run(QString* timeline_note = nullptr);
  // Asks the scheduler to switch to `source` with PPipe's flush-and-switch migration: a plan of
  // the project ("plan:NAME") or a serving system's name. False with the reason when it cannot
  // be asked (not connected, no such plan); the scheduler's answer shows in the status line.
  bool apply_plan(const QString& source, QString* why = nullptr);
  // Takes what arrived now (the timer does this four times a second).
  void refresh();
  // How much of the timeline the tab keeps (the "Keep" box): older batches are let go.
  void set_history_minutes(int minutes);
  int history_minutes() const;

  QString status_text() const;
  QString status_tip() const;
  // Stops following and moves to the next late batch or drop (widgets/timeline_violations.h);
  // what it found goes out as message().
  bool next_violation();
  widgets::TimelineView* timeline() const { return view_; }
  widgets::ViolationsPanel* violations() const { return violations_; }
  QChartView* chart() const { return chart_; }

 Q_SIGNALS:
  void message(const QString& text);
  // The status line for the main window's status bar.
  void statusChanged(const QString& text);

 private:
  void show_connect_dialog();
  void show_apply_dialog();
  void refresh_chart();
  void draw_charts(const engine::Series& attainment_pct, const engine::Series& goodput_rps);
  void draw_empty_charts();
  void changeEvent(QEvent* event) override;

  ProjectDocument* doc_;
  widgets::TimelineView* view_;
  widgets::ViolationsPanel* violations_;
  QLabel* details_;  // the picked batch
  QTabWidget* side_;
  QChartView *chart_, *goodput_chart_;
  QLabel* status_;
  QString address_;             // the scheduler followed, for the commands that start its missing workers
  engine::live::TlsFiles tls_;  // the files of the last connection, offered again
  QPushButton *connect_, *disconnect_, *keep_, *apply_;
  QCheckBox* follow_;
  QSpinBox* history_;  // minutes of timeline detail kept
  QTimer* timer_;
  std::unique_ptr<engine::live::LiveSubscriber> subscriber_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::uint64_t shown_generation_ = 0, shown_run_ = 0, charted_generation_ = 0;
  bool origin_set_ = false;  // the axis counts from the shown run's first event
  QElapsedTimer chart_clock_;
  std::string shown_reply_;
};

}  // namespace servescope::ui
