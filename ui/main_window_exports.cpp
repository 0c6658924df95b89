// The main window's imports and exports: profiles from the other tools' formats, a run file
// into the project, and the current view, a plan, a run's metrics or its trace out of it.
#include <QAction>
#include <QApplication>
#include <QBuffer>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QImage>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QSvgGenerator>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTimer>
#include <QTreeView>
#include <filesystem>
#include <optional>

#include "engine/analysis/run_csv.h"
#include "engine/analysis/saved_artifacts.h"
#include "engine/estimate/cnn_architectures.h"
#include "engine/estimate/profile_estimator.h"
#include "engine/ppipe/pipeline_plan_json.h"
#include "engine/ppipe/reference_plan_import.h"
#include "engine/timeline/chrome_trace.h"
#include "model/core/error.h"
#include "model/core/text.h"
#include "model/import/alphabeta_import.h"
#include "model/import/nexus_import.h"
#include "model/import/ppipe_import.h"
#include "model/io/document.h"
#include "model/io/file_io.h"
#include "model/io/json_cursor.h"
#include "ui/charts_view.h"
#include "ui/cluster_editor.h"
#include "ui/compare_view.h"
#include "ui/dag_editor.h"
#include "ui/exception_guard.h"
#include "ui/item_details.h"
#include "ui/live_view.h"
#include "ui/main_window.h"
#include "ui/plan_view.h"
#include "ui/planning_panel.h"
#include "ui/profile_model_dialog.h"
#include "ui/profile_view.h"
#include "ui/project_document.h"
#include "ui/project_tree_model.h"
#include "ui/run_view.h"
#include "ui/view_picture.h"
#include "widgets/timeline_view.h"

namespace servescope::ui {

QString MainWindow::export_view(const QString& path, const ViewPictureOptions& options) {
  const auto picture = picture_of(tabs_->currentWidget(), options);
  // Rendered to memory, then written through the one output writer (atomic, devices as they are).
  QByteArray bytes;
  QBuffer buffer(&bytes);
  bool ok = false;
  if (path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(picture.size);
    svg.setViewBox(QRect(QPoint(0, 0), picture.size));
    svg.setTitle(tabs_->tabText(tabs_->currentIndex()));
    QPainter painter;
    ok = painter.begin(&svg);
    if (ok) {
      picture.paint(painter);
      ok = painter.end();
    }
  } else {
    QImage image(picture.size, QImage::Format_ARGB32_Premultiplied);
    image.fill(palette().color(QPalette::Window));
    QPainter painter(&image);
    picture.paint(painter);
    painter.end();
    ok = buffer.open(QIODevice::WriteOnly) && image.save(&buffer, "PNG");
  }
  QString why = ok ? QString() : tr("could not render the view for %1").arg(path);
  if (ok) {
    try {
      write_output_file(path.toStdString(),
                        std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    } catch (const Error& e) {
      why = QString::fromStdString(e.what());
    }
  }
  log(why.isEmpty() ? tr("exported %1").arg(path) : tr("error: %1").arg(why));
  return why;
}

QString MainWindow::export_plan(int index, const QString& path) {
  const auto* p = document_->project();
  if (!p || index < 0 || static_cast<std::size_t>(index) >= p->plans.size()) return tr("no plan %1").arg(index);
  try {
    save_json_file(path.toStdString(), p->plans[static_cast<std::size_t>(index)].body);
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  log(tr("exported %1").arg(path));
  return {};
}

QString MainWindow::export_metrics_csv(const QString& run, const QString& path) {
  const auto* p = document_->project();
  const auto it = p ? std::ranges::find(p->runs, run.toStdString(), &SavedArtifact::name)
                    : std::vector<SavedArtifact>::const_iterator{};
  if (!p || it == p->runs.end()) return tr("the project has no run named %1").arg(run);
  try {
    const auto series = engine::run_series(it->body, it->name);
    OutputFile writer(path.toStdString());
    engine::write_run_csv(writer.stream(), series);
    writer.commit();
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  log(tr("exported %1").arg(path));
  return {};
}

QString MainWindow::export_trace(const QString& path) {
  const auto* timeline = run_view_->timeline()->timeline();
  if (!timeline) return tr("no run is shown: simulate one in the Run tab first");
  try {
    OutputFile writer(path.toStdString());
    engine::write_chrome_trace(writer.stream(), *timeline);
    writer.commit();
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  log(tr("exported %1 (open it in Perfetto or chrome://tracing)").arg(path));
  return {};
}

QString MainWindow::import_profiles(ImportKind kind, const QStringList& paths) {
  const auto* p = document_->project();
  if (!p) return tr("no project is open");
  QString why;
  try {
    const auto catalog = p->scenario.catalog();
    ProfileSet set;
    switch (kind) {
      case ImportKind::PPipe: {
        const std::filesystem::path dir = paths.value(0).toStdString();
        set = import_ppipe(dir, list_ppipe_models(dir), catalog);
        break;
      }
      case ImportKind::Nexus:
        for (const auto& path : paths)
          set.models.push_back(import_nexus_profile(path.toStdString(), catalog).profile);
        break;
      case ImportKind::AlphaBeta:
        set = import_alphabeta_csv(paths.value(0).toStdString(), catalog);
        break;
    }
    if (set.models.empty()) throw QueryError("nothing to import");
    why = document_->add_profiles(set, tr("Import %1 profile(s)").arg(set.models.size()));
  } catch (const Error& e) {
    why = QString::fromStdString(e.what());
  }
  log(why.isEmpty() ? tr("imported profiles from %1").arg(paths.join(QStringLiteral(", ")))
                    : tr("refused: %1").arg(why));
  if (!why.isEmpty() && interactive_) QMessageBox::warning(this, tr("Cannot import"), why);
  return why;
}

QString MainWindow::import_ppipe_plan(const QString& path) {
  const std::filesystem::path file = path.toStdString();
  const auto data_dir = engine::reference_data_dir(file);
  if (!data_dir)
    return tr("%1 is not inside a PPipe artifact's data folder (no folder above it holds models/ and plans/)")
        .arg(path);
  auto project = std::make_unique<Project>();
  std::vector<std::string> notes;
  try {
    auto imported = engine::import_reference_plan(*data_dir, file);
    project->name = imported.scenario.name;
    SavedArtifact plan;
    plan.name = "authors' " + imported.plan.system;
    plan.system = imported.plan.system;
    plan.created_utc = QFileInfo(path).lastModified().toUTC().toString(Qt::ISODate).toStdString();
    plan.body = engine::pipeline_plan_to_json(imported.plan, imported.scenario.name);
    project->scenario = std::move(imported.scenario);
    project->plans.push_back(std::move(plan));
    notes = std::move(imported.notes);
  } catch (const Error& e) {
    log(tr("refused: %1").arg(QString::fromUtf8(e.what())));
    return QString::fromUtf8(e.what());
  }
  install_project(std::move(project), QString());
  log(tr("imported the PPipe authors' plan %1 (profiles from %2)")
          .arg(path, QString::fromStdString(data_dir->string())));
  for (const auto& note : notes)
    log(QString::fromStdString(note));
  update_title();
  return {};
}

QString MainWindow::import_run(const QString& path) {
  if (!document_->project()) return tr("open a project first");
  SavedArtifact run;
  try {
    run.body = parse_json_text(read_text_file(path.toStdString()), path.toStdString());
    engine::check_saved_run(run.body, path.toStdString());
  } catch (const Error& e) {
    return QString::fromUtf8(e.what());
  }
  if (engine::artifact_kind(run) != engine::ArtifactKind::RunResult)
    return tr("%1 is not a run file (its kind is not run-result)").arg(path);
  try {
    const auto mismatch =
        engine::run_cluster_mismatch(run.body, path.toStdString(), document_->project()->scenario.cluster);
    if (!mismatch.empty())
      return tr("%1: %2; open the scenario it ran on, then import it there")
          .arg(path, QString::fromStdString(mismatch));
  } catch (const Error& e) {
    return QString::fromUtf8(e.what());
  }
  run.name = unique_artifact_name(document_->project()->runs, QFileInfo(path).completeBaseName().toStdString());
  run.system = engine::run_system(run.body, path.toStdString());
  run.created_utc = QFileInfo(path).lastModified().toUTC().toString(Qt::ISODate).toStdString();
  const auto name = QString::fromStdString(run.name);
  QString timeline_note;
  auto why = document_->add_run(std::move(run), &timeline_note);
  if (why.isEmpty()) {
    log(timeline_note.isEmpty()
            ? tr("imported the run %1 as %2").arg(path, name)
            : tr("imported the run %1 as %2, without its timeline: %3").arg(path, name, timeline_note));
    run_view_->show_run(name);
  }
  return why;
}

}  // namespace servescope::ui
