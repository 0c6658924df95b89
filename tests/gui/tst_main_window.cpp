// The main window on the offscreen platform: the demo opens, every model passes Qt's model
// checker, selecting an item fills the properties, a broken file leaves the open project alone,
// Save As writes a file that opens again, and unsaved work survives a crash.
#include <QAbstractItemModelTester>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTreeView>

#include "model/io/document.h"
#include "ui/main_window.h"
#include "ui/project_document.h"
#include "ui/project_tree_model.h"

using servescope::ui::MainWindow;
using servescope::ui::ProjectTreeModel;

class TestMainWindow : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setApplicationName(QStringLiteral("servescope-tests"));
    QStandardPaths::setTestModeEnabled(true);  // recovery copies and settings away from the user's
  }

  // Unsaved work autosaved by a session that then died is offered at the next start: opened, it
  // is the same project and still unsaved; discarded, the copy is gone.
  void recoveryAfterACrash() {
    QFile::remove(MainWindow::recovery_path());
    QCOMPARE(MainWindow().offer_recovery(MainWindow::RecoveryChoice::Open), false);  // nothing to recover
    servescope::Project lost;
    {
      MainWindow crashed;
      crashed.set_interactive(false);
      QVERIFY(crashed.open_location(QStringLiteral("builtin:projects/ppipe-demo.json"), false));
      crashed.autosave();  // nothing unsaved: no copy
      QVERIFY(!QFile::exists(MainWindow::recovery_path()));
      QCOMPARE(crashed.document()->rename(QStringLiteral("unsaved work")), QString());
      crashed.autosave();
      lost = *crashed.project();
    }  // destroyed without closing, as a crash leaves it
    QVERIFY(QFile::exists(MainWindow::recovery_path()));
    {
      MainWindow next;
      next.set_interactive(false);
      QVERIFY(next.offer_recovery(MainWindow::RecoveryChoice::Open));
      QVERIFY(*next.project() == lost);
      QVERIFY(next.document()->is_modified());  // a copy: saving asks where
      QVERIFY(next.log_text().contains(QStringLiteral("recovered")));
    }
    MainWindow last;
    QVERIFY(!last.offer_recovery(MainWindow::RecoveryChoice::Discard));
    QVERIFY(!QFile::exists(MainWindow::recovery_path()));
  }

  void opensTheDemo() {
    MainWindow w;
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    auto* model = w.tree_model();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model->rowCount(), ProjectTreeModel::kSectionCount);
    auto section = [&](ProjectTreeModel::Section s) { return model->index(static_cast<int>(s), 0); };
    QCOMPARE(model->rowCount(section(ProjectTreeModel::Section::Cluster)), 1);
    QCOMPARE(model->rowCount(section(ProjectTreeModel::Section::Models)), 37);
    QCOMPARE(model->rowCount(section(ProjectTreeModel::Section::GpuTypes)), 1);
    QCOMPARE(model->rowCount(section(ProjectTreeModel::Section::Workloads)), 2);
    QCOMPARE(model->index(0, 0, section(ProjectTreeModel::Section::Cluster)).data().toString(),
             QStringLiteral("a100 ×8: 8× A100"));
    QVERIFY(w.windowTitle().contains(QStringLiteral("ServeScope demo")));
    QVERIFY(w.details_view()->toPlainText().contains(QStringLiteral("64 GPUs")));
  }

  void selectionShowsDetails() {
    MainWindow w;
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    auto* tree = w.findChild<QTreeView*>(QStringLiteral("projectTree"));
    QVERIFY(tree);
    auto* model = w.tree_model();
    const auto models = model->index(static_cast<int>(ProjectTreeModel::Section::Models), 0);
    tree->setCurrentIndex(model->index(10, 0, models));  // ResNet50 in Table 4 order
    const auto text = w.details_view()->toPlainText();
    QVERIFY2(text.contains(QStringLiteral("ResNet50")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("5.44 ms")), qPrintable(text));  // α + β at batch 1
    const auto apps = model->index(static_cast<int>(ProjectTreeModel::Section::Applications), 0);
    tree->setCurrentIndex(model->index(0, 0, apps));
    QVERIFY(w.details_view()->toPlainText().contains(QStringLiteral("detect → vehicle")));
  }

  void brokenFileKeepsTheCurrentProject() {
    QTemporaryDir dir;
    const auto path = dir.filePath(QStringLiteral("broken.json"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"schema_version\": 1, \"kind\": \"project\", \"name\": 5}");
    f.close();
    MainWindow w;
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    QVERIFY(!w.open_location(path, false));
    QCOMPARE(QString::fromStdString(w.project()->name), QStringLiteral("ServeScope demo"));
    QVERIFY2(w.log_text().contains(QStringLiteral("$.name: expected a string")), qPrintable(w.log_text()));
  }

  void saveAsRoundTrips() {
    QTemporaryDir dir;
    MainWindow w;
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    const auto path = dir.filePath(QStringLiteral("copy.json"));
    QVERIFY(w.save_to(path, false));
    MainWindow again;
    QVERIFY(again.open_location(path, false));
    QVERIFY(*again.project() == *w.project());
  }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
