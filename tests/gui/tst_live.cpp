// GUI live mode against a small real deployment (README "Live deployment", GUI live mode): a
// scheduler and its eight workers as processes on loopback, the main window's Live tab connected
// with the token. The timeline fills while requests flow, the window follows "now", looking back
// pauses following, the status line names the workers and the event rate, the chart shows, the
// watched run is kept in the project and reopens in the Run tab like a simulated one, the
// Prediction tab simulates it and shows both side by side and calibrates the profiles on it, and
// another system is applied to the running deployment. A wrong token is refused with a reason. A
// worker that stops is explained: a notice on the timeline and in the Log, its requests in the
// violations table, the notice kept in the recording.
#include <QChartView>
#include <QComboBox>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QXYSeries>

#include "engine/analysis/prediction_report.h"
#include "model/io/json_cursor.h"
#include "tests/gui/gui_test_main.h"
#include "tests/support/child_process.h"
#include "ui/live_view.h"
#include "ui/main_window.h"
#include "ui/prediction_view.h"
#include "ui/project_document.h"
#include "ui/run_view.h"
#include "widgets/time_axis.h"
#include "widgets/timeline_view.h"
#include "widgets/violations_panel.h"

using servescope::test::ChildProcess;
using servescope::ui::MainWindow;

namespace {

constexpr const char* kToken = "gui-live-token-5d2e";  // at least 16 bytes, or the daemons refuse it

// A scheduler of the demo's mixed-37 workload on Symphony, on a free loopback port; its endpoint.
std::pair<std::unique_ptr<ChildProcess>, std::string> start_scheduler(const std::filesystem::path& at,
                                                                      const std::vector<std::string>& extra) {
  const auto port_file = (at / "port").string();
  std::vector<std::string> args{"live",     "scheduler", "-s",          "builtin:projects/demo.json",
                                "-w",       "mixed-37",  "--system",    "symphony",
                                "--warmup", "0",         "--listen",    "127.0.0.1:0",
                                "--token",  kToken,      "--port-file", port_file};
  args.insert(args.end(), extra.begin(), extra.end());
  auto process = std::make_unique<ChildProcess>(SERVESCOPE_CLI, args, at / "scheduler.out", at / "scheduler.err");
  const auto written = [&] { return servescope::test::read_file(port_file).find('\n') != std::string::npos; };
  for (int k = 0; k < 2000 && !written(); ++k)
    QTest::qWait(10);
  if (!written()) return {std::move(process), ""};
  return {std::move(process), "127.0.0.1:" + std::to_string(std::stoi(servescope::test::read_file(port_file)))};
}

// The worker of server a100-`i`.
std::unique_ptr<ChildProcess> start_worker_on(const std::filesystem::path& at, const std::string& endpoint, int i) {
  return std::make_unique<ChildProcess>(SERVESCOPE_CLI,
                                        std::vector<std::string>{"live", "worker", "--connect", endpoint, "--token",
                                                                 kToken, "--node", "a100-" + std::to_string(i)},
                                        at / ("w" + std::to_string(i) + ".out"),
                                        at / ("w" + std::to_string(i) + ".err"));
}

}  // namespace

class TestLive : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setApplicationName(QStringLiteral("servescope-tests"));
    QStandardPaths::setTestModeEnabled(true);
  }

  void watchesADeploymentLive() {
    QTemporaryDir dir;
    const std::filesystem::path at(dir.path().toStdString());
    const auto started = start_scheduler(
        at, {"--ctrl-delay-us", "300", "--response-delay-us", "300", "--record", (at / "recorded.json").string()});
    auto& scheduler = *started.first;
    const auto endpoint = started.second;
    QVERIFY2(!endpoint.empty(), "the scheduler wrote no port");
    std::vector<std::unique_ptr<ChildProcess>> workers;
    // Seven of the eight: the eighth joins once the GUI has said it is missing.
    const auto start_worker = [&](int i) { workers.push_back(start_worker_on(at, endpoint, i)); };
    for (int i = 0; i < 7; ++i)
      start_worker(i);

    MainWindow w;
    w.set_interactive(false);
    w.resize(1400, 900);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    auto* live = w.live_view();
    auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("centralTabs"));
    tabs->setCurrentWidget(live);

    // A wrong token: refused, and the status says so.
    QVERIFY(live->connect_to(QString::fromStdString(endpoint), QStringLiteral("wrong")));
    QTRY_VERIFY_WITH_TIMEOUT(live->status_text().contains(QStringLiteral("bad token")), 10000);
    live->disconnect_from();
    QVERIFY(!live->connect_to(QStringLiteral("no-port"), QStringLiteral("x")));
    // TLS files that do not load: refused before connecting, the file named.
    QVERIFY(!live->connect_to(QString::fromStdString(endpoint), QString::fromLatin1(kToken),
                              {"/nonexistent/gui.pem", "/nonexistent/gui.key", "/nonexistent/ca.pem"}));
    QVERIFY2(live->status_text().contains(QStringLiteral("--tls-cert /nonexistent/gui.pem: no such file")),
             qPrintable(live->status_text()));
    QVERIFY(!live->following_stream());

    QVERIFY(live->connect_to(QString::fromStdString(endpoint), QString::fromLatin1(kToken)));
    // Issue 47, defect 13: a server without a worker is named, with the command that starts it.
    QTRY_VERIFY_WITH_TIMEOUT(live->status_text().contains(QStringLiteral("7/8 workers")), 20000);
    QVERIFY2(live->status_text().contains(QStringLiteral("no worker yet on a100-7")), qPrintable(live->status_text()));
    QVERIFY2(live->status_tip().contains(
                 QStringLiteral("live worker --connect %1 --node a100-7").arg(QString::fromStdString(endpoint))),
             qPrintable(live->status_tip()));
    start_worker(7);
    QTRY_VERIFY_WITH_TIMEOUT(live->status_text().contains(QStringLiteral("8/8 workers")), 20000);
    QVERIFY(live->status_tip().isEmpty());
    ChildProcess load(
        SERVESCOPE_CLI,
        {"--json", "live", "loadgen", "--connect", endpoint, "--token", kToken, "--rate", "1000", "--duration", "3"},
        at / "load.out", at / "load.err");
    QTRY_VERIFY_WITH_TIMEOUT(live->timeline()->timeline() && live->timeline()->timeline()->spans.size() > 50, 20000);
    // Connected before any request, the view fitted the empty run (a few µs wide); following must
    // not keep that width once requests flow (it did: the run scrolled by in a 1 µs window).
    QTRY_VERIFY_WITH_TIMEOUT(live->timeline()->to_ns() - live->timeline()->from_ns() >= 1'000'000, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(live->status_text().contains(QStringLiteral("events/s")), 20000);
    // Following: the window ends at the scheduler's "now", which keeps moving.
    QVERIFY(live->follow());
    const auto end_before = live->timeline()->to_ns();
    QTRY_VERIFY_WITH_TIMEOUT(live->timeline()->to_ns() > end_before + 200'000'000, 20000);
    // Looking back pauses following; the window then stays where the user put it.
    live->timeline()->set_window(0, 500'000'000);
    QVERIFY(!live->follow());
    QTest::qWait(600);
    QCOMPARE(live->timeline()->from_ns(), std::int64_t{0});
    QCOMPARE(live->timeline()->to_ns(), std::int64_t{500'000'000});
    live->set_follow(true);

    QVERIFY(load.wait_for(std::chrono::seconds(60)).value_or(-1) == 0);
    QTRY_VERIFY_WITH_TIMEOUT(live->chart()->chart() != nullptr && !live->chart()->chart()->series().isEmpty(), 20000);
    // Issue 47 §2: the Live tab has the Run tab's colour by outcome and Next violation (which
    // stops following, to stay on what it found, and says what it found or that there is none).
    {
      auto* colouring = live->findChild<QComboBox*>(QStringLiteral("colouring"));
      QVERIFY(colouring);
      colouring->setCurrentIndex(1);
      QCOMPARE(live->timeline()->colouring(), servescope::widgets::BoxColouring::SloOutcome);
      QSignalSpy said(live, &servescope::ui::LiveView::message);
      const bool found = live->next_violation();
      QVERIFY(!live->follow());
      QVERIFY(!said.isEmpty());
      const auto text = said.last().first().toString();
      QVERIFY2(found ? (text.startsWith(QStringLiteral("Late")) || text.contains(QStringLiteral("ropped")))
                     : text.startsWith(QStringLiteral("No late batch")),
               qPrintable(text));
      live->set_follow(true);
    }
    // Issue 47 §3: one clock, the scheduler's. We joined after it started, so the axis counts from
    // before the run's own clock began; a batch's tool tip reads as the axis does, and the charts'
    // curves start no earlier than we joined on that clock (they read 60 s where the axis read 13).
    {
      const auto* t = live->timeline()->timeline();
      QVERIFY(live->timeline()->time_origin() < 0);
      const auto& span = t->spans.back();
      const auto label = servescope::widgets::format_duration(span.start.count_ns() - live->timeline()->time_origin());
      const auto tip = live->timeline()->describe(static_cast<std::uint32_t>(t->spans.size() - 1));
      QVERIFY2(tip.contains(label), qPrintable(tip + QStringLiteral(" / ") + label));
      const auto curve = [&]() -> QXYSeries* {
        for (auto* series : live->chart()->chart()->series())
          if (auto* xy = qobject_cast<QXYSeries*>(series);
              xy && xy->name() == QStringLiteral("SLO attainment") && !xy->points().isEmpty())
            return xy;
        return nullptr;
      };
      QTRY_VERIFY_WITH_TIMEOUT(curve() != nullptr, 20000);
      QVERIFY(curve()->points().front().x() >= -static_cast<double>(live->timeline()->time_origin()) / 1e9 - 1e-6);
    }
    const auto shots = qEnvironmentVariable("SERVESCOPE_SCREENSHOTS_DIR");
    if (!shots.isEmpty()) {
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      live->set_follow(false);
      const auto end = live->timeline()->timeline()->end.count_ns();
      live->timeline()->set_window(end - 150'000'000, end);
      QTest::qWait(1100);  // the charts redraw once a second
      live->refresh();
      QCoreApplication::processEvents();
      QVERIFY(w.grab().save(shots + QStringLiteral("/live-mode.png")));
      live->set_follow(true);
    }
    // Keep the run; the Run tab shows it like a simulated run.
    const auto runs_before = w.project()->runs.size();
    QCOMPARE(live->keep_run(), QString());
    QCOMPARE(w.project()->runs.size(), runs_before + 1);
    const auto name = QString::fromStdString(w.project()->runs.back().name);
    QVERIFY(name.startsWith(QStringLiteral("live ")));
    QVERIFY(w.run_view()->show_run(name));
    QVERIFY(w.run_view()->timeline()->timeline() != nullptr);
    QVERIFY(w.run_view()->timeline()->timeline()->spans.size() > 50);
    // The Prediction tab lists the kept run; Predict simulates what it was offered (Symphony, the
    // loadgen's 1,000 req/s for 3 s, not the workload's rate over the scheduler's lifetime) and
    // shows both: per model, the differences, the two timelines lined up at their first batch.
    auto* prediction = w.prediction_view();
    prediction->choose_live_run(name);
    QVERIFY2(prediction->predict(), qPrintable(prediction->status_text()));
    QTRY_VERIFY_WITH_TIMEOUT(!w.run_view()->busy(), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(tabs->currentWidget() == prediction, 10000);
    QVERIFY2(prediction->status_text().contains(QStringLiteral("on time live")), qPrintable(prediction->status_text()));
    const auto& predicted = w.project()->runs.back();
    QCOMPARE(QString::fromStdString(predicted.body.value("prediction_of", std::string())), name);
    // Offered what the kept run's arrival series says arrived, over the time it arrived in, not
    // the scheduler's workload rate (how many the load generator managed is the machine's business).
    const auto& kept = *std::ranges::find(w.project()->runs, name.toStdString(), &servescope::SavedArtifact::name);
    const auto window = servescope::engine::load_window(servescope::JsonCursor(kept.body, kept.name));
    QVERIFY(window.has_value());
    const double offered = predicted.body["config"]["offered_rate_rps"].get<double>();
    QVERIFY2(std::abs(offered - window->arrivals / (window->to_s - window->from_s)) < 1e-6 * offered,
             qPrintable(QString::number(offered)));
    QVERIFY(offered != kept.body["config"]["offered_rate_rps"].template get<double>());
    QVERIFY(prediction->table()->rowCount() > 2);  // all, then each model
    QCOMPARE(prediction->table()->item(0, 0)->text(), QStringLiteral("all"));
    QVERIFY(prediction->differences_text().contains(QStringLiteral("Largest differences")));
    QVERIFY(prediction->live_timeline()->timeline() && prediction->predicted_timeline()->timeline());
    QCOMPARE(prediction->live_timeline()->timeline()->spans.front().start,
             prediction->predicted_timeline()->timeline()->spans.front().start);
    if (!shots.isEmpty()) {
      QCoreApplication::processEvents();
      QVERIFY(w.grab().save(shots + QStringLiteral("/prediction.png")));
    }
    // Calibrate on the kept run: the report says what moved; applied, the profiles are the
    // project's own, the same models, one undo step.
    QString report;
    QVERIFY2(prediction->calibrate(false, &report), qPrintable(prediction->status_text()));
    QVERIFY2(report.startsWith(QStringLiteral("calibrated from ")), qPrintable(report));
    const auto models = w.project()->scenario.profiles.models.size();
    QVERIFY2(prediction->calibrate(true), qPrintable(prediction->status_text()));
    QVERIFY(prediction->status_text().contains(QStringLiteral("Undo puts them back")));
    QCOMPARE(w.project()->scenario.profiles.models.size(), models);
    QVERIFY(w.project()->scenario.profile_includes.empty());
    tabs->setCurrentWidget(live);
    // Apply another system to the running deployment: flushed, switched, a new run on screen.
    QString why;
    QVERIFY(!live->apply_plan(QStringLiteral("plan:none such"), &why));
    QVERIFY(why.contains(QStringLiteral("no plan named")));
    QVERIFY(live->apply_plan(QStringLiteral("eager"), &why));
    QTRY_VERIFY_WITH_TIMEOUT(live->timeline()->timeline() && live->timeline()->timeline()->system == "eager", 15000);
    live->disconnect_from();
    QVERIFY(live->status_text().contains(QStringLiteral("Disconnected")));
    QVERIFY(!live->apply_plan(QStringLiteral("eager"), &why));
    scheduler.signal(SIGTERM);
    QCOMPARE(scheduler.wait_for(std::chrono::seconds(30)).value_or(-1), 0);
    // What the scheduler recorded opens like a simulated run (File → Import run): the Symphony
    // part with the load in recorded.plan1.json, the eager part after the switch in recorded.json.
    QVERIFY(
        w.import_run(QString::fromStdString((at / "nothing.json").string())).contains(QStringLiteral("nothing.json")));
    QCOMPARE(w.import_run(QString::fromStdString((at / "recorded.plan1.json").string())), QString());
    QCOMPARE(w.project()->runs.back().name, std::string("recorded.plan1"));
    QCOMPARE(w.project()->runs.back().system, std::string("symphony"));
    QVERIFY(w.run_view()->show_run(QStringLiteral("recorded.plan1")));
    QVERIFY(w.run_view()->timeline()->timeline()->spans.size() > 50);
    QCOMPARE(w.import_run(QString::fromStdString((at / "recorded.json").string())), QString());
    QCOMPARE(w.project()->runs.back().system, std::string("eager"));
  }

  // Issue 47 §2: a worker that stops mid-run is explained where it shows. Its worker hangs
  // (SIGSTOP) while it serves, so the batches it holds are overdue, then lost: the scheduler's
  // notice shows on the Live timeline at that moment over the server's rows, reaches the Log, and
  // the violations table counts the requests it cost by their reason and shows where they went;
  // the scheduler's recording keeps the notice, so the recorded run, reopened, shows it too.
  // Nothing here times anything: each step waits for the deployment to say what happened.
  void aStoppedWorkerIsExplained() {
    QTemporaryDir dir;
    const std::filesystem::path at(dir.path().toStdString());
    const auto started = start_scheduler(at, {"--record", (at / "recorded.json").string()});
    auto& scheduler = *started.first;
    const auto endpoint = started.second;
    QVERIFY2(!endpoint.empty(), "the scheduler wrote no port");
    std::vector<std::unique_ptr<ChildProcess>> workers;
    for (int i = 0; i < 8; ++i)
      workers.push_back(start_worker_on(at, endpoint, i));
    MainWindow w;
    w.set_interactive(false);
    w.resize(1280, 800);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    auto* live = w.live_view();
    w.findChild<QTabWidget*>(QStringLiteral("centralTabs"))->setCurrentWidget(live);
    QSignalSpy said(live, &servescope::ui::LiveView::message);
    QVERIFY(live->connect_to(QString::fromStdString(endpoint), QString::fromLatin1(kToken)));
    QTRY_VERIFY_WITH_TIMEOUT(live->status_text().contains(QStringLiteral("8/8 workers")), 20000);
    ChildProcess load(
        SERVESCOPE_CLI,
        {"--json", "live", "loadgen", "--connect", endpoint, "--token", kToken, "--rate", "1000", "--duration", "8"},
        at / "load.out", at / "load.err");
    const auto run = [&] { return live->timeline()->timeline(); };
    QTRY_VERIFY_WITH_TIMEOUT(run() && run()->spans.size() > 200, 20000);
    // The server whose slot ran the latest batch: it is serving, so it gets work while it hangs.
    const auto slot = run()->spans.back().gpu;
    const auto server = run()->gpu_server.at(slot);
    const auto name = run()->server_names.at(server);
    QVERIFY(name.starts_with("a100-"));
    auto& stopped = *workers.at(static_cast<std::size_t>(std::stoi(name.substr(5))));
    stopped.signal(SIGSTOP);
    const auto lost = [&]() -> const servescope::engine::RunNotice* {
      for (const auto& n : run()->notices)
        if (n.kind == servescope::engine::NoticeKind::WorkerLost && n.text.find(name) != std::string::npos) return &n;
      return nullptr;
    };
    QTRY_VERIFY_WITH_TIMEOUT(lost() != nullptr, 30000);
    // Over the server's rows: every slot the plan put there.
    std::vector<std::uint32_t> slots;
    for (std::uint32_t g = 0; g < run()->gpu_server.size(); ++g)
      if (run()->gpu_server[g] == server) slots.push_back(g);
    QCOMPARE(lost()->gpus, slots);
    // On the timeline: a line at the notice whose tool tip carries the scheduler's words.
    live->set_follow(false);
    auto* view = live->timeline();
    const auto at_ns = lost()->time.count_ns();
    view->set_window(at_ns - 100'000'000, at_ns + 100'000'000);
    const auto here = view->notices_at(QPointF(view->x_of(at_ns), view->lanes_top() + 5));
    QVERIFY(!here.empty());
    QVERIFY2(view->describe_notices(here).contains(QString::fromStdString(name)),
             qPrintable(view->describe_notices(here)));
    // In the Log, on the timeline's clock.
    const auto logged = [&] {
      for (const auto& args : said)
        if (args.first().toString().contains(QStringLiteral("worker of %1 lost").arg(QString::fromStdString(name))))
          return true;
      return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(logged(), 10000);
    // In the violations table, over the whole kept run: the requests it held, dropped as
    // worker-lost, and a click goes to them.
    QVERIFY(load.wait_for(std::chrono::seconds(60)).has_value());
    live->refresh();
    view->state()->set_range(servescope::widgets::TimeRange{0, run()->end.count_ns() + 1});
    auto* violations = live->violations();
    violations->refresh_now();
    auto* table = violations->table();
    int worker_lost_row = -1;
    for (int r = 0; r < table->rowCount(); ++r)
      if (table->item(r, 4)->text().contains(QStringLiteral("worker-lost"))) worker_lost_row = r;
    QVERIFY2(worker_lost_row >= 0, qPrintable(violations->headline()));
    QSignalSpy jumped(violations, &servescope::widgets::ViolationsPanel::jumped);
    violations->show_row(worker_lost_row);
    QCOMPARE(jumped.size(), 1);
    QVERIFY2(jumped.first().first().toString().startsWith(table->item(worker_lost_row, 0)->text()),
             qPrintable(jumped.first().first().toString()));
    // Inspecting a live run at a laptop's 1280×800: the notice over the lost worker's rows, the
    // violations table beside it, coloured by outcome.
    if (const auto shots = qEnvironmentVariable("SERVESCOPE_SCREENSHOTS_DIR"); !shots.isEmpty()) {
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      live->findChild<QComboBox*>(QStringLiteral("colouring"))->setCurrentIndex(1);
      view->set_window(at_ns - 400'000'000, at_ns + 600'000'000);
      view->state()->set_range(std::nullopt);
      view->reveal(at_ns, slots.front());  // the lost worker's rows, not the queue a click showed
      violations->refresh_now();
      QTest::qWait(1100);  // the charts redraw once a second
      QCoreApplication::processEvents();
      QVERIFY(w.grab().save(shots + QStringLiteral("/live-violations.png")));
    }
    // The recording keeps the notice: the run reopened shows it where it happened.
    stopped.signal(SIGKILL);
    live->disconnect_from();
    scheduler.signal(SIGTERM);
    QCOMPARE(scheduler.wait_for(std::chrono::seconds(30)).value_or(-1), 0);
    QCOMPARE(w.import_run(QString::fromStdString((at / "recorded.json").string())), QString());
    QVERIFY(w.run_view()->show_run(QString::fromStdString(w.project()->runs.back().name)));
    const auto& reopened = w.run_view()->timeline()->timeline()->notices;
    QVERIFY(std::ranges::any_of(reopened, [&](const servescope::engine::RunNotice& n) {
      return n.kind == servescope::engine::NoticeKind::WorkerLost && n.text.find(name) != std::string::npos;
    }));
  }
};

SERVESCOPE_GUI_TEST(tst_live, TestLive)
#include "tst_live.moc"
