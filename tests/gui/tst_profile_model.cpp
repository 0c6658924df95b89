// Profiling a model from the GUI (README "Real models") without LibTorch: the profiler's progress
// lines are parsed (malformed ones ignored), the measured profile and its device type join a
// project as one undoable edit, the profile view draws a p50–p99 band only where a spread was
// measured, and the runner and the dialog drive a stand-in for servescope-cli, a shell script that
// prints the profiler's lines and copies prepared output files. Nothing here asserts a time: the
// waits are generous limits on processes that end by themselves, or are cancelled.
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QFile>
#include <QLegend>
#include <QLegendMarker>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

#include "model/core/error.h"
#include "model/io/document.h"
#include "tests/gui/gui_test_main.h"
#include "ui/measured_profile_import.h"
#include "ui/profile_model_dialog.h"
#include "ui/profile_model_job.h"
#include "ui/profile_view.h"
#include "ui/project_document.h"

using servescope::BatchCurve;
using servescope::BlockTable;
using servescope::Duration;
using servescope::GpuShare;
using servescope::GpuSpec;
using servescope::ModelProfile;
using servescope::ProfileForm;
using servescope::Project;
using servescope::ui::MeasuredModel;
using servescope::ui::ProfileModelOutcome;
using servescope::ui::ProjectDocument;

namespace {

const char* const kDevice = "cpu-test-4t";

BatchCurve curve(const std::vector<int>& us) {
  std::vector<Duration> latency;
  for (const int v : us)
    latency.push_back(Duration::microseconds(v));
  return BatchCurve({1, 2, 4}, latency);
}

// A two-block model as the profiler writes it: per share, medians and (when `spread`) 99th
// percentiles.
ModelProfile measured_profile(const std::string& name, bool spread) {
  ModelProfile p;
  p.name = name;
  p.form = ProfileForm::Blocks;
  p.block_count = 2;
  p.boundary_bytes = {4096};
  p.default_slo = Duration::milliseconds(50);
  for (const int s : {1, 2}) {
    BlockTable t;
    t.gpu = kDevice;
    t.share = GpuShare::mps(s);
    t.blocks = {curve({100 * s, 180 * s, 330 * s}), curve({50 * s, 90 * s, 160 * s})};
    if (spread) t.p99 = {curve({130 * s, 230 * s, 400 * s}), curve({70 * s, 120 * s, 200 * s})};
    p.block_tables.push_back(std::move(t));
  }
  return p;
}

GpuSpec device() {
  GpuSpec d;
  d.id = kDevice;
  d.name = "Test CPU, 4 threads";
  d.architecture = "cpu";
  return d;
}

MeasuredModel measured(const std::string& name, bool spread = true) {
  MeasuredModel m;
  m.profiles.name = name;
  m.profiles.models.push_back(measured_profile(name, spread));
  m.profiles.contention.push_back(
      {kDevice, {{servescope::GpuShare::mps(2), 1, 2, 1.5, 40}}, "servescope-cli profile, " + name, ""});
  m.devices.push_back(device());
  return m;
}

std::unique_ptr<Project> demo() {
  return std::make_unique<Project>(servescope::load_project("builtin:projects/demo.json"));
}

// The profiler's two output files for `name`, as `servescope-cli profile -o --scenario-out`
// writes them.
void write_outputs(const QTemporaryDir& dir, const std::string& name) {
  const auto m = measured(name);
  servescope::save_profiles(dir.filePath(QStringLiteral("fixture-profiles.json")).toStdString(), m.profiles);
  servescope::Scenario s;
  s.name = name;
  s.custom_gpus = m.devices;
  s.cluster.name = "one";
  s.profiles = m.profiles;
  servescope::save_scenario(dir.filePath(QStringLiteral("fixture-scenario.json")).toStdString(), s);
}

// A stand-in for servescope-cli: `body` runs after the arguments are saved to args.txt and
// $out/$scenario are set from -o and --scenario-out.
QString write_profiler(const QTemporaryDir& dir, const QString& body) {
  const auto path = dir.filePath(QStringLiteral("fake-servescope-cli"));
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(QStringLiteral("#!/bin/sh\n"
                         "printf '%s\\n' \"$@\" > '%1'\n"
                         "out=; scenario=\n"
                         "while [ $# -gt 0 ]; do\n"
                         "  case \"$1\" in -o) out=$2; shift ;; --scenario-out) scenario=$2; shift ;; esac\n"
                         "  shift\n"
                         "done\n")
              .arg(dir.filePath(QStringLiteral("args.txt")))
              .toUtf8());
  f.write(body.toUtf8());
  f.close();
  f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
  return path;
}

QString succeeding_body(const QTemporaryDir& dir) {
  return QStringLiteral(
             "echo 'profiling tinynet: 0/6 block 0, batch 1, share 1/1' >&2\n"
             "echo 'warning: not a progress line' >&2\n"
             "echo 'profiling tinynet: 3/6 whole model, batch 1, share 1/1' >&2\n"
             "echo 'profiling tinynet: 6/6 done' >&2\n"
             "echo 'timed 6 entries; 1 stopped with the median s 95 % interval wider than ±2.0 %'\n"
             "echo '1 entry s runs fell in two modes, so its median can move between profiles of this machine:'\n"
             "echo '  block 0, batch 1, share 1: 2.670 and 4.650 ms (40 % of runs in the slower)'\n"
             "cp '%1' \"$out\" && cp '%2' \"$scenario\"\n")
      .arg(dir.filePath(QStringLiteral("fixture-profiles.json")),
           dir.filePath(QStringLiteral("fixture-scenario.json")));
}

// A model folder as the dialog checks it: the manifest's presence (the profiler reads it).
QString model_folder(const QTemporaryDir& dir) {
  const auto folder = dir.filePath(QStringLiteral("tinynet"));
  QDir().mkpath(folder);
  QFile f(QDir(folder).filePath(QStringLiteral("servescope-model.json")));
  if (f.open(QIODevice::WriteOnly)) f.write("{}");
  return folder;
}

struct JobResult {
  std::vector<servescope::ui::ProfileProgressLine> progress;
  std::optional<ProfileModelOutcome> outcome;
};

void collect(servescope::ui::ProfileModelJob& job, JobResult& into) {
  QObject::connect(&job, &servescope::ui::ProfileModelJob::progressed,
                   [&into](const servescope::ui::ProfileProgressLine& line) { into.progress.push_back(line); });
  QObject::connect(&job, &servescope::ui::ProfileModelJob::finished,
                   [&into](const ProfileModelOutcome& outcome) { into.outcome = outcome; });
}

// Generous: the stand-ins end at once, or on cancel within the kill delay.
constexpr int kWaitMs = 30'000;

}  // namespace

class TestProfileModel : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { QCoreApplication::setApplicationName(QStringLiteral("servescope-tests")); }

  void progressLinesAreParsedAndOthersIgnored() {
    using servescope::ui::parse_profile_progress;
    const auto first = parse_profile_progress(QStringLiteral("profiling resnet18: 0/44 block 0, batch 1, share 1/1"));
    QVERIFY(first);
    QCOMPARE(first->model, QStringLiteral("resnet18"));
    QCOMPARE(first->done, qint64{0});
    QCOMPARE(first->total, qint64{44});
    QCOMPARE(first->what, QStringLiteral("block 0, batch 1, share 1/1"));
    const auto last = parse_profile_progress(QStringLiteral("profiling resnet18: 44/44 done\n"));
    QVERIFY(last);
    QCOMPARE(last->done, qint64{44});
    QCOMPARE(last->what, QStringLiteral("done"));
    // A name holding ": " and a line without a description still parse.
    const auto odd = parse_profile_progress(QStringLiteral("profiling my: net: 5/10"));
    QVERIFY(odd);
    QCOMPARE(odd->model, QStringLiteral("my: net"));
    QCOMPARE(odd->done, qint64{5});
    QVERIFY(odd->what.isEmpty());
    for (const auto* bad : {"", "error: --batches: '0' is not N or N-M", "profiling resnet18: a/44 block 0",
                            "profiling resnet18: 45/44 block 0", "profiling resnet18: 1/0", "profiling resnet18 1/44",
                            "profiling : 1/44", "profiling resnet18: 1/", "profiling resnet18: 99999999999999999999/1",
                            "device type cpu-x-4t (CPU)", "  profiling resnet18: 1 /44"})
      QVERIFY2(!parse_profile_progress(QString::fromUtf8(bad)), bad);
  }

  void reportNotesKeepWideAndTwoModeEntriesOnly() {
    using servescope::ui::profile_report_notes;
    const auto notes = profile_report_notes(QStringLiteral(
        "device type cpu-x-2t (X, 2 threads)\n"
        "sum of the blocks' medians against the whole model's:\n"
        "  share 1, batch 1: 12.484 ms vs 14.144 ms (-11.7 %)\n"
        "timed 80 entries; 35 stopped with the median's 95 % interval wider than ±2.0 % (widest ±31.8 %)\n"
        "2 entries' runs fell in two modes, so their medians can move between profiles of this machine:\n"
        "  block 0, batch 1, share 1: 1.747 and 2.504 ms (48 % of runs in the slower)\n"
        "  block 1, batch 2, share 1: 2.036 and 4.028 ms (68 % of runs in the slower)\n"
        "default SLO 70.720 ms: 5.0 x the whole model's median at batch 1\n"));
    QCOMPARE(notes.size(), 2);
    QVERIFY(notes[0].startsWith(QStringLiteral("timed 80 entries; 35 stopped")));
    QCOMPARE(notes[1].split(QLatin1Char('\n')).size(), 3);
    QVERIFY(notes[1].endsWith(QStringLiteral("2.036 and 4.028 ms (68 % of runs in the slower)")));
    // A report where every entry settled says nothing.
    QVERIFY(profile_report_notes(QStringLiteral("timed 12 entries\ndefault SLO 1.000 ms\n")).isEmpty());
    QVERIFY(profile_report_notes(QString()).isEmpty());
  }

  void measuredModelIsAddedInOneUndoableStep() {
    ProjectDocument doc;
    doc.reset(demo(), QStringLiteral("builtin:projects/demo.json"));
    const Project before = *doc.project();
    QCOMPARE(servescope::ui::add_measured_model(doc, measured("tinynet"), QStringLiteral("Profile tinynet")),
             QString());
    const Project after = *doc.project();
    QCOMPARE(doc.undo_stack()->count(), 1);
    QVERIFY(after.scenario.profiles.find("tinynet"));
    QVERIFY(after.scenario.profiles.find("tinynet")->origin.empty());  // the project's own, editable
    QCOMPARE(after.scenario.custom_gpus.size(), before.scenario.custom_gpus.size() + 1);
    QCOMPARE(after.scenario.custom_gpus.back(), device());
    // The slots' contention measured with it joins the project too, as its own.
    QCOMPARE(after.scenario.profiles.contention_on(kDevice).slowdown(servescope::GpuShare::mps(2), 1, 2), 1.5);
    QVERIFY(after.scenario.profiles.contention.back().origin.empty());
    QVERIFY(servescope::check_scenario(after.scenario).empty());

    doc.undo_stack()->undo();
    QVERIFY(*doc.project() == before);
    doc.undo_stack()->redo();
    QVERIFY(*doc.project() == after);

    // The same model again is refused and changes nothing; another on the same CPU reuses its
    // device type rather than defining it twice.
    QVERIFY(servescope::ui::add_measured_model(doc, measured("tinynet"), QStringLiteral("again"))
                .contains(QStringLiteral("already has a model named tinynet")));
    QCOMPARE(doc.undo_stack()->count(), 1);
    QCOMPARE(servescope::ui::add_measured_model(doc, measured("othernet"), QStringLiteral("other")), QString());
    QCOMPARE(doc.project()->scenario.custom_gpus.size(), after.scenario.custom_gpus.size());
    doc.undo_stack()->undo();
    doc.undo_stack()->undo();
    QVERIFY(*doc.project() == before);
  }

  void outputFilesAreReadWithTheirDeviceType() {
    QTemporaryDir dir;
    write_outputs(dir, "tinynet");
    const auto read = servescope::ui::read_measured_model(dir.filePath(QStringLiteral("fixture-profiles.json")),
                                                          dir.filePath(QStringLiteral("fixture-scenario.json")));
    QCOMPARE(read.profiles.models.size(), std::size_t{1});
    QVERIFY(read.profiles.models.front() == measured_profile("tinynet", true));
    QCOMPARE(read.devices.size(), std::size_t{1});
    QCOMPARE(read.devices.front(), device());
    // A scenario without the device type the profile names is refused, naming it.
    servescope::Scenario empty;
    empty.name = "empty";
    empty.cluster.name = "none";
    servescope::save_scenario(dir.filePath(QStringLiteral("empty.json")).toStdString(), empty);
    try {
      (void)servescope::ui::read_measured_model(dir.filePath(QStringLiteral("fixture-profiles.json")),
                                                dir.filePath(QStringLiteral("empty.json")));
      QFAIL("a profile of an unknown device type was read");
    } catch (const servescope::QueryError& e) {
      QVERIFY(QString::fromUtf8(e.what()).contains(QString::fromUtf8(kDevice)));
    }
  }

  void profileViewDrawsABandOnlyForAMeasuredSpread() {
    ProjectDocument doc;
    auto project = std::make_unique<Project>();
    project->name = "bands";
    project->scenario.cluster.name = "none";
    doc.reset(std::move(project), QString());
    QCOMPARE(servescope::ui::add_measured_model(doc, measured("spread", true), QStringLiteral("a")), QString());
    QCOMPARE(servescope::ui::add_measured_model(doc, measured("medians", false), QStringLiteral("b")), QString());
    servescope::ui::ProfileView view(&doc);
    const auto band_legends = [&view] {
      int n = 0;
      for (auto* chart_view : view.findChildren<QChartView*>())
        for (auto* marker : chart_view->chart()->legend()->markers())
          if (marker->isVisible() && marker->label() == QStringLiteral("p50–p99 (measured)")) ++n;
      return n;
    };
    view.show_model(0);
    QCOMPARE(view.curve_count(), 2);  // the medians of shares 1 and 1/2
    QCOMPARE(view.band_count(), 2);
    QCOMPARE(band_legends(), 1);  // one legend entry for every band
    view.show_model(1);
    QCOMPARE(view.curve_count(), 2);
    QCOMPARE(view.band_count(), 0);
    QCOMPARE(band_legends(), 0);
  }

  void runnerReadsTheProfilersFiles() {
    QTemporaryDir dir;
    write_outputs(dir, "tinynet");
    servescope::ui::ProfileModelJob job(write_profiler(dir, succeeding_body(dir)));
    JobResult result;
    collect(job, result);
    servescope::ui::ProfileModelRequest request;
    request.folder = model_folder(dir);
    request.batches = QStringLiteral("1,2,4");
    request.shares = QStringLiteral("1,2");
    request.repeat = 7;
    QVERIFY(job.start(request));
    QVERIFY(!job.start(request));  // one run at a time
    QTRY_VERIFY_WITH_TIMEOUT(result.outcome.has_value(), kWaitMs);
    QVERIFY(!job.running());
    QCOMPARE(result.outcome->status, ProfileModelOutcome::Status::Measured);
    QVERIFY(result.outcome->measured.profiles.models.front() == measured_profile("tinynet", true));
    QCOMPARE(result.outcome->measured.devices.front(), device());
    QCOMPARE(result.progress.size(), std::size_t{3});
    QCOMPARE(result.progress.back().done, qint64{6});
    // What the report says of the measurement reaches the Log beside the profile.
    const auto& warnings = result.outcome->measured.warnings;
    QCOMPARE(warnings.size(), std::size_t{2});
    QVERIFY(QString::fromStdString(warnings[0]).startsWith(QStringLiteral("timed 6 entries; 1 stopped")));
    QCOMPARE(QString::fromStdString(warnings[1]),
             QStringLiteral("1 entry s runs fell in two modes, so its median can move between profiles of this "
                            "machine:\nblock 0, batch 1, share 1: 2.670 and 4.650 ms (40 % of runs in the slower)"));
    QFile args(dir.filePath(QStringLiteral("args.txt")));
    QVERIFY(args.open(QIODevice::ReadOnly));
    const auto argv = QString::fromUtf8(args.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(argv.mid(0, 10),
             (QStringList{QStringLiteral("profile"), request.folder, QStringLiteral("--device"), QStringLiteral("cpu"),
                          QStringLiteral("--batches"), QStringLiteral("1,2,4"), QStringLiteral("--shares"),
                          QStringLiteral("1,2"), QStringLiteral("--repeat"), QStringLiteral("7")}));
    QVERIFY(argv.contains(QStringLiteral("-o")) && argv.contains(QStringLiteral("--scenario-out")));
    // No count: the profiler times each entry until its median is known.
    request.repeat = 0;
    QVERIFY(!servescope::ui::profile_arguments(request, QStringLiteral("p.json"), QStringLiteral("s.json"))
                 .contains(QStringLiteral("--repeat")));
  }

  void failureKeepsTheProfilersLastLines() {
    QTemporaryDir dir;
    servescope::ui::ProfileModelJob job(write_profiler(
        dir, QStringLiteral("echo 'profiling tinynet: 0/6 block 0' >&2\n"
                            "echo 'error: share 1/64 of 4 threads is not a whole number of threads' >&2\n"
                            "exit 2\n")));
    JobResult result;
    collect(job, result);
    QVERIFY(job.start({model_folder(dir)}));
    QTRY_VERIFY_WITH_TIMEOUT(result.outcome.has_value(), kWaitMs);
    QCOMPARE(result.outcome->status, ProfileModelOutcome::Status::Failed);
    QVERIFY(result.outcome->error.contains(QStringLiteral("status 2")));
    QVERIFY(result.outcome->error.contains(QStringLiteral("not a whole number of threads")));
    QVERIFY(!result.outcome->error.contains(QStringLiteral("profiling tinynet")));  // progress is not a reason

    servescope::ui::ProfileModelJob missing(dir.filePath(QStringLiteral("no-such-program")));
    JobResult none;
    collect(missing, none);
    QVERIFY(missing.start({model_folder(dir)}));
    QTRY_VERIFY_WITH_TIMEOUT(none.outcome.has_value(), kWaitMs);
    QCOMPARE(none.outcome->status, ProfileModelOutcome::Status::Failed);
    QVERIFY(none.outcome->error.contains(QStringLiteral("cannot start")));
  }

  void cancelStopsTheProfilerAndKillsOneThatIgnoresIt() {
    QTemporaryDir dir;
    // The first stops on SIGTERM; the second ignores it and is killed.
    for (const auto* body : {"echo 'profiling tinynet: 0/6 block 0' >&2\nexec sleep 600\n",
                             "trap '' TERM\necho 'profiling tinynet: 0/6 block 0' >&2\nwhile :; do sleep 1; done\n"}) {
      servescope::ui::ProfileModelJob job(write_profiler(dir, QString::fromUtf8(body)));
      JobResult result;
      collect(job, result);
      QVERIFY(job.start({model_folder(dir)}));
      QTRY_VERIFY_WITH_TIMEOUT(!result.progress.empty(), kWaitMs);
      job.cancel(100);
      QTRY_VERIFY_WITH_TIMEOUT(result.outcome.has_value(), kWaitMs);
      QCOMPARE(result.outcome->status, ProfileModelOutcome::Status::Cancelled);
      QVERIFY(!job.running());
    }
  }

  void dialogAddsTheMeasuredModelToItsProject() {
    QTemporaryDir dir;
    write_outputs(dir, "tinynet");
    ProjectDocument doc;
    doc.reset(demo(), QStringLiteral("builtin:projects/demo.json"));
    servescope::ui::ProfileModelDialog dialog(&doc, write_profiler(dir, succeeding_body(dir)));
    dialog.set_interactive(false);
    // The form is checked before anything starts.
    QVERIFY(dialog.start().contains(QStringLiteral("choose the model folder")));
    dialog.set_request({dir.path()});
    QVERIFY(dialog.start().contains(QStringLiteral("servescope-model.json")));
    dialog.set_request({model_folder(dir), QStringLiteral("cpu"), QStringLiteral("1..8")});
    QVERIFY(dialog.start().contains(QStringLiteral("batches")));
    QVERIFY(!dialog.running());

    dialog.set_request({model_folder(dir), QStringLiteral("cpu"), QStringLiteral("1 - 4"), QStringLiteral("1, 2")});
    QCOMPARE(dialog.request().batches, QStringLiteral("1-4"));
    QStringList log;
    QObject::connect(&dialog, &servescope::ui::ProfileModelDialog::message, [&log](const QString& m) { log << m; });
    QCOMPARE(dialog.start(), QString());
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.running(), kWaitMs);
    QVERIFY(doc.project()->scenario.profiles.find("tinynet"));
    // The report's word on the measurement reaches the Log: a wide entry, one in two modes.
    QVERIFY2(log.filter(QStringLiteral("warning: timed 6 entries; 1 stopped")).size() == 1,
             qPrintable(log.join(QLatin1Char('|'))));
    QVERIFY2(log.filter(QStringLiteral("fell in two modes")).size() == 1, qPrintable(log.join(QLatin1Char('|'))));
    QCOMPARE(doc.undo_stack()->count(), 1);
    QCOMPARE(doc.undo_stack()->undoText(), QStringLiteral("Profile tinynet on %1").arg(QString::fromUtf8(kDevice)));

    // Measured for a project that was closed meanwhile: not added to the one open now.
    doc.undo_stack()->undo();
    QCOMPARE(dialog.start(), QString());
    doc.reset(demo(), QStringLiteral("builtin:projects/demo.json"));
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.running(), kWaitMs);
    QVERIFY(!doc.project()->scenario.profiles.find("tinynet"));
    QVERIFY(dialog.status_text().contains(QStringLiteral("closed since")));
  }
};

SERVESCOPE_GUI_TEST(tst_profile_model, TestProfileModel)
#include "tst_profile_model.moc"
