#include "ui/live_view.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QElapsedTimer>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "engine/analysis/run_series.h"
#include "engine/live/live_subscriber.h"
#include "engine/live/tcp_socket.h"
#include "engine/serving/run_result_json.h"
#include "engine/systems/scenario_simulation.h"
#include "engine/timeline/timeline_data.h"
#include "ui/exception_guard.h"
#include "ui/project_document.h"
#include "widgets/batch_details.h"
#include "widgets/chart_facade.h"
#include "widgets/colouring_picker.h"
#include "widgets/time_axis.h"
#include "widgets/timeline_view.h"
#include "widgets/timeline_violations.h"
#include "widgets/violations_panel.h"

namespace servescope::ui {
namespace {

constexpr int kRefreshMs = 250;
constexpr std::int64_t kDefaultWindowNs = 2'000'000'000;
constexpr std::int64_t kMinFollowWindowNs = 1'000'000;  // 1 ms: narrower is an empty run's fit
// Two minutes of detail: at 10,000 requests/s about 60 MiB, reached long before an hour is.
constexpr int kDefaultHistoryMinutes = 2;
constexpr std::int64_t kMinuteNs = 60'000'000'000;

}  // namespace

LiveView::LiveView(ProjectDocument* document, QWidget* parent) : QWidget(parent), doc_(document) {
  setObjectName(QStringLiteral("liveView"));
  connect_ = new QPushButton(tr("Connect…"), this);
  connect_->setObjectName(QStringLiteral("liveConnect"));
  disconnect_ = new QPushButton(tr("Disconnect"), this);
  keep_ = new QPushButton(tr("Keep run"), this);
  keep_->setToolTip(tr("Add what was watched to the project as a run"));
  apply_ = new QPushButton(tr("Apply plan…"), this);
  apply_->setToolTip(tr("Switch the running deployment to a plan of the project (flush, then switch)"));
  follow_ = new QCheckBox(tr("Follow now"), this);
  follow_->setChecked(true);
  history_ = new QSpinBox(this);
  history_->setObjectName(QStringLiteral("liveHistory"));
  history_->setRange(1, 60);
  history_->setValue(kDefaultHistoryMinutes);
  history_->setPrefix(tr("Keep "));
  history_->setSuffix(tr(" min"));
  history_->setToolTip(
      tr("How much of the timeline the Live tab keeps in detail; older batches are let go. The charts cover "
         "the whole session, and the scheduler's --record keeps all of it."));
  status_ = new QLabel(tr("Not connected. Start a deployment (README, \"Live deployment\") and connect."), this);
  status_->setObjectName(QStringLiteral("liveStatus"));
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  status_->setWordWrap(true);  // a long reason must not widen the window
  view_ = new widgets::TimelineView(this);
  view_->set_empty_text(tr("Not connected: start a deployment (README, \"Live deployment\") and Connect… to watch it"));
  chart_ = new QChartView(this);
  goodput_chart_ = new QChartView(this);
  for (auto* view : {chart_, goodput_chart_}) {
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumSize(widgets::kChartMinWidth, widgets::kChartMinHeight);
  }
  auto* charts = new QWidget(this);
  auto* chart_row = new QHBoxLayout(charts);
  chart_row->setContentsMargins(0, 0, 0, 0);
  chart_row->addWidget(chart_);
  chart_row->addWidget(goodput_chart_);
  draw_empty_charts();  // titled and empty until a run streams
  // What the Run tab has for finding violations: colour by outcome and Next violation (which
  // stops following "now", to stay on what it found).
  auto* colouring = widgets::make_colouring_picker(view_, this);
  auto* next = new QPushButton(tr("Next violation"), this);
  next->setObjectName(QStringLiteral("liveNextViolation"));
  connect(next, &QPushButton::clicked, this, [this] { next_violation(); });
  auto* fit = new QToolButton(this);
  fit->setDefaultAction(view_->state()->fit_action());  // looking at the whole run stops following
  auto* top = new QHBoxLayout;
  top->addWidget(connect_);
  top->addWidget(disconnect_);
  top->addWidget(follow_);
  top->addWidget(fit);
  top->addWidget(history_);
  top->addWidget(keep_);
  top->addWidget(apply_);
  top->addStretch(1);
  // Below: how to look at it, and what the deployment says (room for a long status at 1280 px).
  auto* second = new QHBoxLayout;
  second->addWidget(colouring);
  second->addWidget(next);
  second->addWidget(status_, 1);
  // Beside them, what the Run tab has: the picked batch, and which models miss their SLO in
  // view (or in the marked range), a click away from the worst batch.
  details_ = new QLabel(this);
  details_->setTextFormat(Qt::RichText);
  details_->setWordWrap(true);
  details_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  auto* details_scroll = new QScrollArea(this);
  details_scroll->setWidget(details_);
  details_scroll->setWidgetResizable(true);
  details_scroll->setFrameShape(QFrame::NoFrame);
  violations_ = new widgets::ViolationsPanel(view_, this);
  side_ = new QTabWidget(this);
  side_->setObjectName(QStringLiteral("liveSidePanel"));
  side_->addTab(violations_, tr("Violations"));
  side_->addTab(details_scroll, tr("Batch"));
  side_->setMinimumWidth(200);
  // Beside the timeline only, so the charts below keep the tab's whole width (two charts and the
  // panel side by side would not fit a 1280-pixel screen with the docks open).
  auto* body = new QSplitter(Qt::Horizontal, this);
  body->addWidget(view_);
  body->addWidget(side_);
  body->setStretchFactor(0, 1);
  body->setStretchFactor(1, 0);
  body->setCollapsible(0, false);
  body->setSizes({1000, 280});
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(body);
  split->addWidget(charts);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  auto* box = new QVBoxLayout(this);
  box->addLayout(top);
  box->addLayout(second);
  box->addWidget(split, 1);
  connect(violations_, &widgets::ViolationsPanel::jumped, this, [this](const QString& what) {
    set_follow(false);  // stay on what was found
    Q_EMIT message(what);
  });
  connect(view_, &widgets::TimelineView::selectionChanged, this, [this, details_scroll](auto span) {
    details_->setText(widgets::batch_details_html(*view_));
    if (span && side_->currentWidget() != violations_) side_->setCurrentWidget(details_scroll);
  });
  details_->setText(widgets::batch_details_html(*view_));
  disconnect_->setEnabled(false);
  keep_->setEnabled(false);
  apply_->setEnabled(false);
  timer_ = new QTimer(this);
  timer_->setInterval(kRefreshMs);
  connect(timer_, &QTimer::timeout, this, &LiveView::refresh);
  connect(connect_, &QPushButton::clicked, this, &LiveView::show_connect_dialog);
  connect(disconnect_, &QPushButton::clicked, this, &LiveView::disconnect_from);
  connect(apply_, &QPushButton::clicked, this, &LiveView::show_apply_dialog);
  connect(keep_, &QPushButton::clicked, this, [this] {
    const auto why = keep_run();
    if (!why.isEmpty()) Q_EMIT message(tr("Live run not kept: %1").arg(why));
  });
  connect(follow_, &QCheckBox::toggled, this, [this](bool on) {
    if (on) refresh();
  });
  // Looking back (a pan, a zoom, the history) is the user's: stop following until asked again.
  connect(view_->state(), &widgets::TimelineViewState::userMovedWindow, this, [this] {
    if (follow_->isChecked()) follow_->setChecked(false);
  });
}

LiveView::~LiveView() {
  // Nothing may reach the half-destroyed main window: stop the thread without a last refresh.
  blockSignals(true);
  timer_->stop();
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void LiveView::set_history_minutes(int minutes) {
  history_->setValue(minutes);
}

int LiveView::history_minutes() const {
  return history_->value();
}

void LiveView::set_follow(bool on) {
  follow_->setChecked(on);
}

bool LiveView::follow() const {
  return follow_->isChecked();
}

QString LiveView::status_text() const {
  return status_->text();
}

bool LiveView::next_violation() {
  set_follow(false);
  QString said;
  const bool found = widgets::go_to_next_violation(*view_, 0, &said);
  Q_EMIT message(said);
  return found;
}

QString LiveView::status_tip() const {
  return status_->toolTip();
}

void LiveView::show_connect_dialog() {
  QDialog dialog(this);
  dialog.setWindowTitle(tr("Connect to a deployment"));
  auto* address = new QLineEdit(QStringLiteral("127.0.0.1:7070"), &dialog);
  auto* token = new QLineEdit(qEnvironmentVariable("SERVESCOPE_TOKEN"), &dialog);
  token->setEchoMode(QLineEdit::Password);
  // The GUI's certificate (servescope-cli live gen-certs writes gui.pem and gui.key): last used,
  // else $SERVESCOPE_TLS_CERT, _KEY and _CA; all empty for plain TCP.
  const auto remembered = [](const std::string& last, const char* variable) {
    return last.empty() ? qEnvironmentVariable(variable) : QString::fromStdString(last);
  };
  auto* cert = new QLineEdit(remembered(tls_.cert, "SERVESCOPE_TLS_CERT"), &dialog);
  auto* key = new QLineEdit(remembered(tls_.key, "SERVESCOPE_TLS_KEY"), &dialog);
  auto* ca = new QLineEdit(remembered(tls_.ca, "SERVESCOPE_TLS_CA"), &dialog);
  for (auto* field : {cert, key, ca}) {
    field->setPlaceholderText(tr("PEM file; leave all three empty for plain TCP"));
    field->setMinimumWidth(field->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 48);  // a path shows whole
  }
  auto* form = new QFormLayout(&dialog);
  form->addRow(tr("Scheduler (host:port)"), address);
  form->addRow(tr("Token"), token);
  form->addRow(tr("TLS certificate"), cert);
  form->addRow(tr("TLS key"), key);
  form->addRow(tr("TLS CA"), ca);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  if (dialog.exec() == QDialog::Accepted)
    connect_to(address->text(), token->text(),
               {cert->text().toStdString(), key->text().toStdString(), ca->text().toStdString()});
}

bool LiveView::connect_to(const QString& address, const QString& token, const engine::live::TlsFiles& tls) {
  const auto colon = address.lastIndexOf(QLatin1Char(':'));
  bool ok = false;
  const auto port = colon > 0 ? address.mid(colon + 1).toUInt(&ok) : 0u;
  if (!ok || port == 0 || port > 65535) {
    status_->setText(tr("'%1' is not HOST:PORT").arg(address));
    return false;
  }
  if (token.isEmpty()) {
    status_->setText(tr("The deployment's token is needed to connect"));
    return false;
  }
  engine::live::SubscriberOptions options;
  try {
    options.tls = engine::live::load_tls(tls);
  } catch (const engine::live::LiveError& e) {
    status_->setText(QString::fromStdString(e.what()));
    return false;
  }
  tls_ = tls;
  disconnect_from();
  options.host = address.left(colon).toStdString();
  options.port = static_cast<std::uint16_t>(port);
  options.token = token.toStdString();
  options.name = "gui";
  subscriber_ = std::make_unique<engine::live::LiveSubscriber>(options);
  stop_.store(false);
  // A refusal or a lost connection ends the thread: the status line says why, and the Log dock.
  thread_ = std::thread([this, s = subscriber_.get()] {
    const auto error = run_guarded([&] { s->run(stop_); });
    if (!error.isEmpty()) report_error(tr("the live connection ended: %1").arg(error));
  });
  shown_generation_ = 0;
  shown_run_ = 0;
  connect_->setEnabled(false);
  disconnect_->setEnabled(true);
  apply_->setEnabled(true);
  follow_->setChecked(true);
  address_ = address;
  status_->setText(tr("Connecting to %1…").arg(address));
  Q_EMIT message(status_->text());
  timer_->start();
  return true;
}

void LiveView::disconnect_from() {
  if (!subscriber_) return;
  timer_->stop();
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  refresh();  // the last events stay on screen
  subscriber_.reset();
  connect_->setEnabled(true);
  disconnect_->setEnabled(false);
  apply_->setEnabled(false);
  status_->setText(tr("Disconnected; the timeline keeps what was streamed."));
}

void LiveView::refresh() {
  if (!subscriber_) return;
  const auto s = subscriber_->status();
  const auto generation = subscriber_->generation();
  if (generation != shown_generation_) {
    shown_generation_ = generation;
    // What arrived since the last refresh costs the same at hour 10 as at second 10; still, refresh
    // no more often than four times its cost, so the window stays responsive on a busy machine.
    QElapsedTimer cost;
    cost.start();
    if (auto take = subscriber_->take_timeline(shown_run_)) {
      if (take->layout) {  // a new run (a restarted scheduler, a new plan): its own slots and models
        shown_run_ = take->run;
        origin_set_ = false;
        view_->set_timeline(std::make_shared<const engine::TimelineData>(std::move(*take->layout)));
      }
      // What the scheduler said of itself (a worker lost, a plan switch) goes to the Log as well as
      // on the timeline, on the timeline's clock.
      for (const auto& n : take->chunk.notices)
        Q_EMIT message(tr("Live %1: %2")
                           .arg(widgets::format_duration(n.time.count_ns() + take->run_origin.count_ns()),
                                QString::fromStdString(n.text)));
      view_->append(std::move(take->chunk));
      const auto* timeline = view_->timeline();
      // One clock for the axis, tool tips, Fit and the charts: the scheduler's, the time since the
      // deployment started (the run's own clock starts when we joined, or at a plan change). It
      // was the first batch's time on the axis, the run's in tool tips and charts.
      if (!origin_set_) {
        view_->set_time_origin(-take->run_origin.count_ns());
        origin_set_ = true;
      }
      // Let go of the oldest detail a quarter of the history at a time: one pass per 30 s or so,
      // not one per refresh.
      const auto history_ns = history_->value() * kMinuteNs;
      const auto end_ns = timeline->end.count_ns();
      if (!timeline->spans.empty() && end_ns - timeline->spans.front().start.count_ns() > history_ns + history_ns / 4)
        view_->forget_before(end_ns - history_ns);
      keep_->setEnabled(true);
    }
    timer_->setInterval(static_cast<int>(std::clamp<qint64>(4 * cost.elapsed(), kRefreshMs, 2000)));
  }
  if (follow_->isChecked() && view_->timeline() && s.connected) {
    const auto width = view_->to_ns() - view_->from_ns();
    const auto now = s.scheduler_now.count_ns();
    // The width the user left it at; not the microsecond a run that was still empty fitted to
    // when it arrived (connected before any request, the window stayed 1 µs wide).
    const bool usable = width >= kMinFollowWindowNs && width < 3600'000'000'000;
    view_->state()->follow_window(now - (usable ? width : kDefaultWindowNs), now);
    view_->set_now(now);
  }
  QString text;
  if (!s.connected) {
    text = QString::fromStdString(s.message);
  } else {
    text = tr("%1 · %2/%3 workers · %4 events/s · lag %5 ms · %6 requests in flight")
               .arg(QString::fromStdString(s.scenario))
               .arg(s.workers_connected)
               .arg(s.workers_expected)
               .arg(s.events_per_s, 0, 'f', 0)
               .arg(s.lag.to_ms(), 0, 'f', 1)
               .arg(s.outstanding);
    if (s.switching) text += tr(" · switching plans (flushing)");
    // The scheduler runs with --insecure beyond loopback: say so where it stays in view.
    if (s.insecure) text = tr("⚠ not encrypted: token and traffic cross the network in clear text · ") + text;
  }
  // Servers of the plan with no worker: the load generator waits for them (and gives up after
  // 10 s), so name them, and give the command that starts each where the pointer rests.
  QString missing_tip;
  if (s.connected && !s.missing_servers.empty()) {
    QStringList names, commands;
    for (const auto& server : s.missing_servers) {
      names << QString::fromStdString(server);
      commands << QStringLiteral("servescope-cli live worker --connect %1 --node %2")
                      .arg(address_, QString::fromStdString(server));
    }
    constexpr qsizetype kNamed = 3;
    text += tr(" · no worker yet on %1").arg(names.mid(0, kNamed).join(QStringLiteral(", "))) +
            (names.size() > kNamed ? tr(" and %1 more").arg(names.size() - kNamed) : QString());
    missing_tip = tr("Start one worker per server the plan uses:\n%1").arg(commands.join(QLatin1Char('\n')));
  }
  status_->setToolTip(missing_tip);
  if (s.last_reply != shown_reply_) {
    shown_reply_ = s.last_reply;
    Q_EMIT message(QString::fromStdString(s.last_reply));
  }
  if (text != status_->text()) {
    status_->setText(text);
    Q_EMIT statusChanged(text);
  }
  // The charts fold the whole run: once a second is enough.
  if (!chart_clock_.isValid() || chart_clock_.elapsed() >= 1000) {
    chart_clock_.start();
    refresh_chart();
  }
}

void LiveView::refresh_chart() {
  if (!subscriber_ || subscriber_->generation() == charted_generation_) return;
  charted_generation_ = subscriber_->generation();
  // From the run's counters, not a copy of the whole run: the same cost at hour 10 as at second 10.
  auto curves = subscriber_->curves();
  if (!curves || curves->goodput_rps.points.empty()) return;
  // The last interval is still filling: drawn, it drops towards 0 and reads as a false alarm.
  // The rest on the timeline's clock (the scheduler's).
  const double origin_s = curves->run_origin.to_s();
  for (auto* s : {&curves->attainment_pct, &curves->goodput_rps}) {
    if (!s->points.empty()) s->points.pop_back();
    for (auto& point : s->points)
      point.x += origin_s;
  }
  draw_charts(curves->attainment_pct, curves->goodput_rps);
}

void LiveView::draw_charts(const engine::Series& attainment_pct, const engine::Series& goodput_rps) {
  widgets::ChartSpec attainment;
  attainment.title = tr("SLO attainment, live (complete seconds)");
  attainment.x_title = tr("time since the deployment started (s)");
  attainment.y_title = tr("% on time");
  attainment.series = {attainment_pct};
  attainment.y_range = std::pair{0.0, 100.0};
  attainment.thresholds = {{99.0, tr("99 % target")}};
  widgets::show_chart(chart_, widgets::build_chart(attainment, palette()));
  widgets::ChartSpec goodput;
  goodput.title = tr("Goodput, live (complete seconds)");
  goodput.x_title = tr("time since the deployment started (s)");
  goodput.y_title = tr("req/s on time");
  goodput.series = {goodput_rps};
  widgets::show_chart(goodput_chart_, widgets::build_chart(goodput, palette()));
}

void LiveView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  // Charts take their colours when built: a new palette (dark mode) draws them again.
  if (event->type() != QEvent::PaletteChange) return;
  charted_generation_ = 0;
  draw_empty_charts();
  refresh_chart();
}

void LiveView::draw_empty_charts() {
  // Named as run_series names them, so the legend reads the same before and after.
  draw_charts({"SLO attainment", {}}, {"goodput", {}});
}

void LiveView::show_apply_dialog() {
  QStringList sources;
  if (const auto* p = doc_->project())
    for (const auto& plan : p->plans)
      sources << QStringLiteral("plan:") + QString::fromStdString(plan.name);
  // Systems that run without a plan and that live workers can serve.
  for (const auto& system : engine::data_planes())
    if (system.runs == engine::PlanKind::None && system.not_live.empty())
      sources << QString::fromStdString(system.name);
  bool ok = false;
  const auto source =
      QInputDialog::getItem(this, tr("Apply a plan"), tr("Switch the deployment to"), sources, 0, false, &ok);
  if (!ok) return;
  QString why;
  if (!apply_plan(source, &why)) Q_EMIT message(why);
}

bool LiveView::apply_plan(const QString& source, QString* why) {
  auto fail = [&](const QString& reason) {
    if (why) *why = reason;
    return false;
  };
  if (!subscriber_) return fail(tr("not connected to a deployment"));
  nlohmann::json command = {{"command", "apply-plan"}};
  if (source.startsWith(QStringLiteral("plan:"))) {
    const auto name = source.mid(5).toStdString();
    const auto* p = doc_->project();
    if (!p) return fail(tr("no project is open"));
    const auto it = std::ranges::find(p->plans, name, &SavedArtifact::name);
    if (it == p->plans.end()) return fail(tr("the project has no plan named '%1'").arg(source.mid(5)));
    command["plan"] = it->body;
  } else {
    command["system"] = source.toStdString();
  }
  subscriber_->send_command(command);
  Q_EMIT message(tr("Asked the deployment to switch to %1").arg(source));
  return true;
}

QString LiveView::keep_run(QString* timeline_note) {
  if (!subscriber_ && !view_->timeline()) return tr("nothing was watched");
  if (!subscriber_) return tr("connect again to keep a run (the stream's aggregates are gone)");
  const auto result = subscriber_->aggregates();
  if (!result || !view_->timeline()) return tr("nothing was streamed yet");
  const auto status = subscriber_->status();
  SavedArtifact run;
  static const std::vector<SavedArtifact> none;
  run.name = unique_artifact_name(
      doc_->project() ? doc_->project()->runs : none,
      tr("live %1 %2")
          .arg(QString::fromStdString(status.scenario), QTime::currentTime().toString(QStringLiteral("HH:mm:ss")))
          .toStdString());
  run.created_utc = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
  run.body = engine::run_result_to_json(*result, status.scenario);
  // The detail the tab kept (its last minutes); the aggregates are the whole session's.
  run.body["timeline"] = engine::to_json(*view_->timeline(), engine::TimelineEncoding::Packed);
  run.system = result->system;
  const auto name = QString::fromStdString(run.name);
  QString note;
  auto why = doc_->add_run(std::move(run), &note);
  if (why.isEmpty())
    Q_EMIT message(note.isEmpty()
                       ? tr("Kept the live run '%1' in the project: the session's aggregates and its "
                            "timeline's last %2 min")
                             .arg(name)
                             .arg(history_->value())
                       : tr("Kept the live run '%1' in the project, without its timeline: %2").arg(name, note));
  if (timeline_note) *timeline_note = note;
  return why;
}

}  // namespace servescope::ui
