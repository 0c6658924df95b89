// The cluster editor on the offscreen platform: a template replaces the cluster with the
// paper's HC3-S exactly, nodes are added, edited, duplicated and deleted through the undo stack
// with one box per node and one chip per GPU, and a bad GPU type is refused with the reason. A
// box dragged with the mouse keeps its place in the project; a plan's MPS shares show on the chips.
#include <QComboBox>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include "model/io/document.h"
#include "tests/gui/gui_test_main.h"
#include "ui/cluster_editor.h"
#include "ui/main_window.h"
#include "ui/planning_panel.h"
#include "ui/project_document.h"

using servescope::Cluster;
using servescope::Node;
using servescope::ui::ClusterEditor;
using servescope::ui::MainWindow;

namespace {

int top_level_boxes(QGraphicsScene* scene) {
  int n = 0;
  for (auto* item : scene->items())
    n += item->parentItem() == nullptr && item->data(0).isValid() ? 1 : 0;  // not the legend
  return n;
}

}  // namespace

class TestClusterEditor : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { QCoreApplication::setApplicationName(QStringLiteral("servescope-tests")); }

  void templateThenEditsUndoBack() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    auto* editor = w.cluster_editor();
    const Cluster original = w.project()->scenario.cluster;

    bool has_hc3s = false;
    for (const auto& [resource, title] : ClusterEditor::templates())
      has_hc3s = has_hc3s || resource == QStringLiteral("clusters/hc3-s.json");
    QVERIFY(has_hc3s);
    QCOMPARE(editor->apply_template(QStringLiteral("clusters/hc3-s.json")), QString());
    const auto hc3s = std::get<Cluster>(servescope::load_document("builtin:clusters/hc3-s.json").content);
    QVERIFY(w.project()->scenario.cluster == hc3s);
    QCOMPARE(top_level_boxes(editor->scene()), static_cast<int>(hc3s.nodes.size()));

    QCOMPARE(editor->add_node(QStringLiteral("T4")), QString());
    const int added = static_cast<int>(w.project()->scenario.cluster.nodes.size()) - 1;
    Node n = w.project()->scenario.cluster.nodes[static_cast<std::size_t>(added)];
    QCOMPARE(n.gpu, std::string("T4"));
    n.gpu_count = 4;
    n.count = 3;
    n.nic_up_gbps = 25;
    QCOMPARE(editor->set_node(added, n), QString());
    QCOMPARE(editor->duplicate_node(added), QString());
    QCOMPARE(w.project()->scenario.cluster.nodes.back().name, n.name + "-2");
    QCOMPARE(w.project()->scenario.cluster.total_gpus(), hc3s.total_gpus() + 2 * 12);
    QCOMPARE(editor->remove_node(added), QString());
    QCOMPARE(top_level_boxes(editor->scene()), static_cast<int>(hc3s.nodes.size()) + 1);

    // A GPU type the catalog does not know is refused, and nothing changes.
    n.gpu = "NoSuchGPU";
    const auto before = w.project()->scenario.cluster;
    const auto why = editor->set_node(0, n);
    QVERIFY2(why.contains(QStringLiteral("NoSuchGPU")), qPrintable(why));
    QVERIFY(w.project()->scenario.cluster == before);
    QVERIFY(editor->remove_node(99).contains(QStringLiteral("select a node")));

    // Five edits back to the demo's own cluster.
    for (int k = 0; k < 5; ++k)
      w.document()->undo_stack()->undo();
    QVERIFY(w.project()->scenario.cluster == original);
    QVERIFY(!w.document()->is_modified());
  }

  // Issue 47, defect 11: with no node selected the form shows no node's figures (it read "A100"),
  // and Add node (and Duplicate) select what they made, so the form edits it next.
  void addNodeSelectsItAndNoSelectionShowsNoType() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    auto* editor = w.cluster_editor();
    auto* type = editor->findChild<QComboBox*>(QStringLiteral("nodeGpu"));
    auto* name = editor->findChild<QLineEdit*>(QStringLiteral("nodeName"));
    QVERIFY(type && name);
    QCOMPARE(editor->selected_node(), -1);
    QCOMPARE(type->currentText(), QString());
    QVERIFY(!type->isEnabled());
    QCOMPARE(name->text(), QString());

    auto* add_type = editor->findChild<QComboBox*>(QStringLiteral("addNodeGpu"));
    QVERIFY(add_type);
    add_type->setCurrentText(QStringLiteral("T4"));
    QTest::mouseClick(editor->findChild<QPushButton*>(QStringLiteral("addNode")), Qt::LeftButton);
    const auto& nodes = w.project()->scenario.cluster.nodes;
    QCOMPARE(nodes.back().gpu, std::string("T4"));
    QCOMPARE(editor->selected_node(), static_cast<int>(nodes.size()) - 1);
    QCOMPARE(name->text(), QString::fromStdString(nodes.back().name));
    QCOMPARE(type->currentText(), QStringLiteral("T4"));
    QVERIFY(type->isEnabled());
    int selected_boxes = 0;
    for (auto* item : editor->scene()->selectedItems())
      selected_boxes += item->data(0).toInt() == editor->selected_node() ? 1 : 0;
    QCOMPARE(selected_boxes, 1);

    QCOMPARE(editor->duplicate_node(0), QString());
    QCOMPARE(editor->selected_node(), 1);
    QCOMPARE(name->text(), QString::fromStdString(nodes[1].name));
  }

  void dragMovesANodeAndChipsShowAPlansShares() {
    MainWindow w;
    w.set_interactive(false);
    w.resize(1400, 900);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/ppipe-demo.json"), false));
    auto* editor = w.cluster_editor();
    w.show();
    w.findChild<QTabWidget*>(QStringLiteral("centralTabs"))->setCurrentWidget(editor);
    QVERIFY(QTest::qWaitForWindowExposed(&w));

    // Drag the first node's box by its title, as a user would.
    QGraphicsItem* box = nullptr;
    for (auto* item : editor->scene()->items())
      if (item->parentItem() == nullptr && item->data(0).toInt() == 0) box = item;
    QVERIFY(box);
    const QPointF was = box->pos();
    auto* view = editor->findChild<QGraphicsView*>(QStringLiteral("clusterView"));
    const QPoint press = view->mapFromScene(was + QPointF(20, 10));
    const QPoint release = press + QPoint(160, 120);
    QTest::mousePress(view->viewport(), Qt::LeftButton, {}, press);
    QTest::mouseMove(view->viewport(), press + QPoint(80, 60));
    QTest::mouseMove(view->viewport(), release);
    QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, release);
    QTRY_VERIFY(w.project()->scenario.cluster.nodes[0].position.has_value());
    const auto moved = *w.project()->scenario.cluster.nodes[0].position;
    const QPointF delta = QPointF(moved.x, moved.y) - was;
    const double scale = view->transform().m11();
    QVERIFY2(std::abs(delta.x() - 160 / scale) < 2 && std::abs(delta.y() - 120 / scale) < 2,
             qPrintable(QStringLiteral("moved by %1, %2").arg(delta.x()).arg(delta.y())));
    QCOMPARE(w.document()->undo_stack()->undoText(), QStringLiteral("Move node v100"));
    // The form's Apply keeps the position; undo puts the box back in the grid.
    Node n = w.project()->scenario.cluster.nodes[0];
    n.nic_up_gbps = 7;
    QCOMPARE(editor->set_node(0, n), QString());
    QVERIFY(w.project()->scenario.cluster.nodes[0].position == moved);
    w.document()->undo_stack()->undo();
    w.document()->undo_stack()->undo();
    QVERIFY(!w.project()->scenario.cluster.nodes[0].position.has_value());

    // Chips by plan: PPipe's vGPUs on the GPUs the simulator would give them.
    QVERIFY(!editor->show_plan_shares(QStringLiteral("ppipe")));  // not planned yet
    QSignalSpy done(w.planning(), &servescope::ui::PlanningPanel::finished);
    QVERIFY(w.planning()->run_planners({QStringLiteral("ppipe")}));
    QVERIFY(done.wait(120000));
    QVERIFY(editor->show_plan_shares(QStringLiteral("ppipe")));
    const int used = editor->shared_gpus();
    QVERIFY2(used > 0 && used <= 16, qPrintable(QString::number(used)));
    int slices = 0;
    for (auto* item : editor->scene()->items())
      slices += item->toolTip().contains(QStringLiteral("blocks")) ? 1 : 0;
    QCOMPARE(slices, used);  // each used GPU's chip lists its shares
    const auto dir = qEnvironmentVariable("SERVESCOPE_SCREENSHOTS_DIR");
    if (!dir.isEmpty()) {
      w.findChild<QTabWidget*>(QStringLiteral("centralTabs"))->setCurrentWidget(editor);
      QCoreApplication::processEvents();
      QVERIFY(w.grab().save(dir + QStringLiteral("/cluster-plan-shares.png")));
    }
    QVERIFY(editor->show_plan_shares(QString()));
    QCOMPARE(editor->shared_gpus(), 0);
  }
};

SERVESCOPE_GUI_TEST(tst_cluster_editor, TestClusterEditor)
#include "tst_cluster_editor.moc"
