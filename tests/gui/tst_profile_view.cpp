// The profile view on the offscreen platform: selecting a model draws one curve per profiled
// GPU type and share, and the α·b + β fit of a linear profile gives back its own α and β.
#include <QFile>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include "tests/gui/gui_fixture.h"
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
};

QTEST_MAIN(TestProfileView)
#include "tst_profile_view.moc"
