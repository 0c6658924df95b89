// Long work off the UI thread, after heaptrack's Parser (docs/architecture.md "The GUI"): the work
// runs on a worker thread of its own and never touches a widget or the document; what it makes it
// posts back as a closure over the typed result, which runs on the UI thread in the order posted,
// and only while the project the work started for is still open. A stop request reaches the work
// through a std::stop_token (the simulator's SimulationSpec::stop, the planners' loop), and
// `finished` comes last, after everything the work posted.
#pragma once

#include <QObject>
#include <QString>
#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>

class QThread;

namespace servescope::ui {

class ProjectDocument;

class BackgroundJob : public QObject {
  Q_OBJECT
 public:
  // What the work sees of its job, on the worker thread.
  class Context {
   public:
    std::stop_token stop_token() const { return stop_; }
    bool stop_requested() const { return stop_.stop_requested(); }
    // Runs `on_ui_thread` on the UI thread, after what was posted before it; skipped (and the
    // job stopped) once the project it started for is closed. A move-only closure is fine.
    template <class F>
    void post(F on_ui_thread) const {
      auto held = std::make_shared<F>(std::move(on_ui_thread));
      job_->post_to_ui([held] { (*held)(); });
    }
    // `done` of `total` steps, for a progress bar.
    void progress(int done, int total) const;

   private:
    friend class BackgroundJob;
    Context(BackgroundJob* job, std::stop_token stop) : job_(job), stop_(std::move(stop)) {}
    BackgroundJob* job_;
    std::stop_token stop_;
  };

  explicit BackgroundJob(ProjectDocument* document, QObject* parent = nullptr);
  // Asks the work to stop and waits for it: its thread must not outlive what its closures name.
  ~BackgroundJob() override;

  bool busy() const { return thread_ != nullptr; }
  // Starts `work` on a worker thread with a fresh stop request; false while a job runs.
  bool start(std::function<void(Context&)> work);
  void stop() { stop_.request_stop(); }
  bool stop_requested() const { return stop_.stop_requested(); }

 Q_SIGNALS:
  void progress(int done, int total);
  // On the UI thread once the work has returned and all it posted has run. `error`: what the
  // work threw ("" when nothing); `discarded`: its project was closed meanwhile, so nothing it
  // posted after that ran.
  void finished(const QString& error, bool discarded);

 private:
  void post_to_ui(std::function<void()> call);
  void finish(const QString& error);

  ProjectDocument* doc_;
  QThread* thread_ = nullptr;
  std::stop_source stop_;
  std::uint64_t generation_ = 0;  // the document's, when the job started
  bool discarded_ = false;
};

}  // namespace servescope::ui
