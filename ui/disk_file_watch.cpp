#include "ui/disk_file_watch.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>

namespace servescope::ui {

DiskFileWatch::DiskFileWatch(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFileSystemWatcher::fileChanged, this, &DiskFileWatch::on_file_changed);
}

DiskFileWatch::Stamp DiskFileWatch::stamp_now(bool with_digest) const {
  Stamp s;
  const QFileInfo info(path_);
  if (path_.isEmpty() || !info.isFile()) return s;
  s.exists = true;
  s.size = info.size();
  if (with_digest) {
    QFile file(path_);
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (file.open(QIODevice::ReadOnly) && hash.addData(&file)) s.digest = hash.result();
  }
  return s;
}

void DiskFileWatch::follow(const QString& path) {
  if (!watcher_.files().isEmpty()) watcher_.removePaths(watcher_.files());
  path_ = QFileInfo(path).isFile() ? QFileInfo(path).absoluteFilePath() : QString();
  known_ = stamp_now(true);
  reported_.clear();
  if (!path_.isEmpty()) watcher_.addPath(path_);
}

bool DiskFileWatch::changed_outside() const {
  if (path_.isEmpty()) return false;
  // The bytes decide: two saves within a timestamp's resolution can leave size and time alike.
  const auto quick = stamp_now(false);
  if (quick.exists != known_.exists || quick.size != known_.size) return true;
  return quick.exists && stamp_now(true).digest != known_.digest;
}

void DiskFileWatch::on_file_changed() {
  // An atomic save elsewhere replaces the file: the watcher loses it with the old inode.
  if (!path_.isEmpty() && !watcher_.files().contains(path_) && QFileInfo::exists(path_)) watcher_.addPath(path_);
  if (!changed_outside()) return;
  const auto now = stamp_now(true);
  const auto seen = now.exists ? now.digest : QByteArray("gone");
  if (seen == reported_) return;
  reported_ = seen;
  Q_EMIT changed_on_disk(path_);
}

}  // namespace servescope::ui
