#include "ui/teaching_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include "engine/systems/system_registry.h"
#include "model/core/error.h"
#include "ui/save_dialog.h"
#include "widgets/timeline_video.h"
#include "widgets/timeline_view.h"

namespace servescope::ui {
namespace {

constexpr int kStepMs = 2500;  // Play: how long each step shows

}  // namespace

TeachingPanel::TeachingPanel(widgets::TimelineView* view, QWidget* parent)
    : QWidget(parent),
      view_(view),
      headline_(new QLabel(this)),
      steps_(new QListWidget(this)),
      back_(new QPushButton(tr("◀ Back"), this)),
      next_(new QPushButton(tr("Next ▶"), this)),
      play_(new QPushButton(tr("Play"), this)),
      video_(new QPushButton(tr("Video…"), this)),
      clock_(new QTimer(this)) {
  setObjectName(QStringLiteral("teachingPanel"));
  headline_->setWordWrap(true);
  headline_->setTextFormat(Qt::RichText);
  steps_->setWordWrap(true);
  steps_->setObjectName(QStringLiteral("storySteps"));
  play_->setCheckable(true);
  auto* tell = new QPushButton(tr("Tell a request"), this);
  tell->setToolTip(tr("The selected batch's first request, else a late one after the playback line"));
  auto* dropped = new QPushButton(tr("A dropped one"), this);
  dropped->setToolTip(tr("A request dropped after the playback line"));
  video_->setToolTip(tr("Export this story's playback, with its notes, as MP4 or GIF"));
  auto* pick = new QHBoxLayout;
  pick->addWidget(tell);
  pick->addWidget(dropped);
  auto* move = new QHBoxLayout;
  for (auto* b : {back_, next_, play_, video_})
    move->addWidget(b);
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  box->addLayout(pick);
  box->addWidget(headline_);
  box->addWidget(steps_, 1);
  box->addLayout(move);
  clock_->setInterval(kStepMs);
  connect(tell, &QPushButton::clicked, this, [this] { tell_next(false); });
  connect(dropped, &QPushButton::clicked, this, [this] { tell_next(true); });
  connect(back_, &QPushButton::clicked, this, [this] { go_to(step_ - 1); });
  connect(next_, &QPushButton::clicked, this, [this] { go_to(step_ + 1); });
  connect(play_, &QPushButton::toggled, this, &TeachingPanel::play);
  connect(steps_, &QListWidget::currentRowChanged, this, [this](int row) {
    if (row != step_) go_to(row);
  });
  connect(clock_, &QTimer::timeout, this, [this] {
    if (!story_ || step_ + 1 >= static_cast<int>(story_->steps.size()))
      play_->setChecked(false);
    else
      go_to(step_ + 1);
  });
  connect(video_, &QPushButton::clicked, this, [this] {
    const auto path = ask_save_path(this, tr("Export the story as video"), QStringLiteral("story.mp4"),
                                    tr("MP4 video (*.mp4);;GIF animation (*.gif)"));
    if (path.isEmpty()) return;
    const auto why = export_video(path);
    if (!why.isEmpty()) QMessageBox::warning(this, tr("Cannot export the video"), why);
  });
  connect(view_->state(), &widgets::TimelineViewState::extentChanged, this, &TeachingPanel::run_changed);
  run_changed();
}

void TeachingPanel::run_changed() {
  // A new or grown run: its old story's batch indices mean nothing any more.
  story_.reset();
  step_ = -1;
  play_->setChecked(false);
  steps_->clear();
  view_->set_annotation({}, 0, 0);
  headline_->setText(view_->timeline()
                         ? tr("Pick a batch and press <b>Tell a request</b> to follow one request through the run, "
                              "step by step, with the data plane's reason for each decision.")
                         : tr("Show a run first."));
  for (auto* b : {back_, next_, play_, video_})
    b->setEnabled(false);
}

bool TeachingPanel::tell_next(bool dropped) {
  const auto* t = view_->timeline();
  if (!t) return false;
  std::optional<engine::RequestId> id;
  if (const auto span = view_->selected(); span && !dropped && !t->requests_of(*span).empty())
    id = t->requests_of(*span).front().id;
  if (!id)
    id = engine::request_to_tell(*t, engine::Time::nanoseconds(view_->now_ns().value_or(view_->from_ns())), dropped);
  if (!id) {
    headline_->setText(t->requests.empty() ? tr("This run keeps no request lists: there is no request to follow.")
                       : dropped           ? tr("No request was dropped after the playback line.")
                                           : tr("No batch starts after the playback line."));
    return false;
  }
  return tell(*id);
}

bool TeachingPanel::tell(engine::RequestId id) {
  const auto* t = view_->timeline();
  if (!t) return false;
  std::string decides;
  try {
    decides = engine::data_plane_traits(t->system).decides;
  } catch (const Error&) {
    decides = "the data plane's own rule (" + t->system + " is not a system this build knows)";
  }
  story_ = engine::request_story(*t, view_->index(), id, decides);
  play_->setChecked(false);
  steps_->clear();
  if (!story_) {
    headline_->setText(tr("Request %1 is nowhere in this run.").arg(id));
    return false;
  }
  const auto& model = story_->model < t->models.size() ? t->models[story_->model] : std::string("?");
  headline_->setText(tr("<b>Request %1</b> of %2: %n step(s)", nullptr, static_cast<int>(story_->steps.size()))
                         .arg(id)
                         .arg(QString::fromStdString(model).toHtmlEscaped()));
  for (const auto& s : story_->steps)
    steps_->addItem(QString::fromStdString(s.title + "\n" + s.why));
  for (auto* b : {back_, next_, play_, video_})
    b->setEnabled(true);
  step_ = -1;
  go_to(0);
  return true;
}

QString TeachingPanel::note_of(int step) const {
  if (!story_ || step < 0 || step >= static_cast<int>(story_->steps.size())) return {};
  const auto& s = story_->steps[static_cast<std::size_t>(step)];
  return QStringLiteral("%1/%2 · %3\n%4")
      .arg(step + 1)
      .arg(story_->steps.size())
      .arg(QString::fromStdString(s.title), QString::fromStdString(s.why));
}

void TeachingPanel::go_to(int step) {
  if (!story_ || story_->steps.empty()) return;
  step_ = std::clamp(step, 0, static_cast<int>(story_->steps.size()) - 1);
  const auto& s = story_->steps[static_cast<std::size_t>(step_)];
  {
    const QSignalBlocker quiet(steps_);
    steps_->setCurrentRow(step_);
  }
  // The batch of the step (or the one whose output a transfer carries) is selected, so its flow
  // shows; the playback line stands at the step's start.
  std::optional<std::uint32_t> span = s.span;
  if (!span && s.transfer) {
    for (auto k = static_cast<std::size_t>(step_); k-- > 0 && !span;)
      span = story_->steps[k].span;
  }
  if (span) view_->select(span);
  view_->set_now(s.at.count_ns());
  const auto* t = view_->timeline();
  view_->reveal(s.at.count_ns(), span ? std::optional(t->spans[*span].gpu) : std::nullopt, story_->model);
  // The note holds while the line is within the step (an instant's until its next step).
  const auto until = step_ + 1 < static_cast<int>(story_->steps.size())
                         ? story_->steps[static_cast<std::size_t>(step_ + 1)].at
                         : s.until;
  view_->set_annotation(note_of(step_), s.at.count_ns(), std::max(s.until, until).count_ns());
  back_->setEnabled(step_ > 0);
  next_->setEnabled(step_ + 1 < static_cast<int>(story_->steps.size()));
}

void TeachingPanel::play(bool on) {
  if (on && (!story_ || step_ + 1 >= static_cast<int>(story_->steps.size()))) go_to(0);
  on ? clock_->start() : clock_->stop();
  if (play_->isChecked() != on) play_->setChecked(on);
}

QString TeachingPanel::export_video(const QString& path) {
  if (!story_ || story_->steps.empty()) return tr("Tell a request first");
  const auto first = story_->steps.front().at.count_ns(), last = story_->steps.back().until.count_ns();
  widgets::TimelineVideoOptions o;
  o.path = path;
  // From a little before the arrival to a little after the end, about 8 s of video.
  const auto margin = std::max<std::int64_t>((last - first) / 10, 100'000);
  o.from_ns = first - margin;
  o.to_ns = last + margin;
  o.speed = static_cast<double>(o.to_ns - o.from_ns) / 1e9 / 8.0;
  o.window_ns = std::max<std::int64_t>((o.to_ns - o.from_ns) * 2, 1'000'000);
  o.annotation = [this](std::int64_t now) {
    int at = 0;
    for (int k = 0; k < static_cast<int>(story_->steps.size()); ++k)
      if (story_->steps[static_cast<std::size_t>(k)].at.count_ns() <= now) at = k;
    return note_of(at);
  };
  QProgressDialog progress(tr("Painting frames…"), tr("Cancel"), 0, widgets::timeline_video_frames(o), this);
  progress.setWindowModality(Qt::WindowModal);
  progress.setMinimumDuration(300);
  const auto why = widgets::export_timeline_video(*view_, o, [&](int done, int total) {
    progress.setMaximum(total);
    progress.setValue(done);
    return !progress.wasCanceled();
  });
  return progress.wasCanceled() ? QString() : why;
}

}  // namespace servescope::ui
