// The Run tab's simulations and load sweeps (README "The GUI", Run tab): what a source names
// (a serving system, or a plan of the project and the data plane that runs it), the job on its
// worker thread, and what it leaves in the project when it ends.
#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSlider>
#include <QTimer>
#include <algorithm>

#include "engine/analysis/live_run_source.h"
#include "engine/analysis/load_sweep.h"
#include "engine/analysis/saved_artifacts.h"
#include "engine/serving/run_result_json.h"
#include "engine/systems/plan_to_run.h"
#include "engine/systems/scenario_simulation.h"
#include "model/core/error.h"
#include "ui/background_job.h"
#include "ui/exception_guard.h"
#include "ui/project_document.h"
#include "ui/run_options_dialog.h"
#include "ui/run_view.h"
#include "widgets/time_axis.h"
#include "widgets/timeline_view.h"

namespace servescope::ui {

bool RunView::busy() const {
  return job_->busy();
}

void RunView::stop() {
  if (!job_->busy()) return;
  job_->stop();
  stop_button_->setEnabled(false);
  status_->setText(tr("Stopping…"));
}

void RunView::refresh() {
  const auto* p = doc_->project();
  const auto source = source_->currentData().toString();
  source_->clear();
  // Every system that runs without a plan; those that run one are offered through the plans.
  for (const auto& system : engine::data_planes())
    if (system.runs == engine::PlanKind::None)
      source_->addItem(QString::fromStdString(system.name), QString::fromStdString(system.name));
  if (p)
    for (const auto& plan : p->plans) {
      if (engine::runs_on_a_data_plane(plan.body))
        source_->addItem(tr("plan %1").arg(QString::fromStdString(plan.name)),
                         QString(QStringLiteral("plan:") + QString::fromStdString(plan.name)));
    }
  source_->setCurrentIndex(std::max(0, source_->findData(source)));
  QStringList gpu_types;
  if (p)
    for (const auto& [type, count] : p->scenario.cluster.gpus_by_type())
      gpu_types << QString::fromStdString(type);
  options_->set_gpu_types(gpu_types);
  const auto shown = runs_->currentText();
  runs_->clear();
  if (p)
    for (const auto& run : p->runs)
      if (engine::artifact_kind(run) == engine::ArtifactKind::RunResult)
        runs_->addItem(QString::fromStdString(run.name));
  runs_->setCurrentIndex(std::max(0, runs_->findText(shown)));
  simulate_->setEnabled(p != nullptr && !job_->busy());
  sweep_->setEnabled(p != nullptr && !job_->busy());
}

void RunView::use_source(engine::SimulationSpec& spec, const QString& source) const {
  if (!source.startsWith(QStringLiteral("plan:"))) {
    spec.system = source.toStdString();
    return;
  }
  const auto* p = doc_->project();
  if (!p) throw QueryError("no project is open");
  const auto name = source.mid(5).toStdString();
  const auto it = std::ranges::find(p->plans, name, &SavedArtifact::name);
  if (it == p->plans.end()) throw QueryError("the project has no plan named '" + name + "'");
  engine::use_plan(spec, it->body, name);
}

std::optional<RunView::Job> RunView::prepare(const std::function<QString(engine::SimulationSpec&)>& choose) {
  const auto* p = doc_->project();
  if (job_->busy() || !p) return std::nullopt;
  Job job;
  job.scenario = std::make_shared<const Scenario>(p->scenario);
  auto& spec = job.spec;
  spec.timeline = true;
  try {
    // Plans are parsed here, on the UI thread, and travel with the worker.
    job.label = choose(spec);
    if (const auto why = options_->apply(spec); !why.isEmpty()) throw QueryError(why.toStdString());
    spec.workloads = engine::runnable_workloads(p->scenario, spec);
  } catch (const Error& e) {
    status_->setText(QString::fromStdString(e.what()));
    return std::nullopt;
  }
  if (spec.workloads.empty()) {
    status_->setText(tr("No workload here sends requests %1 can serve").arg(job.label));
    return std::nullopt;
  }
  return job;
}

std::optional<RunView::Job> RunView::prepare(const QString& source, double seconds) {
  return prepare([&](engine::SimulationSpec& spec) {
    spec.duration = Duration::microseconds(static_cast<std::int64_t>(seconds * 1e6));
    spec.warmup = std::min(Duration::seconds(2), Duration::nanoseconds(spec.duration.count_ns() / 5));
    use_source(spec, source);
    return source.startsWith(QStringLiteral("plan:")) ? source.mid(5) : source;
  });
}

QString RunView::unique_name(const QString& base) const {
  const auto* p = doc_->project();
  return p ? QString::fromStdString(unique_artifact_name(p->runs, base.toStdString())) : base;
}
bool RunView::sweep(const QString& source, double seconds_per_point) {
  auto job = prepare(source, seconds_per_point);
  if (!job) return false;
  job->spec.timeline = false;  // a sweep keeps its curve, not its batches
  const std::string name = unique_name(tr("sweep %1").arg(job->label)).toStdString();
  status_->setText(
      tr("Sweeping load 10–120 % of %1's capacity, %2 s per point…").arg(job->label).arg(seconds_per_point));
  auto shared = std::make_shared<Job>(std::move(*job));
  start_worker(name, [shared](Outcome& out, BackgroundJob::Context& context) {
    shared->spec.stop = context.stop_token();
    engine::LoadSweepOptions options;
    options.from = 0.1;
    options.to = 1.2;
    options.step = 0.1;
    int measured = 0;
    context.progress(0, options.points());
    const auto result = engine::sweep_load(*shared->scenario, shared->spec, options, [&](const engine::LoadPoint&) {
      context.progress(++measured, options.points());
    });
    out.body = engine::load_sweep_to_json(result, shared->spec, shared->scenario->name);
  });
  return true;
}

void RunView::start_worker(const std::string& name, std::function<void(Outcome&, BackgroundJob::Context&)> work) {
  simulate_->setEnabled(false);
  sweep_->setEnabled(false);
  stop_button_->setEnabled(true);
  progress_->setValue(0);
  progress_->show();
  running_ = QString::fromStdString(name);
  job_->start([this, work = std::move(work)](BackgroundJob::Context& context) {
    auto out = std::make_shared<Outcome>();
    work(*out, context);
    // The run travels to the UI thread as it is: never printed and parsed again.
    context.post([this, out] { pending_ = std::move(*out); });
  });
}

bool RunView::simulate(const QString& source, double seconds) {
  auto job = prepare(source, seconds);
  if (!job) return false;
  const std::string name = unique_name(job->label).toStdString();
  status_->setText(tr("Simulating %1 s with %2…").arg(seconds).arg(job->label));
  start_simulation(std::move(*job), name);
  return true;
}

bool RunView::what_if(double scale) {
  if (busy()) {
    what_if_again_ = true;  // the slider's latest value, once the running job ends
    return false;
  }
  const auto source = source_->currentData().toString();
  auto job = prepare(source, std::min(kWhatIfSeconds, seconds_->value()));
  if (!job) return false;
  job->spec.rate_scale = scale;
  const auto percent = static_cast<int>(std::lround(scale * 100));
  what_if_running_ = unique_name(tr("what-if %1 at %2 %").arg(job->label).arg(percent));
  status_->setText(tr("What if the load were %1 %: simulating %2 for %3 s…")
                       .arg(percent)
                       .arg(job->label)
                       .arg(job->spec.duration.to_s()));
  start_simulation(std::move(*job), what_if_running_.toStdString());
  return true;
}

bool RunView::predict(const QString& live_run) {
  const auto* p = doc_->project();
  if (!p) return false;
  const auto it = std::ranges::find(p->runs, live_run.toStdString(), &SavedArtifact::name);
  if (it == p->runs.end()) {
    status_->setText(tr("The project has no run named '%1'").arg(live_run));
    return false;
  }
  QStringList notes;
  auto job = prepare([&](engine::SimulationSpec& spec) {
    const auto chosen = source_->currentData().toString();
    auto source = engine::live_run_source(
        *p, *it, chosen.startsWith(QStringLiteral("plan:")) ? chosen.mid(5).toStdString() : std::string());
    spec = std::move(source.spec);
    spec.timeline = true;
    for (const auto& note : source.notes)
      notes << QString::fromStdString(note);
    return QString::fromStdString(source.label);
  });
  if (!job) {
    status_->setText(tr("Cannot predict '%1': %2").arg(live_run, status_->text()));
    return false;
  }
  status_->setText(tr("Predicting '%1': %2, %3 req/s for %4 s, seed %5 (%6)…")
                       .arg(live_run, job->label)
                       .arg(*job->spec.rate_rps, 0, 'f', 1)
                       .arg(job->spec.duration.to_s(), 0, 'f', 1)
                       .arg(job->spec.seed)
                       .arg(notes.join(QStringLiteral("; "))));
  prediction_of_ = live_run;
  start_simulation(std::move(*job), unique_name(tr("prediction of %1").arg(live_run)).toStdString());
  return true;
}

void RunView::start_simulation(Job job, const std::string& name) {
  auto scenario = job.scenario;
  auto spec = std::move(job.spec);
  start_worker(name, [scenario, spec](Outcome& out, BackgroundJob::Context& context) mutable {
    spec.stop = context.stop_token();
    int shown = -1;  // whole per cent: a hundred queued calls at most, whatever the run's length
    const auto result = engine::simulate(*scenario, spec, [&](double done) {
      if (const int percent = static_cast<int>(done * 100); percent != shown) context.progress(shown = percent, 100);
    });
    out.timeline = std::make_shared<engine::TimelineData>(engine::timeline_of(result));
    auto json = engine::run_result_to_json(result, scenario->name);
    // Packed here, off the UI thread; the project decides on landing whether it keeps it.
    json["timeline"] = engine::to_json(*out.timeline, engine::TimelineEncoding::Packed);
    out.body = std::move(json);
  });
}

void RunView::job_finished(const QString& error, bool discarded) {
  const QString name = running_;
  const QString prediction_of = std::exchange(prediction_of_, QString());
  const bool was_what_if = !name.isEmpty() && name == std::exchange(what_if_running_, QString());
  // The slider moved while this ran: its latest value, once this job is out of the way (not
  // after a Stop, which asked for nothing more to run, nor a project closed).
  if (std::exchange(what_if_again_, false) && !discarded && !job_->stop_requested())
    QTimer::singleShot(0, this, [this] { what_if(what_if_->value() / 100.0); });
  progress_->hide();
  auto out = std::exchange(pending_, Outcome{});
  simulate_->setEnabled(doc_->project() != nullptr);
  sweep_->setEnabled(doc_->project() != nullptr);
  stop_button_->setEnabled(false);
  if (discarded) {
    refresh();
    Q_EMIT message(tr("%1: not kept, its project was closed while it ran").arg(name));
    Q_EMIT finished();
    return;
  }
  if (job_->stop_requested()) {
    status_->setText(tr("%1: stopped; nothing was kept").arg(name));
    Q_EMIT message(status_->text());
    Q_EMIT finished();
    return;
  }
  if (!error.isEmpty()) {
    status_->setText(tr("Simulation failed: %1").arg(error));
    Q_EMIT message(status_->text());
    Q_EMIT finished();
    return;
  }
  // Named as it lands: a run imported or kept meanwhile may have taken the name it started with.
  const QString kept = unique_name(name);
  SavedArtifact run;
  run.name = kept.toStdString();
  run.created_utc = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
  run.body = std::move(out.body);
  run.system = engine::run_system(run.body, run.name);
  if (engine::artifact_kind(run) == engine::ArtifactKind::LoadSweep) {
    const double best = engine::sweep_max_load_factor(run.body, run.name);
    const auto why = doc_->add_run(std::move(run));
    status_->setText(why.isEmpty()
                         ? tr("%1: %2 of capacity at 99 % SLO attainment (the Charts tab draws the curve)")
                               .arg(kept)
                               .arg(best > 0 ? QStringLiteral("%1 %").arg(100 * best, 0, 'f', 0) : tr("no load factor"))
                         : tr("Sweep not kept: %1").arg(why));
    Q_EMIT message(status_->text());
    Q_EMIT finished();
    return;
  }
  if (!prediction_of.isEmpty()) run.body["prediction_of"] = prediction_of.toStdString();
  const auto key = run.name;
  QString timeline_note;
  const auto why = doc_->add_run(std::move(run), &timeline_note);
  if (why.isEmpty()) timelines_[key] = out.timeline;
  if (why.isEmpty() && was_what_if) {
    // In place of the previous what-if run, if it is still there.
    const auto& runs = doc_->project()->runs;
    if (const auto old = std::ranges::find(runs, last_what_if_.toStdString(), &SavedArtifact::name);
        !last_what_if_.isEmpty() && old != runs.end()) {
      timelines_.erase(old->name);
      doc_->remove_run(static_cast<std::size_t>(old - runs.begin()));  // undone apart from the add
    }
    last_what_if_ = kept;
  }
  if (!why.isEmpty()) {
    status_->setText(tr("Run not kept: %1").arg(why));
  } else {
    show_run(kept);  // its summary line
    if (!timeline_note.isEmpty())
      status_->setText(status_->text() + tr("; its timeline is kept for this session only: %1").arg(timeline_note));
  }
  Q_EMIT message(status_->text());
  Q_EMIT finished();
  if (why.isEmpty() && !prediction_of.isEmpty()) Q_EMIT predicted(prediction_of, kept);
}

}  // namespace servescope::ui
