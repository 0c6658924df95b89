// How responsive the window stays (BENCHMARKS.md "Live soak"): a timer asks the event loop for a
// tick every 16 ms, and the gaps between ticks are what a user feels as frame time; a slot that
// holds the loop for 300 ms shows as a 300 ms gap. Summarised per minute (ticks, p50, p99, max)
// into a CSV file, rewritten whole each minute through the one writer, for the soak benchmark
// (`servescope --frame-log FILE`). The writer's fsync may wait seconds behind other disk traffic,
// so it writes on a thread of its own: the clock must not stall the loop it measures.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>
#include <future>
#include <string>
#include <vector>

namespace servescope::ui {

class FrameClock : public QObject {
  Q_OBJECT
 public:
  FrameClock(QString path, QObject* parent = nullptr);
  ~FrameClock() override;

 private:
  void tick();
  void summarise();

  QString path_;
  QTimer timer_;
  QElapsedTimer since_tick_, since_start_;
  std::vector<double> gaps_ms_;  // this minute's
  std::string csv_;
  int minute_ = 0;
  std::future<void> written_;  // the last write, on its own thread
};

}  // namespace servescope::ui
