#include "ui/project_document.h"

#include <QUndoCommand>
#include <algorithm>

#include "engine/analysis/kept_timeline.h"
#include "model/core/error.h"
#include "model/scenario/scenario_editing.h"

namespace servescope::ui {
namespace {

// Puts one part of the project (its name, the cluster, the application or workload list) back
// and forth between its value before and after the edit; only that part is kept.
class SwapCommand final : public QUndoCommand {
 public:
  SwapCommand(ProjectDocument& doc, std::function<void(Project&)> forward, std::function<void(Project&)> backward,
              const QString& text)
      : QUndoCommand(text), doc_(doc), forward_(std::move(forward)), backward_(std::move(backward)) {}
  void redo() override { doc_.replace_part(forward_); }
  void undo() override { doc_.replace_part(backward_); }

 private:
  ProjectDocument& doc_;
  std::function<void(Project&)> forward_, backward_;
};

// Adds or removes one plan or run. It holds that artifact alone and moves it in and out of the
// list, so a project keeping large run bodies (timelines) is never copied on an edit.
class ArtifactCommand final : public QUndoCommand {
 public:
  using ListOf = std::vector<SavedArtifact>& (*)(Project&);
  ArtifactCommand(ProjectDocument& doc, ListOf list_of, std::size_t index, SavedArtifact artifact, bool adds,
                  const QString& text)
      : QUndoCommand(text),
        doc_(doc),
        list_of_(list_of),
        index_(index),
        held_(std::make_shared<SavedArtifact>(std::move(artifact))),
        adds_(adds) {}
  void redo() override { adds_ ? put_in() : take_out(); }
  void undo() override { adds_ ? take_out() : put_in(); }

 private:
  void put_in() {
    doc_.replace_part([this](Project& p) {
      auto& list = list_of_(p);
      list.insert(list.begin() + static_cast<std::ptrdiff_t>(index_), std::move(*held_));
    });
  }
  void take_out() {
    doc_.replace_part([this](Project& p) {
      auto& list = list_of_(p);
      *held_ = std::move(list[index_]);
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(index_));
    });
  }
  ProjectDocument& doc_;
  ListOf list_of_;
  std::size_t index_;
  std::shared_ptr<SavedArtifact> held_;
  bool adds_;
};

}  // namespace

ProjectDocument::ProjectDocument(QObject* parent) : QObject(parent) {}
ProjectDocument::~ProjectDocument() = default;

void ProjectDocument::reset(std::unique_ptr<Project> project, QString location) {
  undo_.clear();
  project_ = std::move(project);
  location_ = std::move(location);
  include_base_ = location_;
  undo_.setClean();
  ++generation_;
  Q_EMIT projectReset();
}

void ProjectDocument::mark_saved(QString location) {
  location_ = std::move(location);
  include_base_ = location_;
  undo_.setClean();
}

void ProjectDocument::mark_unsaved_copy() {
  location_.clear();
  undo_.resetClean();
}

void ProjectDocument::replace_part(const std::function<void(Project&)>& write) {
  if (!project_) return;
  write(*project_);
  Q_EMIT changed();
}

template <typename T>
QString ProjectDocument::push_part(T& (*part)(Project&), T after, const QString& text) {
  if (!project_) return tr("no project is open");
  // An edit that changes nothing is no edit: a field that reports its editing finished on Return
  // and again on losing focus must not leave two steps in the undo history and the Log.
  if (after == part(*project_)) return {};
  // Check the whole scenario with the edit applied; refuse with the first problem. The trial
  // holds the scenario and name only: kept plans and runs play no part in the check.
  Project trial{project_->name, project_->scenario, {}, {}};
  part(trial) = after;
  const auto problems = check_scenario(trial.scenario);
  if (!problems.empty()) return QString::fromStdString(problems.front().path + ": " + problems.front().message);
  auto before = std::make_shared<const T>(part(*project_));
  auto next = std::make_shared<const T>(std::move(after));
  undo_.push(new SwapCommand(
      *this, [part, next](Project& p) { part(p) = *next; }, [part, before](Project& p) { part(p) = *before; }, text));
  return {};
}

namespace {
std::string& name_of(Project& p) {
  return p.name;
}
Cluster& cluster_of(Project& p) {
  return p.scenario.cluster;
}
std::vector<Application>& applications_of(Project& p) {
  return p.scenario.applications;
}
std::vector<Workload>& workloads_of(Project& p) {
  return p.scenario.workloads;
}
std::vector<SavedArtifact>& plans_of(Project& p) {
  return p.plans;
}
std::vector<SavedArtifact>& runs_of(Project& p) {
  return p.runs;
}
Scenario& scenario_of(Project& p) {
  return p.scenario;
}
ProfileSet& profiles_of(Project& p) {
  return p.scenario.profiles;
}
std::vector<ModelProfile>& models_of(Project& p) {
  return p.scenario.profiles.models;
}
}  // namespace

QString ProjectDocument::rename(const QString& name) {
  if (name.trimmed().isEmpty()) return tr("a project needs a name");
  return push_part(&name_of, name.toStdString(), tr("Rename project to %1").arg(name));
}

QString ProjectDocument::set_cluster(Cluster cluster, const QString& what) {
  return push_part(&cluster_of, std::move(cluster), what);
}

template <typename T>
QString ProjectDocument::set_entry(std::vector<T>& (*list)(Project&), std::size_t index, T value, const QString& what,
                                   const QString& noun) {
  if (!project_ || index > list(*project_).size()) return tr("no %1 %2").arg(noun).arg(index);
  auto copy = list(*project_);
  if (index == copy.size())
    copy.push_back(std::move(value));
  else
    copy[index] = std::move(value);
  return push_part(list, std::move(copy), what);
}

template <typename T>
QString ProjectDocument::remove_entry(std::vector<T>& (*list)(Project&), std::size_t index, const QString& noun) {
  if (!project_ || index >= list(*project_).size()) return tr("no %1 %2").arg(noun).arg(index);
  auto copy = list(*project_);
  const auto name = QString::fromStdString(copy[index].name);
  copy.erase(copy.begin() + static_cast<std::ptrdiff_t>(index));
  return push_part(list, std::move(copy), tr("Remove %1 %2").arg(noun, name));
}

QString ProjectDocument::set_application(std::size_t index, Application app, const QString& what) {
  return set_entry(&applications_of, index, std::move(app), what, tr("application"));
}

QString ProjectDocument::add_application(const QString& name) {
  if (!project_) return tr("no project is open");
  const auto& scenario = project_->scenario;
  auto chosen = name.trimmed().toStdString();
  if (chosen.empty()) chosen = unique_application_name(scenario, "application");
  auto app = starter_application(scenario, chosen);
  const auto what = tr("New application %1").arg(QString::fromStdString(chosen));
  return set_application(scenario.applications.size(), std::move(app), what);
}

QString ProjectDocument::rename_application(std::size_t index, const QString& name) {
  if (!project_ || index >= project_->scenario.applications.size()) return tr("no application %1").arg(index);
  const auto& from = project_->scenario.applications[index].name;
  const auto to = name.trimmed();
  try {
    auto renamed = with_renamed_application(project_->scenario, from, to.toStdString());
    return push_part(&scenario_of, std::move(renamed),
                     tr("Rename application %1 to %2").arg(QString::fromStdString(from), to));
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
}

QString ProjectDocument::remove_application(std::size_t index) {
  return remove_entry(&applications_of, index, tr("application"));
}

QString ProjectDocument::set_workload(std::size_t index, Workload workload, const QString& what) {
  return set_entry(&workloads_of, index, std::move(workload), what, tr("workload"));
}

QString ProjectDocument::remove_workload(std::size_t index) {
  return remove_entry(&workloads_of, index, tr("workload"));
}

QString ProjectDocument::add_profiles(const ProfileSet& profiles, const QString& what,
                                      const std::vector<GpuSpec>& devices) {
  if (!project_) return tr("no project is open");
  auto set = project_->scenario.profiles;
  for (const auto& m : profiles.models) {
    if (set.find(m.name)) return tr("the project already has a model named %1").arg(QString::fromStdString(m.name));
    set.models.push_back(m);
  }
  // How slots of a device slow each other, measured with the models: one more measurement of the
  // device type, which joins the project's (ProfileSet::contention_on).
  set.contention.insert(set.contention.end(), profiles.contention.begin(), profiles.contention.end());
  if (devices.empty()) return push_part(&profiles_of, std::move(set), what);
  // Profiles of a device type the project lacks are refused by every check, so the two parts
  // move together. A type the project has stays as it is (with any price the user gave it).
  auto scenario = project_->scenario;
  scenario.profiles = std::move(set);
  for (const auto& d : devices)
    if (std::ranges::find(scenario.custom_gpus, d.id, &GpuSpec::id) == scenario.custom_gpus.end())
      scenario.custom_gpus.push_back(d);
  return push_part(&scenario_of, std::move(scenario), what);
}

QString ProjectDocument::replace_profiles(const ProfileSet& calibrated, const QString& what) {
  if (!project_) return tr("no project is open");
  return push_part(&scenario_of, with_replaced_profiles(project_->scenario, calibrated), what);
}

QString ProjectDocument::set_profile(std::size_t index, ModelProfile profile, const QString& what) {
  if (!project_ || index >= project_->scenario.profiles.models.size()) return tr("no model %1").arg(index);
  const auto& current = project_->scenario.profiles.models[index];
  if (!current.origin.empty())
    return tr("%1 comes from %2; edit that file, or import the model into the project")
        .arg(QString::fromStdString(current.name), QString::fromStdString(current.origin));
  if (profile.name != current.name) return tr("a profile edit cannot rename the model");
  return set_entry(&models_of, index, std::move(profile), what, tr("model"));
}

QString ProjectDocument::add_plan(SavedArtifact plan) {
  return add_artifact(&plans_of, std::move(plan), tr("Add plan %1"));
}

QString ProjectDocument::add_run(SavedArtifact run, QString* timeline_note) {
  if (!project_) return tr("no project is open");
  std::string dropped;
  try {
    dropped = engine::fit_kept_timeline(run, *project_);
  } catch (const Error& e) {
    return QString::fromUtf8(e.what());
  }
  if (timeline_note) *timeline_note = QString::fromStdString(dropped);
  return add_artifact(&runs_of, std::move(run), tr("Add run %1"));
}

QString ProjectDocument::add_artifact(std::vector<SavedArtifact>& (*list_of)(Project&), SavedArtifact artifact,
                                      const QString& what) {
  if (!project_) return tr("no project is open");
  const auto& list = list_of(*project_);
  const auto name = QString::fromStdString(artifact.name);
  if (name.isEmpty()) return tr("a plan or run needs a name");
  if (std::ranges::any_of(list, [&](const SavedArtifact& a) { return a.name == artifact.name; }))
    return tr("the project already has one named %1").arg(name);
  undo_.push(new ArtifactCommand(*this, list_of, list.size(), std::move(artifact), true, what.arg(name)));
  return {};
}

QString ProjectDocument::remove_artifact(std::vector<SavedArtifact>& (*list_of)(Project&), std::size_t index,
                                         const QString& noun) {
  if (!project_ || index >= list_of(*project_).size()) return tr("no %1 %2").arg(noun).arg(index);
  const auto name = QString::fromStdString(list_of(*project_)[index].name);
  undo_.push(new ArtifactCommand(*this, list_of, index, {}, false, tr("Remove %1 %2").arg(noun, name)));
  return {};
}

QString ProjectDocument::remove_plan(std::size_t index) {
  return remove_artifact(&plans_of, index, tr("plan"));
}

QString ProjectDocument::remove_run(std::size_t index) {
  return remove_artifact(&runs_of, index, tr("run"));
}

}  // namespace servescope::ui
