// The open project as an undoable document (docs/architecture.md "The GUI"). Every edit swaps
// one part of the project (its name, the cluster, one application, one workload) for an edited
// copy, after the whole scenario has been checked with the edit applied; a refused edit changes
// nothing and says why. The undo stack's clean state is "saved", so the window can flag unsaved
// changes and ask about them.
#pragma once

#include <QObject>
#include <QUndoStack>
#include <functional>
#include <memory>

#include "model/scenario/scenario.h"

namespace servescope::ui {

class ProjectDocument : public QObject {
  Q_OBJECT
 public:
  explicit ProjectDocument(QObject* parent = nullptr);
  ~ProjectDocument() override;

  const Project* project() const { return project_.get(); }
  const QString& location() const { return location_; }
  // Where the project's relative profile includes are read from: its location, or for a
  // recovered copy (which has no location) the recovery file it was read from.
  const QString& include_base() const { return include_base_; }
  QUndoStack* undo_stack() { return &undo_; }
  bool is_modified() const { return !undo_.isClean(); }

  // A new project (just loaded or created): the undo history starts afresh, clean.
  void reset(std::unique_ptr<Project> project, QString location);
  // Counts resets: work started on one project (a planner, a simulation) checks it before its
  // result lands, so it never lands in a project opened meanwhile.
  std::uint64_t generation() const { return generation_; }
  // After a save: this state is the saved one.
  void mark_saved(QString location);
  // A recovered copy: nowhere saved yet, so it counts as modified and Save asks where.
  void mark_unsaved_copy();

  // Checked edits. Each returns an empty string when the edit is on the undo stack, else the
  // reason it was refused ("$.cluster.nodes[2].gpu: unknown GPU type 'X'").
  QString rename(const QString& name);
  QString set_cluster(Cluster cluster, const QString& what);
  QString set_application(std::size_t index, Application app, const QString& what);  // index == count adds
  QString remove_application(std::size_t index);
  // A new application at the end of the list: one module to start drawing from
  // (model/scenario/scenario_editing.h), called `name`, or "application", "application 2", …
  // when `name` is blank.
  QString add_application(const QString& name = {});
  // Renames application `index` and every workload target naming it, as one undoable step.
  QString rename_application(std::size_t index, const QString& name);
  QString set_workload(std::size_t index, Workload workload, const QString& what);  // index == count adds
  QString remove_workload(std::size_t index);
  // Adds inline profiles (estimated, imported or measured) and any contention between slots
  // measured with them; a model the project already has is refused. `devices`: device types the
  // profiles were measured on, added with them in the same step where the project lacks them.
  QString add_profiles(const ProfileSet& profiles, const QString& what, const std::vector<GpuSpec>& devices = {});
  // Puts calibrated profiles (engine/analysis/calibration.h) in place of the project's of the same
  // models and device types, as one undo step; every profile becomes the project's own (inline).
  QString replace_profiles(const ProfileSet& calibrated, const QString& what);
  // Replaces one model's profile. Profiles pulled in by an include belong to their file (a
  // project saves only inline ones), so editing one is refused with the file's name.
  QString set_profile(std::size_t index, ModelProfile profile, const QString& what);
  // Plans made in the GUI are kept in the project (its "plans" list), undoably.
  QString add_plan(SavedArtifact plan);
  QString remove_plan(std::size_t index);
  QString remove_run(std::size_t index);
  // Simulated runs likewise (their "runs" list): the run's metrics, and its timeline packed while
  // it fits the project's budgets (engine/analysis/kept_timeline.h). `timeline_note`, when given,
  // receives why a timeline was not kept (empty when it was, or there was none).
  QString add_run(SavedArtifact run, QString* timeline_note = nullptr);

  // Used by the undo commands: replaces the project as one step and notifies.
  void replace_part(const std::function<void(Project&)>& write);

 Q_SIGNALS:
  void changed();  // after an edit, an undo or a redo
  void projectReset();

 private:
  template <typename T>
  QString push_part(T& (*part)(Project&), T after, const QString& text);
  template <typename T>
  QString set_entry(std::vector<T>& (*list)(Project&), std::size_t index, T value, const QString& what,
                    const QString& noun);
  QString add_artifact(std::vector<SavedArtifact>& (*list_of)(Project&), SavedArtifact artifact, const QString& what);
  QString remove_artifact(std::vector<SavedArtifact>& (*list_of)(Project&), std::size_t index, const QString& noun);
  template <typename T>
  QString remove_entry(std::vector<T>& (*list)(Project&), std::size_t index, const QString& noun);

  std::unique_ptr<Project> project_;
  QString location_;
  QString include_base_;
  QUndoStack undo_;
  std::uint64_t generation_ = 0;
};

}  // namespace servescope::ui
