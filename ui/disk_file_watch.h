// The open project's file as it was on disk when it was opened or last saved here (README
// "Projects": "Nothing lost"). Another ServeScope or an editor may write it meanwhile: before
// a save over it the window asks whether it changed, so that neither instance silently
// overwrites the other, and the watcher says when it changes outside. A change is a change of
// its bytes: a touch, or the same bytes written again, is none.
#pragma once

#include <QByteArray>
#include <QFileSystemWatcher>
#include <QObject>
#include <QString>

namespace servescope::ui {

class DiskFileWatch : public QObject {
  Q_OBJECT
 public:
  explicit DiskFileWatch(QObject* parent = nullptr);

  // Follows `path` from its state now; a path that is not a file on disk (empty, "builtin:")
  // follows nothing.
  void follow(const QString& path);
  const QString& path() const { return path_; }
  // Whether its bytes differ from when follow() last saw them (a file that went counts).
  bool changed_outside() const;

 Q_SIGNALS:
  // Once per outside change (not for what follow() was told of).
  void changed_on_disk(const QString& path);

 private:
  struct Stamp {
    bool exists = false;
    qint64 size = 0;
    QByteArray digest;  // SHA-256 of the bytes (not read when the size alone tells)
  };
  Stamp stamp_now(bool with_digest) const;
  void on_file_changed();

  QFileSystemWatcher watcher_;
  QString path_;
  Stamp known_;
  QByteArray reported_;  // the digest last reported, so one change is said once
};

}  // namespace servescope::ui
