// The DAG editor on the offscreen platform: it draws the selected application in layers, a drag
// from one module's output port onto another connects them through the undo stack, refused
// edits (a cycle) change nothing and say why, and Delete removes a module with its edges. A new
// project gets its first application from Edit → New application (or the tab's button), and a
// renamed application keeps the workloads that send to it; both undo.
#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGraphicsItem>
#include <QGraphicsView>
#include <QLineEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QTest>
#include <QTreeView>

#include "tests/gui/gui_test_main.h"
#include "ui/cluster_editor.h"
#include "ui/dag_editor.h"
#include "ui/main_window.h"
#include "ui/project_document.h"
#include "ui/project_tree_model.h"
#include "ui/workload_dialog.h"

using servescope::ui::DagEditor;
using servescope::ui::MainWindow;
using servescope::ui::ProjectTreeModel;

class TestDagEditor : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { QCoreApplication::setApplicationName(QStringLiteral("servescope-tests")); }

  void aNewProjectGetsAnApplicationToDraw() {
    MainWindow w;
    w.set_interactive(false);
    w.new_project();
    QVERIFY(w.project()->scenario.applications.empty());
    auto* dag = w.dag_editor();
    QVERIFY(!dag->add_module(QStringLiteral("x")).isEmpty());  // nothing to add it to yet
    QVERIFY(dag->last_refusal().contains(QStringLiteral("New application")));
    // With nothing to edit, the tab offers New application and no controls that edit nothing.
    auto* slo = dag->findChild<QWidget*>(QStringLiteral("dagSlo"));
    QVERIFY(slo && slo->isHidden());
    QVERIFY(dag->findChild<QWidget*>(QStringLiteral("dagRateScale"))->isHidden());
    QVERIFY(!dag->findChild<QWidget*>(QStringLiteral("dagNewApplication"))->isHidden());

    // The tab's button and the context menu reach the same action as the Edit menu.
    auto* action = w.findChild<QAction*>(QStringLiteral("newApplicationAction"));
    QVERIFY(action);
    QVERIFY(w.findChild<QPushButton*>(QStringLiteral("dagNewApplication")));
    QCOMPARE(w.new_application(QStringLiteral("pipeline")), QString());
    const auto& apps = w.project()->scenario.applications;
    QCOMPARE(apps.size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(apps[0].name), QStringLiteral("pipeline"));
    QCOMPARE(apps[0].modules.size(), std::size_t{1});
    QCOMPARE(dag->application(), 0);  // selected and shown
    QVERIFY(!slo->isHidden());
    QCOMPARE(w.findChild<QTabWidget*>(QStringLiteral("centralTabs"))->currentWidget(), dag);
    QCOMPARE(dag->add_cpu_step(2.0), QString());
    QCOMPARE(w.project()->scenario.applications[0].modules.size(), std::size_t{2});

    // A blank name takes the next free one; a taken one is refused with the reason.
    QCOMPARE(w.new_application({}), QString());
    QCOMPARE(QString::fromStdString(w.project()->scenario.applications[1].name), QStringLiteral("application"));
    QVERIFY(!w.new_application(QStringLiteral("pipeline")).isEmpty());
    QCOMPARE(w.project()->scenario.applications.size(), std::size_t{2});
    auto* undo = w.document()->undo_stack();
    undo->undo();
    undo->undo();
    undo->undo();
    QVERIFY(w.project()->scenario.applications.empty());
  }

  void aRenamedApplicationKeepsItsWorkloads() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/cost-demo.json"), false));
    auto* tree = w.findChild<QTreeView*>(QStringLiteral("projectTree"));
    auto* model = w.tree_model();
    const auto apps = model->index(static_cast<int>(ProjectTreeModel::Section::Applications), 0);
    QVERIFY(!w.rename_selected(QStringLiteral("doorbell")).isEmpty());  // nothing selected
    tree->setCurrentIndex(model->index(0, 0, apps));
    const auto before = w.project()->scenario;
    QCOMPARE(w.rename_selected(QStringLiteral("doorbell")), QString());
    const auto& s = w.project()->scenario;
    QCOMPARE(QString::fromStdString(s.applications[0].name), QStringLiteral("doorbell"));
    QCOMPARE(QString::fromStdString(s.workloads[0].targets[0].name), QStringLiteral("doorbell"));
    QCOMPARE(tree->currentIndex().data().toString(), QStringLiteral("doorbell"));
    w.document()->undo_stack()->undo();
    QVERIFY(w.project()->scenario == before);
  }

  void selectingAnApplicationDrawsItInLayers() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    auto* tree = w.findChild<QTreeView*>(QStringLiteral("projectTree"));
    auto* model = w.tree_model();
    const auto apps = model->index(static_cast<int>(ProjectTreeModel::Section::Applications), 0);
    tree->setCurrentIndex(model->index(0, 0, apps));
    auto* dag = w.dag_editor();
    QCOMPARE(dag->application(), 0);
    const auto& app = w.project()->scenario.applications[0];
    for (const auto& e : app.edges) {
      const auto from = dag->module_center(QString::fromStdString(e.from));
      const auto to = dag->module_center(QString::fromStdString(e.to));
      QVERIFY(from && to);
      QVERIFY2(from->y() < to->y(), qPrintable(QString::fromStdString(e.from + " above " + e.to)));
    }
  }

  void dragConnectsAndUndoDisconnects() {
    MainWindow w;
    w.set_interactive(false);
    w.resize(1200, 800);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    auto* dag = w.dag_editor();
    dag->show_application(0);
    const auto& before = w.project()->scenario.applications[0];
    const auto edges = before.edges.size();
    QCOMPARE(dag->add_module(QStringLiteral("ResNet50")), QString());
    const QString added = QString::fromStdString(w.project()->scenario.applications[0].modules.back().id);
    const QString source = QString::fromStdString(before.modules.front().id);

    // Drag from the source's output port onto the new module, as a user would.
    w.show();
    auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("centralTabs"));
    tabs->setCurrentWidget(dag);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* view = dag->view();
    view->ensureVisible(dag->scene()->sceneRect());
    const QPoint press = view->mapFromScene(dag->output_port(source));
    const QPoint release = view->mapFromScene(*dag->module_center(added));
    QTest::mousePress(view->viewport(), Qt::LeftButton, {}, press);
    QTest::mouseMove(view->viewport(), (press + release) / 2);
    QTest::mouseMove(view->viewport(), release);
    QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, release);
    QCOMPARE(w.project()->scenario.applications[0].edges.size(), edges + 1);
    QCOMPARE(w.document()->undo_stack()->undoText(), QStringLiteral("Connect %1 → %2").arg(source, added));
    const auto dir = qEnvironmentVariable("SERVESCOPE_SCREENSHOTS_DIR");
    if (!dir.isEmpty()) QVERIFY(w.grab().save(dir + QStringLiteral("/dag-editor.png")));

    // The reverse edge would close a cycle: refused with the reason, nothing changes.
    const auto why = dag->connect_modules(added, source);
    QVERIFY2(why.contains(QStringLiteral("cycle")), qPrintable(why));
    QCOMPARE(w.project()->scenario.applications[0].edges.size(), edges + 1);
    QVERIFY(w.log_text().contains(QStringLiteral("refused")));

    w.document()->undo_stack()->undo();
    QCOMPARE(w.project()->scenario.applications[0].edges.size(), edges);
    w.document()->undo_stack()->undo();
    QVERIFY(w.project()->scenario.applications[0] == before);
  }

  void deleteRemovesTheSelectedModuleWithItsEdges() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    auto* dag = w.dag_editor();
    dag->show_application(0);
    const auto before = w.project()->scenario.applications[0];
    const QString victim = QString::fromStdString(before.edges.front().to);
    w.show();
    w.findChild<QTabWidget*>(QStringLiteral("centralTabs"))->setCurrentWidget(dag);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    for (auto* item : dag->scene()->items())
      if (item->data(1).toString() == victim && item->data(0).toString() == QStringLiteral("module"))
        item->setSelected(true);
    dag->view()->setFocus();
    QTest::keyClick(dag->view(), Qt::Key_Delete);
    const auto& after = w.project()->scenario.applications[0];
    QCOMPARE(after.modules.size(), before.modules.size() - 1);
    for (const auto& e : after.edges)
      QVERIFY(e.from != victim.toStdString() && e.to != victim.toStdString());
    // The module form: rate per application request, then a new id.
    const QString kept = QString::fromStdString(after.modules.back().id);
    for (auto* item : dag->scene()->items())
      item->setSelected(item->data(1).toString() == kept && item->data(0).toString() == QStringLiteral("module"));
    auto* id_field = dag->findChild<QLineEdit*>(QStringLiteral("dagModuleId"));
    auto* scale_field = dag->findChild<QDoubleSpinBox*>(QStringLiteral("dagRateScale"));
    QCOMPARE(id_field->text(), kept);
    if (after.modules.back().kind == servescope::ModuleKind::Dnn) {
      scale_field->setValue(2.5);
      id_field->setText(QStringLiteral("renamed"));
      QTest::keyClick(id_field, Qt::Key_Return);
      const auto* renamed = w.project()->scenario.applications[0].find("renamed");
      QVERIFY(renamed);
      QCOMPARE(renamed->rate_scale, 2.5);
    }
    QCOMPARE(dag->set_slo_ms(-1).isEmpty(), false);
    QCOMPARE(dag->set_slo_ms(250), QString());
    QCOMPARE(w.project()->scenario.applications[0].slo, servescope::Duration::milliseconds(250));
  }

  // Issue 47 §1: a new application's SLO comes from its modules, and follows the DAG until the
  // user sets one (it stayed at the first model's 4.218 ms whatever was added).
  void anUnsetSloFollowsTheModules() {
    MainWindow w;
    w.set_interactive(false);
    w.new_project();
    QCOMPARE(w.cluster_editor()->apply_template(QStringLiteral("clusters/hc3-s.json")), QString());
    QCOMPARE(w.add_estimated_models({QStringLiteral("resnet50"), QStringLiteral("vgg16")}), QString());
    QCOMPARE(w.new_application(QStringLiteral("pipeline")), QString());
    const auto& models = w.project()->scenario.profiles.models;
    const auto slo_of = [&](const char* model) {
      return std::ranges::find(models, std::string(model), &servescope::ModelProfile::name)->default_slo.value();
    };
    const auto& app = w.project()->scenario.applications[0];
    const auto first = QString::fromStdString(app.modules[0].id);
    QCOMPARE(app.slo, slo_of(app.modules[0].model.c_str()));
    auto* dag = w.dag_editor();
    QCOMPARE(dag->add_module(QStringLiteral("vgg16")), QString());
    const auto added = QString::fromStdString(w.project()->scenario.applications[0].modules.back().id);
    QCOMPARE(dag->connect_modules(first, added), QString());
    const auto& chained = w.project()->scenario.applications[0];
    QCOMPARE(chained.slo, slo_of(chained.modules[0].model.c_str()) + slo_of("vgg16"));
    // Set by the user, it stays.
    QCOMPARE(dag->set_slo_ms(250), QString());
    QCOMPARE(dag->add_cpu_step(3), QString());
    QCOMPARE(w.project()->scenario.applications[0].slo, servescope::Duration::milliseconds(250));
  }

  // Issue 47 §1: a workload made in the GUI sends to an application (not only to models), with an
  // SLO of its own, a total rate and an arrival process; its dialog opens again on it to edit.
  void aWorkloadTargetsAnApplication() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/cost-demo.json"), false));
    const auto& scenario = w.project()->scenario;
    const auto app = QString::fromStdString(scenario.applications.front().name);
    const auto before = scenario.workloads.size();
    {
      servescope::ui::WorkloadDialog dialog(scenario, nullptr);
      QString why;
      QVERIFY(!dialog.workload(&why));  // nothing ticked
      QVERIFY(why.contains(QStringLiteral("tick")));
      QVERIFY(dialog.choose_target(app, 60));
      dialog.rate_field()->setValue(750);
      dialog.process_field()->setCurrentIndex(3);
      dialog.segments_field()->setText(QStringLiteral("10:1, 5"));
      QVERIFY(!dialog.workload(&why));
      QVERIFY2(why.contains(QStringLiteral("segment 2")), qPrintable(why));
      dialog.process_field()->setCurrentIndex(1);
      dialog.cv_field()->setValue(2);
      const auto made = dialog.workload(&why);
      QVERIFY2(made, qPrintable(why));
      QCOMPARE(made->targets.size(), std::size_t{1});
      QCOMPARE(made->targets[0].kind, servescope::TargetKind::Application);
      QCOMPARE(made->targets[0].slo, std::optional(servescope::Duration::milliseconds(60)));
      QCOMPARE(made->rate_rps, 750.0);
      QCOMPARE(std::get<servescope::GammaArrivals>(made->arrivals).shape, 0.25);  // CV 2
      QCOMPARE(w.keep_workload(before, *made), QString());
    }
    QCOMPARE(w.project()->scenario.workloads.size(), before + 1);
    const auto& kept = w.project()->scenario.workloads.back();
    QCOMPARE(kept.targets[0].name, app.toStdString());
    // Opened again on it, the dialog shows what it holds.
    servescope::ui::WorkloadDialog again(w.project()->scenario, &kept);
    QCOMPARE(again.process_field()->currentIndex(), 1);
    QCOMPARE(again.cv_field()->value(), 2.0);
    QCOMPARE(again.rate_field()->value(), 750.0);
    QString why;
    const auto same = again.workload(&why);
    QVERIFY(same && *same == kept);
  }

  // Issue 47, defect 9: one SLO typed into the field is one edit, however often the field says
  // its editing finished (Return, then focus leaving it), and an edit that changes nothing is none.
  void anSloTypedOnceIsOneEdit() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/cost-demo.json"), false));
    auto* dag = w.dag_editor();
    dag->show_application(0);
    auto* undo = w.document()->undo_stack();
    const int before = undo->count();
    auto* slo = dag->findChild<QDoubleSpinBox*>(QStringLiteral("dagSlo"));
    QVERIFY(slo);
    slo->setValue(100);
    for (int i = 0; i < 3; ++i)
      Q_EMIT slo->editingFinished();
    QCOMPARE(w.project()->scenario.applications[0].slo, servescope::Duration::milliseconds(100));
    QCOMPARE(undo->count(), before + 1);
    QCOMPARE(undo->text(undo->count() - 1), QStringLiteral("Set SLO to 100 ms"));
    QCOMPARE(dag->set_slo_ms(100), QString());  // the same value again: accepted, and no edit
    QCOMPARE(undo->count(), before + 1);
  }
};

SERVESCOPE_GUI_TEST(tst_dag_editor, TestDagEditor)
#include "tst_dag_editor.moc"
