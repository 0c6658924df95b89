// The GUI against the corpus of crash and hang inputs (tests/corpus/bad_inputs, and the huge and
// deep files generated from it here): each is opened through File → Open's path
// (MainWindow::open_location, as `servescope FILE` does) and each run-like one through File →
// Import run. The window must survive, refuse the file with an error in the log that names it,
// and keep the project it had open. One row per file, so one failure does not hide the others.
// A kept run whose packed timeline is a bomb is refused when the Run tab shows it.
#include <fcntl.h>
#include <unistd.h>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <exception>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/stat.h>

#include "model/io/document.h"
#include "resources/builtin_resources.h"
#include "tests/gui/gui_test_main.h"
#include "tests/support/timeline_bomb.h"
#include "ui/main_window.h"
#include "ui/project_document.h"
#include "ui/run_view.h"

using servescope::ui::MainWindow;

namespace {

constexpr auto kPrevious = "builtin:projects/demo.json";

void write_file(const QString& path, const std::string& text) {
  std::ofstream f(path.toStdString(), std::ios::binary);
  f.write(text.data(), static_cast<std::streamsize>(text.size()));
}

// The built-in ppipe-demo project with one plan or run whose body holds `deep` in a member.
std::string project_with_deep(const std::string& where, const std::string& deep) {
  auto project = std::string(*servescope::resources::find_builtin_resource("projects/ppipe-demo.json"));
  project.resize(project.rfind('}'));
  const std::string kind = where == "plans" ? "pipeline-plan" : "run-result";
  const std::string artifact = R"([{"name": "deep", "system": "ppipe", "created_utc": "", "body": {"kind": ")" + kind +
                               R"(", "notes": [)" + deep + "]}}]";
  project += std::string(", \"plans\": ") + (where == "plans" ? artifact : "[]");
  project += std::string(", \"runs\": ") + (where == "runs" ? artifact : "[]");
  return project + "}\n";
}

}  // namespace

class TestBadFiles : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setApplicationName(QStringLiteral("servescope-tests"));
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
    // The corpus, beside the FIFO its files include as "fifo".
    const QDir corpus(QStringLiteral(SERVESCOPE_CORPUS_DIR));
    for (const auto& name : corpus.entryList(QDir::Files, QDir::Name)) {
      if (name.endsWith(QStringLiteral(".md"))) continue;
      QVERIFY(QFile::copy(corpus.filePath(name), dir_.filePath(name)));
      corpus_files_ << dir_.filePath(name);
    }
    QVERIFY(corpus_files_.size() >= 20);
    QCOMPARE(::mkfifo(QFile::encodeName(dir_.filePath(QStringLiteral("fifo"))).constData(), 0600), 0);
    // Standard input: a pipe whose writer stays open and never writes (a blocking read never ends).
    int fds[2];
    QCOMPARE(::pipe(fds), 0);
    QVERIFY(::dup2(fds[0], 0) == 0);
    ::close(fds[0]);
    stdin_writer_ = fds[1];

    // Too big for the repository: generated.
    for (const std::size_t depth : {std::size_t{100000}, std::size_t{1000000}}) {
      const auto arrays = std::string(depth, '[') + std::string(depth, ']');
      for (const std::string where : {"plans", "runs"}) {
        const auto path = dir_.filePath(QString::fromStdString(where + "-deep-" + std::to_string(depth) + ".json"));
        write_file(path, project_with_deep(where, arrays));
        generated_ << path;
      }
    }
    std::string objects;
    for (int i = 0; i < 100000; ++i)
      objects += R"({"a": )";
    objects += "0" + std::string(100000, '}');
    generated_ << dir_.filePath(QStringLiteral("runs-deep-objects.json"));
    write_file(generated_.back(), project_with_deep("runs", objects));
    deep_top_ = dir_.filePath(QStringLiteral("deep-top.json"));
    write_file(deep_top_, std::string(1000000, '[') + std::string(1000000, ']'));
    deep_run_ = dir_.filePath(QStringLiteral("deep-run.json"));
    write_file(deep_run_, R"({"schema_version": 1, "kind": "run-result", "summary": )" + std::string(100000, '[') +
                              std::string(100000, ']') + "}");
    huge_ = dir_.filePath(QStringLiteral("arrays-50MB.json"));
    {
      std::ofstream f(huge_.toStdString(), std::ios::binary);
      std::string chunk;
      for (int i = 0; i < 4096; ++i)
        chunk += "[],";
      f << "[";
      for (std::size_t written = 0; written < 50'000'000; written += chunk.size())
        f << chunk;
      f << "[]]";
    }
    generated_ << deep_top_ << deep_run_ << huge_;
    bomb_ = dir_.filePath(QStringLiteral("timeline-bomb.json"));
    write_file(bomb_, servescope::test::packed_timeline_bomb().dump());
  }

  void cleanupTestCase() {
    if (stdin_writer_ >= 0) ::close(stdin_writer_);
  }

  void opensNoBadFile_data() {
    QTest::addColumn<QString>("path");
    for (const auto& path : corpus_files_ + generated_)
      QTest::newRow(qPrintable(QFileInfo(path).fileName())) << path;
    add_device_rows();
  }

  // File → Open (and `servescope FILE`): refused, logged with the file's name, the project kept.
  void opensNoBadFile() {
    QFETCH(QString, path);
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QString::fromLatin1(kPrevious), false));
    const servescope::Project before = *w.project();
    bool opened = true;
    try {
      opened = w.open_location(path, false);
    } catch (const std::exception& e) {
      QFAIL(qPrintable(QStringLiteral("an exception escaped open_location: %1").arg(QString::fromUtf8(e.what()))));
    }
    QCoreApplication::processEvents();
    QVERIFY2(!opened, qPrintable(QStringLiteral("opened %1").arg(path)));
    QVERIFY2(*w.project() == before, "the project open before was changed");
    QCOMPARE(w.location(), QString::fromLatin1(kPrevious));
    QVERIFY(!w.document()->is_modified());
    const auto log = w.log_text();
    QVERIFY2(log.contains(QStringLiteral("error:")), qPrintable(log.right(2000)));
    QVERIFY2(log.contains(QFileInfo(path).fileName()), qPrintable(log.right(2000)));
  }

  void importsNoBadRun_data() {
    QTest::addColumn<QString>("path");
    for (const auto& path : corpus_files_) {
      const auto name = QFileInfo(path).fileName();
      if (name.startsWith(QStringLiteral("run_")) || name.startsWith(QStringLiteral("timeline_")) ||
          name.startsWith(QStringLiteral("plan_")))
        QTest::newRow(qPrintable(name)) << path;
    }
    for (const auto& path : {deep_top_, deep_run_, huge_, bomb_})
      QTest::newRow(qPrintable(QFileInfo(path).fileName())) << path;
    add_device_rows();
  }

  // File → Import run: refused with a reason naming the file; the project's runs unchanged.
  void importsNoBadRun() {
    QFETCH(QString, path);
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QString::fromLatin1(kPrevious), false));
    const auto runs = w.project()->runs.size();
    QString why;
    try {
      why = w.import_run(path);
    } catch (const std::exception& e) {
      QFAIL(qPrintable(QStringLiteral("an exception escaped import_run: %1").arg(QString::fromUtf8(e.what()))));
    }
    QCoreApplication::processEvents();
    QVERIFY2(!why.isEmpty(), qPrintable(QStringLiteral("imported %1").arg(path)));
    QVERIFY2(why.contains(QFileInfo(path).fileName()), qPrintable(why.left(2000)));
    QCOMPARE(w.project()->runs.size(), runs);
  }

  // A project that keeps a run whose packed timeline is the bomb opens (its timelines are read
  // when shown); the Run tab refuses to show it, saying why, instead of taking gigabytes.
  void aKeptBombRunIsRefusedWhenShown() {
    QFile corpus_run(QStringLiteral(SERVESCOPE_CORPUS_DIR "/run_beyond_double.json"));
    QVERIFY(corpus_run.open(QIODevice::ReadOnly));
    auto run = nlohmann::json::parse(corpus_run.readAll().replace("1e400", "3").toStdString());
    run["timeline"] = servescope::test::packed_timeline_bomb();
    auto project = nlohmann::json::parse(*servescope::resources::find_builtin_resource("projects/demo.json"));
    project["runs"] = nlohmann::json::array(
        {{{"name", "bomb"}, {"system", "symphony"}, {"created_utc", "2026-01-01T00:00:00Z"}, {"body", run}}});
    const auto path = dir_.filePath(QStringLiteral("project-bomb.json"));
    write_file(path, project.dump());
    MainWindow w;
    w.set_interactive(false);
    QVERIFY2(w.open_location(path, false), qPrintable(w.log_text()));
    QVERIFY(!w.run_view()->show_run(QStringLiteral("bomb")));
    QVERIFY2(w.run_view()->status_text().contains(QStringLiteral("the packed tables declare")),
             qPrintable(w.run_view()->status_text()));
  }

 private:
  // Devices and a FIFO given as the file: both paths refuse them as not regular files.
  void add_device_rows() {
    for (const auto* device : {"/dev/zero", "/dev/null", "/dev/stdin"})
      QTest::newRow(device) << QString::fromLatin1(device);
    QTest::newRow("fifo") << dir_.filePath(QStringLiteral("fifo"));
  }

  QTemporaryDir dir_;
  QStringList corpus_files_, generated_;
  QString deep_top_, deep_run_, huge_, bomb_;
  int stdin_writer_ = -1;
};

SERVESCOPE_GUI_TEST(tst_bad_files, TestBadFiles)
#include "tst_bad_files.moc"
