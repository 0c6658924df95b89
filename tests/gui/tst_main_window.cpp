// The main window on the offscreen platform: the demo opens, every model passes Qt's model
// checker, selecting an item fills the properties, a broken file leaves the open project alone,
// and Save As writes a file that opens again.
#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTreeView>

#include "model/io/document.h"
#include "ui/main_window.h"
#include "ui/project_tree_model.h"

using servescope::ui::MainWindow;
using servescope::ui::ProjectTreeModel;

class TestMainWindow : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { QCoreApplication::setApplicationName(QStringLiteral("servescope-tests")); }

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
