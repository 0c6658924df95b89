// MainWindow: nothing lost (README "Projects"). Each window autosaves its unsaved work into a
// recovery copy of its own (ui/recovery_store.h) and offers, at start-up, the copies of windows
// that are gone; a save over the open file first checks that nobody changed it on disk since it
// was read here (ui/disk_file_watch.h), and a change from outside is said when it happens.
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>

#include "ui/disk_file_watch.h"
#include "ui/main_window.h"
#include "ui/project_document.h"
#include "ui/recovery_store.h"

namespace servescope::ui {
namespace {

QString describe(const RecoveryStore::Copy& copy) {
  const auto name =
      copy.project_name.isEmpty() ? QObject::tr("an unnamed project") : QStringLiteral("“%1”").arg(copy.project_name);
  const auto from = copy.location.isEmpty() || copy.location.startsWith(QStringLiteral("builtin:"))
                        ? QObject::tr("never saved to a file of its own")
                        : QObject::tr("a copy of %1").arg(copy.location);
  return QObject::tr("%1 (%2), autosaved %3").arg(name, from, QLocale().toString(copy.saved, QLocale::ShortFormat));
}

}  // namespace

void MainWindow::autosave() {
  const auto* p = document_->project();
  if (!p || !document_->is_modified()) return;
  try {
    recovery_->save(*p, document_->include_base(), document_->location());
  } catch (const std::exception& e) {
    log(tr("autosave failed: %1").arg(QString::fromStdString(e.what())));
  }
}

bool MainWindow::offer_recovery(RecoveryChoice choice) {
  auto copies = recovery_->orphans();
  bool opened = false;
  for (std::size_t i = 0; i < copies.size(); ++i) {
    const auto& copy = copies[i];
    if (opened) {  // one project a window: the others wait for the next start
      recovery_->release(copy);
      continue;
    }
    auto answer = choice;
    if (answer == RecoveryChoice::Ask) {
      QMessageBox box(
          QMessageBox::Question, tr("Recover unsaved work"),
          tr("A ServeScope window ended without saving its changes:\n\n%1\n\nOpen it now?").arg(describe(copy)),
          QMessageBox::NoButton, this);
      if (copies.size() > i + 1)
        box.setInformativeText(
            tr("%n more recovery copies are waiting.", nullptr, static_cast<int>(copies.size() - i - 1)));
      auto* open = box.addButton(tr("Open"), QMessageBox::AcceptRole);
      auto* discard = box.addButton(tr("Discard"), QMessageBox::DestructiveRole);
      box.addButton(tr("Later"), QMessageBox::RejectRole);
      box.setDefaultButton(open);
      box.exec();
      answer = box.clickedButton() == open      ? RecoveryChoice::Open
               : box.clickedButton() == discard ? RecoveryChoice::Discard
                                                : RecoveryChoice::Keep;
    }
    if (answer == RecoveryChoice::Keep) {
      recovery_->release(copy);
      continue;
    }
    if (answer == RecoveryChoice::Discard) {
      recovery_->discard(copy);
      log(tr("discarded the recovery copy of %1").arg(describe(copy)));
      continue;
    }
    if (!open_location(copy.path, interactive_)) {
      recovery_->release(copy);  // it says what is wrong; still there for another try
      continue;
    }
    document_->mark_unsaved_copy();
    disk_->follow({});
    update_title();
    // This window's own copy first (still naming the file it was a copy of); only then does the
    // orphan go, so a crash in between loses nothing.
    try {
      recovery_->save(*document_->project(), document_->include_base(), copy.location);
      recovery_->adopt(copy);
    } catch (const std::exception& e) {
      log(tr("autosave failed: %1").arg(QString::fromStdString(e.what())));
      recovery_->release(copy);
    }
    log(tr("recovered %1; save it to keep it").arg(describe(copy)));
    opened = true;
  }
  return opened;
}

bool MainWindow::reload() {
  const auto path = disk_->path();
  if (path.isEmpty()) return false;
  if (!open_location(path, false)) return false;
  log(tr("reloaded %1 from disk").arg(path));
  return true;
}

bool MainWindow::may_overwrite(const QString& path, bool interactive) {
  if (disk_->path().isEmpty() || QFileInfo(path).absoluteFilePath() != disk_->path() || !disk_->changed_outside())
    return true;
  const auto what = tr("%1 changed on disk since it was opened here (another ServeScope window or another program "
                       "wrote it).")
                        .arg(path);
  if (!interactive || !interactive_) {
    log(tr("not saved: %1 Reload it, or save elsewhere.").arg(what));
    return false;
  }
  QMessageBox box(QMessageBox::Warning, tr("File changed on disk"),
                  what + QLatin1Char('\n') + tr("Saving now replaces those changes with yours."), QMessageBox::NoButton,
                  this);
  auto* overwrite = box.addButton(tr("Overwrite"), QMessageBox::DestructiveRole);
  auto* save_as = box.addButton(tr("Save As…"), QMessageBox::AcceptRole);
  auto* reload_button = box.addButton(tr("Reload (drop my changes)"), QMessageBox::ResetRole);
  box.addButton(QMessageBox::Cancel);
  box.setDefaultButton(save_as);
  box.exec();
  if (box.clickedButton() == overwrite) return true;
  if (box.clickedButton() == save_as) save_as_dialog();
  if (box.clickedButton() == reload_button) reload();
  return false;
}

void MainWindow::changed_on_disk(const QString& path) {
  const auto gone = !QFileInfo::exists(path);
  const auto what = gone ? tr("%1 was removed or renamed on disk").arg(path)
                         : tr("%1 changed on disk (another ServeScope window or another program wrote it)").arg(path);
  log(what);
  statusBar()->showMessage(what, 15000);
  if (!interactive_ || gone || asking_about_disk_) return;
  asking_about_disk_ = true;
  const auto modified = document_->is_modified();
  const auto answer =
      QMessageBox::question(this, tr("File changed on disk"),
                            modified ? what + QLatin1Char('\n') + tr("Reload it and drop your unsaved changes?")
                                     : what + QLatin1Char('\n') + tr("Reload it?"),
                            QMessageBox::Yes | QMessageBox::No, modified ? QMessageBox::No : QMessageBox::Yes);
  asking_about_disk_ = false;
  if (answer == QMessageBox::Yes) reload();
}

}  // namespace servescope::ui
