#include "ui/run_view.h"

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "engine/analysis/kept_timeline.h"
#include "engine/analysis/run_series.h"
#include "engine/analysis/saved_artifacts.h"
#include "engine/systems/scenario_simulation.h"
#include "model/core/error.h"
#include "ui/background_job.h"
#include "ui/exception_guard.h"
#include "ui/project_document.h"
#include "ui/run_options_dialog.h"
#include "ui/teaching_panel.h"
#include "widgets/batch_details.h"
#include "widgets/chart_facade.h"
#include "widgets/colouring_picker.h"
#include "widgets/range_summary_panel.h"
#include "widgets/time_axis.h"
#include "widgets/timeline_view.h"
#include "widgets/violations_panel.h"

namespace servescope::ui {
namespace {

constexpr int kFrameMs = 33;

}  // namespace

RunView::RunView(ProjectDocument* document, QWidget* parent) : QWidget(parent), doc_(document) {
  setObjectName(QStringLiteral("runView"));
  job_ = new BackgroundJob(doc_, this);
  view_ = new widgets::TimelineView(this);
  runs_ = new QComboBox(this);
  runs_->setObjectName(QStringLiteral("runs"));
  runs_->setMinimumContentsLength(16);
  runs_->setToolTip(tr("The run of the project the timeline shows"));
  source_ = new QComboBox(this);
  source_->setObjectName(QStringLiteral("runSource"));
  source_->setToolTip(tr("A serving system for the workloads, or a plan of the project (its data plane runs it)"));
  seconds_ = new QDoubleSpinBox(this);
  seconds_->setRange(0.1, 3600);
  seconds_->setValue(20);
  seconds_->setSuffix(tr(" s"));
  seconds_->setToolTip(tr("Simulated time (a sweep: per load point)"));
  simulate_ = new QPushButton(tr("Simulate"), this);
  sweep_ = new QPushButton(tr("Sweep load"), this);
  progress_ = new QProgressBar(this);
  progress_->setObjectName(QStringLiteral("runProgress"));
  progress_->setMaximumWidth(160);
  progress_->hide();  // while a simulation or sweep runs
  connect(job_, &BackgroundJob::progress, progress_, [this](int done, int total) {
    progress_->setRange(0, total);
    progress_->setValue(done);
  });
  stop_button_ = new QPushButton(tr("Stop"), this);
  stop_button_->setToolTip(tr("Stop the running simulation or sweep (nothing of it is kept)"));
  stop_button_->setEnabled(false);
  options_ = new RunOptionsDialog(this);
  options_button_ = new QPushButton(tr("Options…"), this);
  options_button_->setObjectName(QStringLiteral("runOptionsButton"));
  options_button_->setToolTip(tr("The chosen system's options (batch policy, reservation rules, network delays, …)"));
  sweep_->setToolTip(
      tr("Simulate at 10–120 % of the capacity (the duration per point) and keep SLO attainment "
         "against load factor for the Charts tab"));
  // What if the load were more or less: a short window re-simulated when the slider is let go.
  what_if_ = new QSlider(Qt::Horizontal, this);
  what_if_->setObjectName(QStringLiteral("whatIfLoad"));
  what_if_->setRange(25, 200);
  what_if_->setSingleStep(5);
  what_if_->setPageStep(25);
  what_if_->setValue(100);
  what_if_->setFixedWidth(80);
  what_if_->setToolTip(
      tr("What if the load were this share of the workloads' rates: let go to simulate the chosen system or "
         "plan for %1 s at it (the last what-if run is replaced)")
          .arg(kWhatIfSeconds));
  // Short, so the row fits a 1280-pixel screen beside the docks; the tool tip says what it is.
  what_if_label_ = new QLabel(tr("100 %"), this);
  what_if_label_->setToolTip(what_if_->toolTip());
  what_if_label_->setMinimumWidth(what_if_label_->fontMetrics().horizontalAdvance(tr("200 %")));
  connect(what_if_, &QSlider::valueChanged, this,
          [this](int percent) { what_if_label_->setText(tr("%1 %").arg(percent)); });
  // Let go, or moved by keys: a drag's every step would be a simulation.
  connect(what_if_, &QSlider::sliderReleased, this, [this] { what_if(what_if_->value() / 100.0); });
  connect(what_if_, &QSlider::actionTriggered, this, [this](int action) {
    if (action != QAbstractSlider::SliderMove)
      QTimer::singleShot(0, this, [this] {
        if (!what_if_->isSliderDown()) what_if(what_if_->value() / 100.0);
      });
  });
  colouring_ = widgets::make_colouring_picker(view_, this);
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Filter: model or GPU"));
  filter_->setClearButtonEnabled(true);
  filter_->setMinimumWidth(130);  // room for its placeholder
  find_ = new QLineEdit(this);
  find_->setObjectName(QStringLiteral("timelineFind"));
  find_->setPlaceholderText(tr("Find: request id or model"));
  find_->setToolTip(
      tr("Enter selects the first batch of a request id, or the next batch of a model; again for "
         "the one after"));
  find_->setClearButtonEnabled(true);
  find_->setMinimumWidth(130);
  // The view state's own actions: enabled exactly when they can act.
  const auto tool = [this](QAction* action) {
    auto* b = new QToolButton(this);
    b->setDefaultAction(action);
    if (!action->icon().isNull()) b->setToolButtonStyle(Qt::ToolButtonIconOnly);
    return b;
  };
  auto* state = view_->state();
  state->back_action()->setIcon(style()->standardIcon(QStyle::SP_ArrowBack));
  state->forward_action()->setIcon(style()->standardIcon(QStyle::SP_ArrowForward));
  auto* frame = new QAction(tr("Frame"), this);
  frame->setToolTip(tr("Frame the selected batch and its stages, or the marked range (F)"));
  connect(frame, &QAction::triggered, view_, &widgets::TimelineView::zoom_to_selection);
  side_action_ = new QAction(tr("Panel"), this);
  side_action_->setObjectName(QStringLiteral("runSidePanelToggle"));
  side_action_->setCheckable(true);
  side_action_->setChecked(true);
  side_action_->setToolTip(tr("Show or hide the side panel: the selected batch, the marked range, teaching mode"));
  const auto view_tools = {tool(state->back_action()),        tool(state->forward_action()),
                           tool(state->fit_action()),         tool(frame),
                           tool(state->clear_range_action()), tool(side_action_)};
  play_ = new QPushButton(tr("Play"), this);
  play_->setCheckable(true);
  speed_ = new QDoubleSpinBox(this);
  speed_->setRange(0.001, 1000);
  speed_->setDecimals(3);
  speed_->setValue(0.1);
  speed_->setPrefix(tr("×"));
  speed_->setToolTip(tr("Playback speed against wall time"));
  follow_ = new QCheckBox(tr("Follow"), this);
  follow_->setChecked(true);
  auto* next_late = new QPushButton(tr("Next violation"), this);
  next_late->setToolTip(tr("Jump to the next batch with a late request, or the next dropped request"));
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  details_ = new QLabel(this);
  details_->setTextFormat(Qt::RichText);
  details_->setWordWrap(true);
  details_->setMinimumWidth(180);
  details_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  summary_ = new widgets::RangeSummaryPanel(view_, this);
  violations_ = new widgets::ViolationsPanel(view_, this);
  connect(violations_, &widgets::ViolationsPanel::jumped, this, &RunView::message);
  teaching_ = new TeachingPanel(view_, this);
  clock_ = new QTimer(this);
  clock_->setInterval(kFrameMs);

  // Short rows, so the tab fits beside the docks on a 1280-pixel screen: the run shown and its
  // playback; a new run; what happened, across the tab; how the timeline is drawn.
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Show run"), this));
  top->addWidget(runs_);
  for (QWidget* w : std::initializer_list<QWidget*>{play_, speed_, follow_, next_late})
    top->addWidget(w);
  top->addStretch(1);
  make_row_ = new QWidget(this);  // a widget, so presentation mode can fold it away
  auto* make = new QHBoxLayout(make_row_);
  make->setContentsMargins(0, 0, 0, 0);
  make->addWidget(new QLabel(tr("New run with"), this));
  for (QWidget* w : std::initializer_list<QWidget*>{source_, seconds_, options_button_, simulate_, sweep_, what_if_,
                                                    what_if_label_, progress_, stop_button_})
    make->addWidget(w);
  make->addStretch(1);
  auto* bar = new QHBoxLayout;
  for (QWidget* w : std::initializer_list<QWidget*>{colouring_, filter_, find_})
    bar->addWidget(w);
  for (auto* w : view_tools)
    bar->addWidget(w);
  bar->addStretch(1);
  // Beside the timeline: the selected batch, the marked range's summary, teaching mode.
  auto* side = side_ = new QTabWidget(this);
  side->setObjectName(QStringLiteral("runSidePanel"));
  auto* details_scroll = new QScrollArea(side);
  details_scroll->setWidget(details_);
  details_scroll->setWidgetResizable(true);
  details_scroll->setFrameShape(QFrame::NoFrame);
  side->addTab(details_scroll, tr("Batch"));
  side->addTab(summary_, tr("Range"));
  side->addTab(violations_, tr("Violations"));
  side->addTab(teaching_, tr("Teach"));
  side->setMinimumWidth(200);
  // A marked range shows its summary at once; a batch picked while the panel is folded, its details.
  connect(view_->state(), &widgets::TimelineViewState::rangeChanged, side, [side, this](const auto& range) {
    if (!range) return;
    side->setCurrentWidget(summary_);
    show_side_panel(true);
  });
  connect(view_, &widgets::TimelineView::selectionChanged, this, [this, details_scroll](auto span) {
    if (span && !side_panel_shown()) {
      side_->setCurrentWidget(details_scroll);
      show_side_panel(true);
    }
  });
  // A splitter, so the side can be widened to read a story; the timeline gets the room first.
  auto* body = body_ = new QSplitter(Qt::Horizontal, this);
  body->setObjectName(QStringLiteral("runBody"));
  body->addWidget(view_);
  body->addWidget(side);
  body->setStretchFactor(0, 1);
  body->setStretchFactor(1, 0);
  body->setCollapsible(0, false);
  body->setSizes({1000, 250});
  connect(side_action_, &QAction::triggered, this, [this](bool on) { show_side_panel(on); });
  connect(body, &QSplitter::splitterMoved, this, [this] {
    side_follows_width_ = false;
    side_action_->setChecked(side_panel_shown());
  });
  auto* box = new QVBoxLayout(this);
  box->addLayout(top);
  box->addWidget(make_row_);
  box->addWidget(status_);
  box->addLayout(bar);
  box->addWidget(body, 1);
  // Presentation mode's one chart: the shown run's SLO attainment, under its timeline.
  presentation_chart_ = new QChartView(this);
  presentation_chart_->setObjectName(QStringLiteral("presentationChart"));
  presentation_chart_->setRenderHint(QPainter::Antialiasing);
  presentation_chart_->setMinimumHeight(widgets::kChartMinHeight);
  presentation_chart_->hide();
  box->addWidget(presentation_chart_);

  connect(simulate_, &QPushButton::clicked, this,
          [this] { simulate(source_->currentData().toString(), seconds_->value()); });
  connect(sweep_, &QPushButton::clicked, this, [this] { sweep(source_->currentData().toString(), seconds_->value()); });
  connect(stop_button_, &QPushButton::clicked, this, &RunView::stop);
  // The buttons as actions with keys, for the main window's Run menu: each clicks its button, so
  // a key does what the button does and nothing while the button is disabled.
  const auto action = [this](const QString& text, const QKeySequence& keys, QAbstractButton* button) {
    auto* a = new QAction(text, this);
    a->setShortcut(keys);
    connect(a, &QAction::triggered, button, &QAbstractButton::click);
    actions_.push_back(a);
  };
  action(tr("&Simulate"), QKeySequence(Qt::Key_F5), simulate_);
  action(tr("S&weep load"), QKeySequence(Qt::SHIFT | Qt::Key_F5), sweep_);
  action(tr("S&top"), QKeySequence(Qt::CTRL | Qt::Key_Period), stop_button_);
  action(tr("&Play or pause"), QKeySequence(Qt::CTRL | Qt::Key_Space), play_);
  action(tr("&Next violation"), QKeySequence(Qt::Key_F8), next_late);
  connect(options_button_, &QPushButton::clicked, this, [this] {
    engine::SimulationSpec spec;  // for a plan: the data plane that runs it
    run_guarded([&] { use_source(spec, source_->currentData().toString()); });
    options_->show_for(spec.system);
  });
  connect(runs_, &QComboBox::activated, this, [this] { show_run(runs_->currentText()); });
  connect(filter_, &QLineEdit::textChanged, view_, &widgets::TimelineView::set_filter);
  connect(find_, &QLineEdit::returnPressed, this, [this] {
    const auto found = view_->find_next(find_->text());
    Q_EMIT message(found.isEmpty()
                       ? tr("Nothing matches “%1”: give a request id or part of a model's name").arg(find_->text())
                       : tr("Found %1").arg(found));
  });
  connect(play_, &QPushButton::toggled, this, &RunView::play);
  connect(speed_, &QDoubleSpinBox::valueChanged, this, &RunView::set_speed);
  connect(next_late, &QPushButton::clicked, this, &RunView::next_violation);
  connect(clock_, &QTimer::timeout, this, [this] { advance(std::int64_t{kFrameMs} * 1'000'000); });
  connect(view_, &widgets::TimelineView::selectionChanged, this, &RunView::show_selection);
  connect(doc_, &ProjectDocument::changed, this, &RunView::refresh);
  connect(job_, &BackgroundJob::finished, this, &RunView::job_finished);
  connect(doc_, &ProjectDocument::projectReset, this, [this] {
    job_->stop();  // a run of the project that was closed would not be kept anyway
    timelines_.clear();
    view_->set_timeline(nullptr);
    status_->clear();  // it spoke of the closed project's last run
    view_->set_empty_text({});
    refresh();
    // The run the picker shows is the one on the canvas (or the reason it cannot be).
    if (runs_->count() > 0) show_run(runs_->currentText());
  });
  refresh();
  show_selection();
}

void RunView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  // Not over a field being typed in: only when the keyboard is elsewhere or nowhere in the tab.
  if (!isAncestorOf(QApplication::focusWidget())) view_->setFocus(Qt::OtherFocusReason);
}

RunView::~RunView() {
  // Before the members its closures name: the job stops and waits for its worker. The simulator
  // checks the stop token every 65,536 events, so this takes milliseconds, or as long as the
  // result's timeline and JSON take to build if the simulation itself had just ended.
  delete job_;
}

std::shared_ptr<const engine::TimelineData> RunView::timeline_for(const QString& name, QString* why) {
  const auto key = name.toStdString();
  if (const auto it = timelines_.find(key); it != timelines_.end()) return it->second;
  const auto* p = doc_->project();
  const auto run =
      p ? std::ranges::find(p->runs, key, &SavedArtifact::name) : std::vector<SavedArtifact>::const_iterator{};
  const auto fail = [&](const QString& reason) -> std::shared_ptr<const engine::TimelineData> {
    if (why) *why = reason;
    return nullptr;
  };
  if (!p || run == p->runs.end() || engine::artifact_kind(*run) != engine::ArtifactKind::RunResult)
    return fail(tr("the project has no simulated run named %1").arg(name));
  if (!run->body.contains("timeline"))
    return fail(tr("%1 kept no timeline (a run whose packed timeline passes %2 MiB, or would take the project's "
                   "past %3 MiB, keeps it only in the session that made it)")
                    .arg(name)
                    .arg(engine::KeptTimelineBudget{}.run_bytes >> 20)
                    .arg(engine::KeptTimelineBudget{}.project_bytes >> 20));
  try {
    auto timeline =
        std::make_shared<const engine::TimelineData>(engine::timeline_from_json(run->body["timeline"], "run " + key));
    timelines_[key] = timeline;
    return timeline;
  } catch (const Error& e) {
    return fail(QString::fromStdString(e.what()));
  }
}

bool RunView::show_run(const QString& name) {
  QString why;
  const auto timeline = timeline_for(name, &why);
  if (!timeline) {
    if (doc_->project() && std::ranges::any_of(doc_->project()->runs, [&](const SavedArtifact& a) {
          return a.name == name.toStdString() && engine::artifact_kind(a) == engine::ArtifactKind::RunResult;
        })) {
      // The run is picked, so the canvas says why it is empty, not "No run yet".
      view_->set_empty_text(why);
      view_->set_timeline(nullptr);
    }
    status_->setText(why);
    return false;
  }
  view_->set_empty_text({});
  view_->set_timeline(timeline);
  view_->set_now(std::nullopt);
  warmup_ns_ = 0;
  const SavedArtifact* run = nullptr;
  if (const auto* p = doc_->project())
    if (const auto it = std::ranges::find(p->runs, name.toStdString(), &SavedArtifact::name); it != p->runs.end())
      run = &*it;
  if (run) run_guarded([&] { warmup_ns_ = engine::run_warmup(run->body, run->name).count_ns(); });
  runs_->setCurrentIndex(std::max(0, runs_->findText(name)));
  // The line under the timeline speaks of the run shown, not of the last one simulated or of a
  // violation found in another.
  // With the warm-up it measured after: the GUI's is min(2 s, a fifth of the run), the CLI's 5 s
  // unless told, and a figure read without it is read against the wrong rule.
  if (run)
    status_->setText(
        tr("%1: %2 % of requests on time, %3 req/s goodput, %4 batches; measured after a %5 s warm-up")
            .arg(name)
            .arg(100 * run->body.value(nlohmann::json::json_pointer("/summary/slo_attainment"), 0.0), 0, 'f', 2)
            .arg(run->body.value(nlohmann::json::json_pointer("/summary/goodput_rps"), 0.0), 0, 'f', 1)
            .arg(timeline->spans.size())
            .arg(static_cast<double>(warmup_ns_) / 1e9, 0, 'g', 3));
  else
    status_->setText(tr("%1: %2 batches").arg(name).arg(timeline->spans.size()));
  show_selection();
  if (presenting_) draw_presentation_chart();
  return true;
}

void RunView::set_presentation(bool on) {
  if (on == presenting_) return;
  presenting_ = on;
  make_row_->setVisible(!on);
  presentation_chart_->setVisible(on);
  if (on) {
    // Tall enough for its axis title in the larger font (16 lines of it).
    presentation_chart_->setMinimumHeight(std::max(widgets::kChartMinHeight, 16 * fontMetrics().height()));
    side_was_shown_ = side_panel_shown();
    show_side_panel(false, false);
    draw_presentation_chart();
  } else {
    show_side_panel(side_was_shown_, false);
  }
}

void RunView::draw_presentation_chart() {
  const auto* p = doc_->project();
  const auto it = p ? std::ranges::find(p->runs, runs_->currentText().toStdString(), &SavedArtifact::name)
                    : std::vector<SavedArtifact>::const_iterator{};
  widgets::ChartSpec spec;
  spec.title = tr("SLO attainment over time");
  spec.x_title = tr("time (s)");
  spec.y_title = tr("% on time");
  spec.y_range = std::pair{0.0, 100.0};
  spec.thresholds = {{99.0, tr("99 % target")}};
  spec.series = {{"SLO attainment", {}}};
  if (p && it != p->runs.end() && engine::artifact_kind(*it) == engine::ArtifactKind::RunResult)
    run_guarded([&] { spec.series = {engine::run_series(it->body, it->name).attainment_pct}; });
  auto* chart = widgets::build_chart(spec, palette());
  // A chart keeps fonts of its own: the room at the back reads the tab's larger ones.
  QFont bold = font();
  bold.setBold(true);
  chart->setTitleFont(bold);
  chart->legend()->setFont(font());
  for (auto* axis : chart->axes()) {
    axis->setLabelsFont(font());
    axis->setTitleFont(bold);
  }
  widgets::show_chart(presentation_chart_, chart);
}

void RunView::show_selection() {
  details_->setText(widgets::batch_details_html(*view_));
}

QString RunView::status_text() const {
  return status_->text();
}

QString RunView::details_text() const {
  return details_->text();
}

void RunView::show_side_panel(bool shown, bool by_user) {
  if (by_user) side_follows_width_ = false;
  if (shown == side_panel_shown()) return;
  const int total = body_->sizes().value(0) + body_->sizes().value(1);
  const int side = shown ? std::max(side_->minimumWidth(), 240) : 0;
  body_->setSizes({std::max(0, total - side), side});
  side_action_->setChecked(shown);
}

bool RunView::side_panel_shown() const {
  return body_->sizes().value(1) > 0;
}

void RunView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  // A laptop screen with the docks open leaves the tab under 900 px: the timeline needs it more
  // than the panel, which opens when a batch is picked or a range marked. Until the user shows
  // or hides the panel, the tab's width decides.
  // Presentation mode keeps it folded, however wide the tab gets without the docks.
  if (side_follows_width_ && !presenting_) show_side_panel(width() >= kSidePanelMinTabWidth, false);
}

}  // namespace servescope::ui
