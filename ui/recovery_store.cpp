#include "ui/recovery_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QUuid>
#include <algorithm>
#include <stdexcept>
#include <sys/file.h>

#include "model/io/file_io.h"

namespace servescope::ui {

class RecoveryStore::Lock {
 public:
  // Null when another open file (a live instance's) holds it, or it cannot be made.
  static std::unique_ptr<Lock> take(const QString& path) {
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return nullptr;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      return nullptr;
    }
    return std::unique_ptr<Lock>(new Lock(fd, path));
  }
  ~Lock() { ::close(fd_); }
  // Gone with its copy: unlinked while still held, so nobody takes it in between.
  void remove() const { QFile::remove(path_); }

 private:
  Lock(int fd, QString path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  QString path_;
};

RecoveryStore::RecoveryStore(QString folder)
    : folder_(std::move(folder)), id_(QUuid::createUuid().toString(QUuid::WithoutBraces)) {}

RecoveryStore::~RecoveryStore() = default;

QString RecoveryStore::default_folder() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/recovery");
}

QString RecoveryStore::path_of(const QString& id, const char* suffix) const {
  return folder_ + QLatin1Char('/') + id + QLatin1String(suffix);
}

// Where versions before per-instance copies kept their one copy.
QString RecoveryStore::legacy_path() const {
  return QFileInfo(folder_).path() + QStringLiteral("/recovery.json");
}

QString RecoveryStore::own_path() const {
  return path_of(id_, ".json");
}

bool RecoveryStore::is_copy(const QString& path) const {
  const QFileInfo info(path);
  return info.absolutePath() == QFileInfo(folder_).absoluteFilePath() ||
         info.absoluteFilePath() == QFileInfo(legacy_path()).absoluteFilePath();
}

void RecoveryStore::save(const Project& project, const QString& include_base, const QString& location) {
  if (!own_lock_) {
    if (!QDir().mkpath(folder_)) throw std::runtime_error("cannot make the folder " + folder_.toStdString());
    own_lock_ = Lock::take(path_of(id_, ".lock"));
    if (!own_lock_) throw std::runtime_error("cannot lock " + path_of(id_, ".lock").toStdString());
  }
  // The copy lives in the recovery folder: its relative includes must point from there.
  Project copy = project;
  rebase_profile_includes(copy.scenario, include_base.toStdString(), own_path().toStdString());
  save_project(own_path().toStdString(), copy);
  const QJsonObject about{{QStringLiteral("project"), QString::fromStdString(project.name)},
                          {QStringLiteral("location"), location},
                          {QStringLiteral("saved"), QDateTime::currentDateTime().toString(Qt::ISODate)}};
  write_output_file(path_of(id_, ".about").toStdString(), QJsonDocument(about).toJson().toStdString());
}

void RecoveryStore::remove_copy(const QString& id, const QString& path) {
  QFile::remove(path);
  QFile::remove(path_of(id, ".about"));
}

void RecoveryStore::remove_own() {
  if (!own_lock_) return;  // never saved a copy
  remove_copy(id_, own_path());
  own_lock_->remove();
  own_lock_.reset();
}

std::vector<RecoveryStore::Copy> RecoveryStore::orphans() {
  std::vector<Copy> found;
  const auto add = [&](const QString& id, const QString& path) {
    if (std::ranges::any_of(claimed_, [&](const auto& c) { return c.first == id; })) return;
    auto lock = Lock::take(path_of(id, ".lock"));
    if (!lock) return;  // its owner is alive (or another instance is offering it right now)
    Copy copy{id, path, {}, {}, QFileInfo(path).lastModified()};
    // What the copy is of, from its sidecar (the copy itself may be large, and is read only if
    // opened); a copy without one (an earlier version's) is still offered.
    QFile about(path_of(id, ".about"));
    if (about.size() < 65536 && about.open(QIODevice::ReadOnly)) {
      const auto j = QJsonDocument::fromJson(about.readAll()).object();
      copy.project_name = j.value(QStringLiteral("project")).toString();
      copy.location = j.value(QStringLiteral("location")).toString();
      const auto saved = QDateTime::fromString(j.value(QStringLiteral("saved")).toString(), Qt::ISODate);
      if (saved.isValid()) copy.saved = saved;
    }
    claimed_.emplace_back(id, std::move(lock));
    found.push_back(std::move(copy));
  };
  if (QDir().mkpath(folder_)) {
    for (const auto& entry : QDir(folder_).entryInfoList({QStringLiteral("*.json")}, QDir::Files))
      if (entry.completeBaseName() != id_) add(entry.completeBaseName(), entry.absoluteFilePath());
    if (QFile::exists(legacy_path())) add(QStringLiteral("legacy"), legacy_path());
  }
  std::ranges::sort(found, [](const Copy& a, const Copy& b) { return a.saved > b.saved; });
  return found;
}

void RecoveryStore::discard(const Copy& copy) {
  const auto it = std::ranges::find_if(claimed_, [&](const auto& c) { return c.first == copy.id; });
  if (it == claimed_.end()) return;  // not ours to delete
  remove_copy(copy.id, copy.path);
  it->second->remove();
  claimed_.erase(it);
}

void RecoveryStore::release(const Copy& copy) {
  std::erase_if(claimed_, [&](const auto& c) { return c.first == copy.id; });
}

}  // namespace servescope::ui
