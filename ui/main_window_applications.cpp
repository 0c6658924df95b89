// The main window's application actions (README "The GUI", Application tab): New application,
// Rename and the project tree's context menu for them. The edits themselves are the document's
// (ProjectDocument::add_application, rename_application), so they are undoable and checked.
#include <QAction>
#include <QInputDialog>
#include <QMenu>
#include <QStatusBar>
#include <QTabWidget>
#include <QTreeView>

#include "model/scenario/scenario_editing.h"
#include "ui/dag_editor.h"
#include "ui/main_window.h"
#include "ui/project_document.h"
#include "ui/project_tree_model.h"

namespace servescope::ui {
namespace {

constexpr auto kApplications = ProjectTreeModel::Section::Applications;

}  // namespace

QString MainWindow::new_application(const QString& name) {
  const auto* p = document_->project();
  if (!p) return tr("no project is open");
  const auto index = static_cast<int>(p->scenario.applications.size());
  auto why = document_->add_application(name);
  if (!why.isEmpty()) return why;
  select_entry(kApplications, index);
  tabs_->setCurrentWidget(dag_);
  return {};
}

QString MainWindow::rename_selected(const QString& name) {
  const auto current = tree_->currentIndex();
  const bool application =
      current.isValid() && current.data(ProjectTreeModel::SectionRole).toInt() == static_cast<int>(kApplications);
  const int entry = current.isValid() ? current.data(ProjectTreeModel::EntryIndexRole).toInt() : -1;
  if (!document_->project() || !application || entry < 0) return tr("select an application to rename");
  auto why = document_->rename_application(static_cast<std::size_t>(entry), name);
  if (why.isEmpty()) select_entry(kApplications, entry);  // the tree was rebuilt
  return why;
}

void MainWindow::select_entry(ProjectTreeModel::Section section, int entry) {
  const auto parent = tree_model_->index(static_cast<int>(section), 0);
  const auto item = tree_model_->index(entry, 0, parent);
  if (!item.isValid()) return;
  tree_->expand(parent);
  tree_->setCurrentIndex(item);
}

void MainWindow::new_application_dialog() {
  const auto* p = document_->project();
  if (!p) return;
  bool ok = false;
  const auto name = QInputDialog::getText(
      this, tr("New application"),
      tr("Name (it starts with one module, %1; draw the rest in the Application tab):")
          .arg(p->scenario.profiles.models.empty() ? tr("a CPU step")
                                                   : QString::fromStdString(p->scenario.profiles.models.front().name)),
      QLineEdit::Normal, QString::fromStdString(unique_application_name(p->scenario, "application")), &ok);
  if (!ok) return;
  if (const auto why = new_application(name); !why.isEmpty()) report_refusal(why);
}

void MainWindow::rename_dialog() {
  const auto current = tree_->currentIndex();
  if (!current.isValid() || current.data(ProjectTreeModel::EntryIndexRole).toInt() < 0) {
    statusBar()->showMessage(tr("select an application to rename"), 5000);
    return;
  }
  bool ok = false;
  const auto name =
      QInputDialog::getText(this, tr("Rename application"), tr("New name (workloads that send to it follow):"),
                            QLineEdit::Normal, current.data(Qt::DisplayRole).toString(), &ok);
  if (!ok) return;
  if (const auto why = rename_selected(name); !why.isEmpty()) report_refusal(why);
}

// What the tree offers at `at`: on an application, New, Rename and Remove; on the Applications
// heading, New; elsewhere Remove, where the entry can be removed.
void MainWindow::tree_context_menu(const QPoint& at) {
  const auto index = tree_->indexAt(at);
  if (!index.isValid()) return;
  const bool applications = index.data(ProjectTreeModel::SectionRole).toInt() == static_cast<int>(kApplications);
  const bool entry = index.data(ProjectTreeModel::EntryIndexRole).toInt() >= 0;
  if (!entry && !applications) return;
  tree_->setCurrentIndex(index);
  QMenu menu(this);
  if (applications) menu.addAction(new_application_action_);
  if (applications && entry) menu.addAction(rename_action_);
  if (entry) menu.addAction(remove_action_);
  menu.exec(tree_->viewport()->mapToGlobal(at));
}

}  // namespace servescope::ui
