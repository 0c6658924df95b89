// The profile view on the offscreen platform: selecting a model draws one curve per profiled
// GPU type and share, and the α·b + β fit of a linear profile gives back its own α and β. The
// measured points of table and block profiles are edited in place, checked and undoable.
#include <QDoubleSpinBox>
#include <QFile>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include "tests/gui/gui_fixture.h"
#include "tests/gui/gui_test_main.h"
#include "ui/cluster_editor.h"
#include "ui/main_window.h"
#include "ui/profile_view.h"
#include "ui/project_document.h"
#include "ui/project_tree_model.h"

using servescope::ui::MainWindow;
using servescope::ui::ProjectTreeModel;

class TestProfileView : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { QCoreApplication::setApplicationName(QStringLiteral("servescope-tests")); }

  void linearProfileFitsItself() {
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    auto* tree = w.findChild<QTreeView*>(QStringLiteral("projectTree"));
    auto* model = w.tree_model();
    const auto models = model->index(static_cast<int>(ProjectTreeModel::Section::Models), 0);
    tree->setCurrentIndex(model->index(10, 0, models));  // ResNet50
    auto* view = w.profile_view();
    QCOMPARE(view->model(), 10);
    const auto& profile = w.project()->scenario.profiles.models[10];
    QCOMPARE(view->curve_count(), static_cast<int>(profile.configurations().size()));
    QVERIFY(view->table()->rowCount() >= 1);
    const auto& fit = profile.linear_fits.front();
    const auto result = servescope::ui::fit_linear(profile, fit.gpu, fit.share);
    QVERIFY(std::abs(result.alpha_us - fit.alpha.to_us()) < 1e-6);
    QVERIFY(std::abs(result.beta_us - fit.beta.to_us()) < 1e-6);
    QVERIFY(result.max_error < 1e-9);
    QCOMPARE(view->table()->item(0, 4)->text(), QString::number(fit.alpha.to_us(), 'f', 1));
    QCOMPARE(view->block_bars(), 0);  // a linear profile has no blocks
    // The demo's profiles come from a built-in file: not editable here, and saying why.
    QVERIFY(view->edit_linear(0, true, 100).contains(QStringLiteral("builtin:")));
  }

  void linearProfileEditsAreCheckedAndUndoable() {
    QTemporaryDir dir;
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(w.open_location(QStringLiteral("builtin:projects/demo.json"), false));
    const auto csv = servescope::test::write_alphabeta_csv(dir);
    QCOMPARE(w.import_profiles(MainWindow::ImportKind::AlphaBeta, {csv}), QString());
    const int index = static_cast<int>(w.project()->scenario.profiles.models.size()) - 1;
    auto* view = w.profile_view();
    view->show_model(index);
    // Edit α in the table as a user would: the cell, then the document.
    view->table()->item(0, 4)->setText(QStringLiteral("300"));
    const auto& fit = w.project()->scenario.profiles.models.back().linear_fits.front();
    QCOMPARE(fit.alpha, servescope::Duration::microseconds(300));
    QCOMPARE(fit.beta, servescope::Duration::microseconds(5000));
    // Refused edits leave the profile and the shown value alone.
    view->table()->item(0, 5)->setText(QStringLiteral("-4"));
    QCOMPARE(w.project()->scenario.profiles.models.back().linear_fits.front().beta,
             servescope::Duration::microseconds(5000));
    QCOMPARE(view->table()->item(0, 5)->text(), QStringLiteral("5000.0"));
    view->table()->item(0, 4)->setText(QStringLiteral("abc"));
    QVERIFY(w.log_text().contains(QStringLiteral("not a number")));
    w.document()->undo_stack()->undo();
    QCOMPARE(w.project()->scenario.profiles.models.back().linear_fits.front().alpha,
             servescope::Duration::microseconds(250));
  }

  // Issue 47 §1: a model's default SLO is edited in the Profile tab (resnet50 stayed at 4.218 ms),
  // one undo step, refused when not a positive time.
  void aModelsDefaultSloIsEdited() {
    MainWindow w;
    w.set_interactive(false);
    w.new_project();
    QCOMPARE(w.cluster_editor()->apply_template(QStringLiteral("clusters/hc3-s.json")), QString());
    QCOMPARE(w.add_estimated_models({QStringLiteral("resnet50")}), QString());
    auto* view = w.profile_view();
    view->show_model(0);
    auto* slo = view->findChild<QDoubleSpinBox*>(QStringLiteral("modelSlo"));
    QVERIFY(slo && slo->isEnabled());
    const auto before = w.project()->scenario.profiles.models[0].default_slo;
    QVERIFY(before.has_value());
    QCOMPARE(slo->value(), before->to_ms());
    const int steps = w.document()->undo_stack()->count();
    slo->setValue(25);
    Q_EMIT slo->editingFinished();
    QCOMPARE(w.project()->scenario.profiles.models[0].default_slo,
             std::optional(servescope::Duration::milliseconds(25)));
    QCOMPARE(w.document()->undo_stack()->count(), steps + 1);
    QVERIFY(!view->set_default_slo_ms(-1).isEmpty());
    w.document()->undo_stack()->undo();
    QCOMPARE(w.project()->scenario.profiles.models[0].default_slo, before);
    QCOMPARE(slo->value(), before->to_ms());
  }

  void tableAndBlockPointsAreEditedInPlace() {
    MainWindow w;
    w.set_interactive(false);
    w.new_project();
    QCOMPARE(w.cluster_editor()->apply_template(QStringLiteral("clusters/hc3-s.json")), QString());
    // A table profile, written inline: 1, 2, 4 at 1, 1.5, 2.5 ms on a V100.
    servescope::ModelProfile table;
    table.name = "tabled";
    table.form = servescope::ProfileForm::Table;
    using servescope::Duration;
    table.batch_tables.push_back(
        {"V100", servescope::GpuShare::whole(),
         servescope::BatchCurve(
             {1, 2, 4}, {Duration::microseconds(1000), Duration::microseconds(1500), Duration::microseconds(2500)})});
    servescope::ProfileSet set;
    set.models.push_back(table);
    QCOMPARE(w.document()->add_profiles(set, QStringLiteral("Add tabled")), QString());
    auto* view = w.profile_view();
    view->show_model(0);
    auto* points = view->points();
    QCOMPARE(points->rowCount(), 3);
    QCOMPARE(points->columnCount(), 1);
    points->item(1, 0)->setText(QStringLiteral("1800"));
    const auto curve = [&] { return w.project()->scenario.profiles.models[0].batch_tables[0].curve; };
    QCOMPARE(*curve().at(2), Duration::microseconds(1800));
    QCOMPARE(w.document()->undo_stack()->undoText(), QStringLiteral("Set tabled on V100 1 at batch 2 to 1800 µs"));
    // Faster than batch 1 or slower than batch 4 would break monotonicity: refused, shown back.
    QVERIFY(view->edit_point(0, 1, 0, 900).contains(QStringLiteral("cannot be faster than batch 1")));
    points->item(1, 0)->setText(QStringLiteral("3000"));
    QCOMPARE(*curve().at(2), Duration::microseconds(1800));
    QCOMPARE(points->item(1, 0)->text(), QStringLiteral("1800.0"));
    QVERIFY(w.log_text().contains(QStringLiteral("cannot be slower than batch 4")));
    QVERIFY(!view->edit_point(0, 0, 0, 0).isEmpty());
    w.document()->undo_stack()->undo();
    QCOMPARE(*curve().at(2), Duration::microseconds(1500));

    // A block profile: a column per block; the whole model's latency follows the edited block.
    QCOMPARE(w.add_estimated_models({QStringLiteral("resnet50")}), QString());
    view->show_model(1);
    const auto& model = w.project()->scenario.profiles.models[1];
    QCOMPARE(points->columnCount(), model.block_count);
    const auto config = model.configurations().front();
    const auto whole = [&] {
      return w.project()->scenario.profiles.models[1].latency({config.first, config.second, 1, std::nullopt});
    };
    const auto before = whole();
    const double block3 = points->item(0, 3)->text().toDouble();
    const double raised = std::min(block3 + 500, points->item(1, 3)->text().toDouble());
    points->item(0, 3)->setText(QString::number(raised, 'f', 1));
    QVERIFY2(std::abs((whole() - before).to_us() - (raised - block3)) < 1.0,
             qPrintable(QStringLiteral("%1 → %2").arg(before.to_us()).arg(whole().to_us())));
    QVERIFY(w.document()->undo_stack()->undoText().startsWith(QStringLiteral("Set block 3 of resnet50")));
  }
};

SERVESCOPE_GUI_TEST(tst_profile_view, TestProfileView)
#include "tst_profile_view.moc"
