#include "ui/background_job.h"

#include <QThread>

#include "ui/exception_guard.h"
#include "ui/project_document.h"

namespace servescope::ui {

BackgroundJob::BackgroundJob(ProjectDocument* document, QObject* parent) : QObject(parent), doc_(document) {}

BackgroundJob::~BackgroundJob() {
  stop_.request_stop();
  if (thread_) {
    thread_->wait();
    delete thread_;
  }
}

bool BackgroundJob::start(std::function<void(Context&)> work) {
  if (thread_) return false;
  stop_ = std::stop_source();  // a fresh one: the last job's stop request is spent
  generation_ = doc_->generation();
  discarded_ = false;
  thread_ = QThread::create([this, work = std::move(work), context = Context(this, stop_.get_token())]() mutable {
    const QString error = run_guarded([&] { work(context); });
    // Queued behind every closure the work posted, so `finished` comes last.
    QMetaObject::invokeMethod(
        this, [this, error] { finish(error); }, Qt::QueuedConnection);
  });
  thread_->start();
  return true;
}

void BackgroundJob::Context::progress(int done, int total) const {
  job_->post_to_ui([job = job_, done, total] { Q_EMIT job->progress(done, total); });
}

void BackgroundJob::post_to_ui(std::function<void()> call) {
  QMetaObject::invokeMethod(
      this,
      [this, call = std::move(call)] {
        if (discarded_ || doc_->generation() != generation_) {
          discarded_ = true;
          stop_.request_stop();  // its result would not be kept: no use working on
          return;
        }
        call();
      },
      Qt::QueuedConnection);
}

void BackgroundJob::finish(const QString& error) {
  thread_->wait();  // it has returned from the work; this joins it
  delete thread_;
  thread_ = nullptr;
  if (doc_->generation() != generation_) discarded_ = true;
  Q_EMIT finished(error, discarded_);
}

}  // namespace servescope::ui
