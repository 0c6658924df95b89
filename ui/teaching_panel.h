// Teaching mode (README "The GUI", teaching mode): one request's life told step by step beside
// the timeline (engine/timeline/request_story.h): arrival, queueing, its batch with the data
// plane's reason for when and where it ran, each stage and transfer, its finish or its drop.
// Next and Back move the playback line to each step, select the batch (its flow drawn) and
// show the step as a note on the timeline; Play steps on its own; the story exports as a
// video with its notes.
#pragma once

#include <QWidget>
#include <optional>

#include "engine/timeline/request_story.h"

class QLabel;
class QListWidget;
class QPushButton;
class QTimer;

namespace servescope::widgets {
class TimelineView;
}

namespace servescope::ui {

class TeachingPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TeachingPanel(widgets::TimelineView* view, QWidget* parent = nullptr);

  // Tells request `id` of the shown run; false (with the reason shown) when the run has no trace
  // of it.
  bool tell(engine::RequestId id);
  // The first request of the selected batch, else a late one (or a dropped one) after "now".
  bool tell_next(bool dropped);
  const std::optional<engine::RequestStory>& story() const { return story_; }
  int step() const { return step_; }
  void go_to(int step);  // shows the step on the timeline
  void play(bool on);
  QString export_video(const QString& path);  // with each step's note; empty when written

 private:
  void run_changed();
  QString note_of(int step) const;

  widgets::TimelineView* view_;
  QLabel* headline_;
  QListWidget* steps_;
  QPushButton* back_;
  QPushButton* next_;
  QPushButton* play_;
  QPushButton* video_;
  QTimer* clock_;
  std::optional<engine::RequestStory> story_;
  int step_ = -1;
};

}  // namespace servescope::ui
