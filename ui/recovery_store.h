// Crash recovery of unsaved work (README "Projects": "Nothing lost"): each running window keeps
// its own autosaved copy, named for the instance, beside a lock it holds while it lives (flock:
// the kernel lets go when the process ends however it ends, so a copy whose owner died is seen
// as such at once, and one whose owner is alive is never offered, opened or deleted by anyone
// else, in this process or another). A sidecar names
// the project's file and when the copy was made, for the dialog that offers it. A copy is removed
// by its owner when it saves or closes normally, and by whoever adopts or discards it after its
// owner died; the single `recovery.json` of earlier versions is offered like an ownerless copy.
#pragma once

#include <QDateTime>
#include <QString>
#include <memory>
#include <vector>

#include "model/io/document.h"

namespace servescope::ui {

class RecoveryStore {
 public:
  // A copy left by an instance that is gone.
  struct Copy {
    QString id;            // the instance that made it
    QString path;          // the project copy
    QString project_name;  // as it was named (empty: not known)
    QString location;      // the file it was a copy of (empty: never saved, or not known)
    QDateTime saved;
  };

  // `folder`: where copies live (the application's data folder + "/recovery" unless told).
  explicit RecoveryStore(QString folder = default_folder());
  ~RecoveryStore();
  RecoveryStore(const RecoveryStore&) = delete;
  RecoveryStore& operator=(const RecoveryStore&) = delete;

  static QString default_folder();
  const QString& folder() const { return folder_; }
  // This instance's copy (it may not exist yet).
  QString own_path() const;
  // Writes this instance's copy of `project` (includes rebased from `include_base`), taking the
  // lock first. Throws Error (or std::exception) with the reason when it cannot.
  void save(const Project& project, const QString& include_base, const QString& location);
  // Removes this instance's copy (after a save, or on a normal close).
  void remove_own();
  // Whether `path` is a recovery copy (any instance's): never a file of the user's to list.
  bool is_copy(const QString& path) const;

  // Copies whose owner is gone, newest first. Each is claimed (its lock taken) so that no other
  // instance offers it meanwhile; release() or adopt()/discard() lets go.
  std::vector<Copy> orphans();
  // The copy was opened and saved as this instance's own: the orphan goes.
  void adopt(const Copy& copy) { discard(copy); }
  void discard(const Copy& copy);
  // Left for a later start: its claim is let go.
  void release(const Copy& copy);

 private:
  // An exclusive flock on a file, held while this lives.
  class Lock;
  QString path_of(const QString& id, const char* suffix) const;
  QString legacy_path() const;
  void remove_copy(const QString& id, const QString& path);

  QString folder_;
  QString id_;
  std::unique_ptr<Lock> own_lock_;
  std::vector<std::pair<QString, std::unique_ptr<Lock>>> claimed_;
};

}  // namespace servescope::ui
