// The undoable project document: every edit is checked before it lands, a refused edit changes
// nothing and names the problem, and editing → undo → redo returns the same documents; the
// window flags unsaved changes in its title and a save clears the flag.
#include <QAction>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "model/io/document.h"
#include "tests/gui/gui_fixture.h"
#include "tests/gui/gui_test_main.h"
#include "ui/main_window.h"
#include "ui/project_document.h"

using servescope::Application;
using servescope::AppModule;
using servescope::Project;
using servescope::ui::MainWindow;
using servescope::ui::ProjectDocument;

class TestProjectDocument : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { QCoreApplication::setApplicationName(QStringLiteral("servescope-tests")); }

  void editUndoRedoRoundTrips() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    auto* doc = w.document();
    const Project original = *doc->project();
    QVERIFY(!doc->is_modified());

    // Three edits of three kinds: a node, an application, the name.
    auto cluster = original.scenario.cluster;
    auto node = cluster.nodes.front();
    node.name = "extra";
    node.count = 2;
    cluster.nodes.push_back(node);
    QCOMPARE(doc->set_cluster(cluster, QStringLiteral("Add node extra")), QString());
    auto app = original.scenario.applications.front();
    app.slo = app.slo + servescope::Duration::milliseconds(50);
    QCOMPARE(doc->set_application(0, app, QStringLiteral("Set SLO of traffic")), QString());
    QCOMPARE(doc->rename(QStringLiteral("edited")), QString());
    const Project edited = *doc->project();
    QVERIFY(doc->is_modified());
    QCOMPARE(edited.scenario.cluster.nodes.size(), original.scenario.cluster.nodes.size() + 1);
    QVERIFY(w.isWindowModified());
    QCOMPARE(doc->undo_stack()->undoText(), QStringLiteral("Rename project to edited"));

    for (int k = 0; k < 3; ++k)
      doc->undo_stack()->undo();
    QVERIFY(*doc->project() == original);
    QVERIFY(!doc->is_modified());
    for (int k = 0; k < 3; ++k)
      doc->undo_stack()->redo();
    QVERIFY(*doc->project() == edited);
  }

  void invalidEditsAreRefusedWithTheReason() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    auto* doc = w.document();
    const Project original = *doc->project();
    auto cluster = original.scenario.cluster;
    cluster.nodes.front().gpu = "NoSuchGPU";
    const auto why = doc->set_cluster(cluster, QStringLiteral("Set GPU type"));
    QVERIFY2(why.contains(QStringLiteral("$.cluster.nodes[0]")), qPrintable(why));
    QVERIFY2(why.contains(QStringLiteral("NoSuchGPU")), qPrintable(why));
    // A module that runs a model nobody profiled.
    auto app = original.scenario.applications.front();
    app.modules.push_back(AppModule{"ghost", servescope::ModuleKind::Dnn, "NoSuchModel", {}, 1});
    QVERIFY(!doc->set_application(0, app, QStringLiteral("Add module ghost")).isEmpty());
    QVERIFY(!doc->rename(QStringLiteral("  ")).isEmpty());
    QVERIFY(*doc->project() == original);
    QCOMPARE(doc->undo_stack()->count(), 0);
    QVERIFY(!doc->is_modified());
  }

  void importsJoinTheProjectUndoably() {
    QTemporaryDir dir;
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    const auto models = w.project()->scenario.profiles.models.size();
    const auto csv = servescope::test::write_alphabeta_csv(dir);
    QCOMPARE(w.import_profiles(MainWindow::ImportKind::AlphaBeta, {csv}), QString());
    QCOMPARE(w.project()->scenario.profiles.models.size(), models + 1);
    QVERIFY(w.project()->scenario.profiles.find("newnet"));
    // The same model again is refused; a file that is not a table says where it is wrong.
    QVERIFY(w.import_profiles(MainWindow::ImportKind::AlphaBeta, {csv}).contains(QStringLiteral("newnet")));
    QVERIFY(!w.import_profiles(MainWindow::ImportKind::Nexus, {dir.filePath(QStringLiteral("missing.txt"))}).isEmpty());
    w.document()->undo_stack()->undo();
    QCOMPARE(w.project()->scenario.profiles.models.size(), models);
  }

  void saveClearsTheModifiedFlag() {
    QTemporaryDir dir;
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    QCOMPARE(w.document()->rename(QStringLiteral("renamed")), QString());
    QVERIFY(w.windowTitle().contains(QStringLiteral("renamed")));
    QVERIFY(w.isWindowModified());
    const auto path = dir.filePath(QStringLiteral("saved.json"));
    QVERIFY(w.save_to(path, false));
    QVERIFY(!w.isWindowModified());
    QCOMPARE(w.location(), path);
    // Undo after saving makes the document differ from the file again.
    w.document()->undo_stack()->undo();
    QVERIFY(w.isWindowModified());
    MainWindow again;
    QVERIFY(again.open_location(path, false));
    QCOMPARE(again.project()->name, std::string("renamed"));
  }
};

SERVESCOPE_GUI_TEST(tst_project_document, TestProjectDocument)
#include "tst_project_document.moc"
