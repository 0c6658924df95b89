// The cluster editor on the offscreen platform: a template replaces the cluster with the
// paper's HC3-S exactly, nodes are added, edited, duplicated and deleted through the undo stack
// with one box per node and one chip per GPU, and a bad GPU type is refused with the reason.
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QTest>

#include "model/io/document.h"
#include "ui/cluster_editor.h"
#include "ui/main_window.h"
#include "ui/project_document.h"

using servescope::Cluster;
using servescope::Node;
using servescope::ui::ClusterEditor;
using servescope::ui::MainWindow;

namespace {

int top_level_boxes(QGraphicsScene* scene) {
  int n = 0;
  for (auto* item : scene->items())
    n += item->parentItem() == nullptr ? 1 : 0;
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
};

QTEST_MAIN(TestClusterEditor)
#include "tst_cluster_editor.moc"
